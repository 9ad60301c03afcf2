// `chain-node export FILE [FROM [TO]] --datadir DIR`: writes the canonical blocks FROM…TO (default:
// genesis to head) to FILE in the block file format (src/chain/block-file.ts). It opens LMDB
// read-only, as `db check` does, so it may run beside a node serving the datadir; it exports the
// chain as it was when it began (one read snapshot: the walk is synchronous). Exit 0 when written,
// 1 when the datadir or the file cannot be used, 2 for a usage error.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { openStoreForCommand, StoreError } from './store/lmdb-store.ts';
import { Chain } from './chain/chain.ts';
import { encodeBlock } from './chain/block-codec.ts';
import { writeBlockFile } from './chain/block-file.ts';
import { fileErrorMessage, isFileError } from './util/file-errors.ts';
import { bytesToHex } from './util/hex.ts';

const USAGE = 'usage: chain-node export FILE [FROM [TO]] [--datadir DIR]   (FILE.gz: gzip-compressed)';

/** `out`: the result line (stdout); `progress`: a line now and then while it writes (stderr). */
export async function runExportCommand(argv: string[], out: (line: string) => void, progress: (line: string) => void): Promise<number> {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: { datadir: { type: 'string', default: './data' } }, allowPositionals: true, strict: true }));
  } catch (e) {
    out(`chain-node export: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const [file, ...range] = positionals;
  const bounds = range.map((r) => (/^\d+$/.test(r) ? BigInt(r) : undefined));
  if (file === undefined || range.length > 2 || bounds.includes(undefined)) {
    out(range.length > 0 && bounds.includes(undefined) ? `chain-node export: FROM and TO are block numbers (decimal), got ${range.join(' ')}\n${USAGE}` : USAGE);
    return 2;
  }
  const datadir = resolve(values.datadir);
  const store = openStoreForCommand(datadir, 'chain-node export', out);
  if (!store) return 1;
  try {
    const chain = new Chain(store);
    if (!chain.initialized) {
      out(`chain-node export: ${datadir} holds no chain`);
      return 1;
    }
    const head = chain.headNumber;
    const from = bounds[0] ?? 0n;
    const to = bounds[1] ?? head;
    if (from > to || to > head) {
      out(`chain-node export: blocks ${from}…${to} are not in the chain (head is #${head})`);
      return 1;
    }
    const started = Date.now();
    let reported = started;
    let bytes = 0;
    function* blocks(): Generator<Uint8Array> {
      for (let n = from; n <= to; n++) {
        if (Date.now() - reported >= 1000) {
          reported = Date.now();
          progress(`chain-node export: block #${n} of ${from}…${to}, ${(bytes / 2 ** 20).toFixed(1)} MiB`);
        }
        const hash = chain.hashByNumber(n);
        const block = hash && chain.block(hash);
        if (block === undefined) throw new StoreError(`block #${n} is missing from the database (chain-node db check --datadir ${datadir} lists the damage)`);
        const encoded = encodeBlock(block.header, block.txs);
        bytes += encoded.length;
        yield encoded;
      }
    }
    await writeBlockFile(resolve(file), blocks());
    const last = chain.hashByNumber(to)!;
    out(`chain-node export: wrote blocks ${from}…${to} (${to - from + 1n} blocks, last ${bytesToHex(last)}) to ${resolve(file)}: ${bytes} bytes of blocks in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  } catch (e) {
    if (e instanceof StoreError) out(`chain-node export: ${e.message}`);
    else if (isFileError(e)) out(`chain-node export: cannot write ${fileErrorMessage(e, resolve(file))}`);
    else throw e;
    return 1;
  } finally {
    await store.close();
  }
}
