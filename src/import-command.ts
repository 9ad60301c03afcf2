// `chain-node import FILE [--datadir DIR] [--genesis FILE]`: the blocks of a block file
// (src/chain/block-file.ts) onto the datadir's chain by the path peers' blocks take
// (src/core/block-import.ts): seals verified against the validators of each parent, every block
// executed and its header reproduced, then committed. Blocks the chain already has are skipped, so
// an interrupted import is resumed by running it again (each commit is one LMDB transaction: a kill
// leaves the chain at the last committed block). The datadir must hold the chain the file began
// with: a new one is created from --genesis, and a file whose genesis is not the datadir's is
// refused before anything is imported. No node may serve the datadir meanwhile (LMDB has one
// writer: the import is the chain's). Exit 0 when every block is in the chain, 1 when a block is
// refused or the file or datadir cannot be used, 2 for a usage error.
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ChainCore } from './core/core.ts';
import { createLogger } from './util/logger.ts';
import { GenesisError } from './chain/genesis.ts';
import { openStore, StoreError } from './store/lmdb-store.ts';
import { decodeBlock } from './chain/block-codec.ts';
import { BlockFileError, readBlockFile, type FileBlock } from './chain/block-file.ts';
import { fileErrorMessage, isFileError } from './util/file-errors.ts';
import { bytesToHex, equalBytes } from './util/hex.ts';

const USAGE = 'usage: chain-node import FILE [--datadir DIR] [--genesis FILE]   (FILE.gz: gzip-compressed; --genesis for a new datadir)';

/** Blocks handed to the importer at once: its pipeline recovers a batch's seals while earlier blocks execute. */
const BATCH_BLOCKS = 256;
const BATCH_BYTES = 16 * 2 ** 20;

class ImportRefused extends Error {}

/** `out`: the result line (stdout); `progress`: a line a second while it imports, and the node's warnings (stderr). */
export async function runImportCommand(argv: string[], out: (line: string) => void, progress: (line: string) => void): Promise<number> {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: { datadir: { type: 'string', default: './data' }, genesis: { type: 'string' } }, allowPositionals: true, strict: true }));
  } catch (e) {
    out(`chain-node import: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (positionals.length !== 1) {
    out(USAGE);
    return 2;
  }
  const file = resolve(positionals[0]!);
  const datadir = resolve(values.datadir);
  if (!existsSync(file)) {
    out(`chain-node import: cannot read ${file}: no such file or directory (ENOENT)`);
    return 1;
  }
  let core: ChainCore;
  try {
    // without a chain and a genesis ChainCore would make a dev chain of its own, whose genesis no file shares
    if (values.genesis === undefined && !(await holdsChain(datadir))) {
      out(`chain-node import: ${datadir} holds no chain: give the genesis the exported chain began with (--genesis FILE; an exporting node keeps it as DATADIR/genesis.json)`);
      return 1;
    }
    core = await ChainCore.open({
      datadir,
      genesisFile: values.genesis && resolve(values.genesis),
      devPeriod: 0,
      sealEmpty: false,
      minGasPrice: 0n,
      lightKdf: true,
      p2pPort: 0,
      log: createLogger(2, (line) => progress(line.trimEnd())),
      seal: false,
      txJournal: '',
      unlockDevAccount: false,
    });
  } catch (e) {
    if (e instanceof GenesisError || e instanceof StoreError) out(`chain-node import: ${e.message}`);
    else if (isFileError(e)) out(`chain-node import: cannot use ${fileErrorMessage(e)}`);
    else throw e;
    return 1;
  }
  const { chain } = core;
  const started = Date.now();
  const headBefore = chain.headNumber;
  let seen = 0;
  let transactions = 0;
  let reported = started;
  const summary = () => {
    const added = Number(chain.headNumber - headBefore);
    const seconds = (Date.now() - started) / 1000;
    return `${added} blocks imported (${transactions} transactions; ${seen - added} already in the chain) in ${seconds.toFixed(1)} s; head #${chain.headNumber} ${bytesToHex(chain.head.hash)}`;
  };
  const importBatch = async (batch: FileBlock[]) => {
    const outcome = await core.importBlocks(batch.map((b) => b.bytes));
    transactions += outcome.transactions;
    seen += outcome.imported;
    if (outcome.refused) {
      const at = batch[outcome.refused.index]!;
      throw new ImportRefused(`the block at offset ${at.offset} of ${file} is refused: ${outcome.refused.reason}`);
    }
    // after the first batch (what a short import shows), then once a second
    if (seen === outcome.imported || Date.now() - reported >= 1000) {
      reported = Date.now();
      const perSecond = Number(chain.headNumber - headBefore) / Math.max((reported - started) / 1000, 0.001);
      progress(`chain-node import: ${summary()} (${perSecond.toFixed(0)} blocks/s)`);
    }
  };
  try {
    let batch: FileBlock[] = [];
    let batchBytes = 0;
    let first = true;
    let damage: BlockFileError | undefined;
    try {
      for await (const block of readBlockFile(file)) {
        if (first) {
          first = false;
          checkGenesis(block, core, file, datadir);
        }
        batch.push(block);
        batchBytes += block.bytes.length;
        if (batch.length >= BATCH_BLOCKS || batchBytes >= BATCH_BYTES) {
          await importBatch(batch);
          batch = [];
          batchBytes = 0;
        }
      }
    } catch (e) {
      if (!(e instanceof BlockFileError)) throw e;
      damage = e; // what came before the damage is still imported
    }
    if (batch.length > 0) await importBatch(batch);
    if (damage) throw damage;
    out(`chain-node import: ${file}: ${summary()}`);
    return 0;
  } catch (e) {
    if (e instanceof ImportRefused || e instanceof BlockFileError) out(`chain-node import: ${e.message}; ${summary()}`);
    else if (isFileError(e)) out(`chain-node import: cannot read ${fileErrorMessage(e, file)}; ${summary()}`);
    else throw e;
    return 1;
  } finally {
    await core.close();
  }
}

/** Whether `datadir` already holds a chain (read-only: creates nothing). */
async function holdsChain(datadir: string): Promise<boolean> {
  if (!existsSync(join(datadir, 'chaindata', 'data.mdb'))) return false;
  const store = openStore(datadir, { readOnly: true });
  try {
    return store.meta.get('head') !== undefined;
  } finally {
    await store.close();
  }
}

/** A file that begins with a genesis block must begin with the datadir's: refused in words before any import. */
function checkGenesis(block: FileBlock, core: ChainCore, file: string, datadir: string): void {
  let first;
  try {
    first = decodeBlock(block.bytes);
  } catch {
    return; // the importer names what is wrong with it
  }
  const genesis = core.chain.genesis.hash;
  if (first.header.number === 0n && !equalBytes(first.hash, genesis)) {
    throw new ImportRefused(`${file} begins with genesis block ${bytesToHex(first.hash)}, but the chain in ${datadir} has genesis ${bytesToHex(genesis)}: import into a datadir created with the exported chain's genesis (a new --datadir with --genesis FILE)`);
  }
}
