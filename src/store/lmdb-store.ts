// The node's one LMDB environment and its named databases. Every block is committed in one
// write transaction (commitBlock in src/chain), so a crash leaves the previous head intact.
import { open, type Database, type RootDatabase } from 'lmdb';
import { join } from 'node:path';
import { existsSync, mkdirSync } from 'node:fs';
import { dataFileProblem } from './lmdb-file-check.ts';
import { fileErrorMessage } from '../util/file-errors.ts';

/** The database cannot be opened: damaged, truncated or not accessible; the message names the file. */
export class StoreError extends Error {}

export interface Store {
  readonly env: RootDatabase;
  /** head hash, genesis hash, chain config */
  readonly meta: Database<unknown, string>;
  /** block hash → RLP header */
  readonly headers: Database<Uint8Array, Uint8Array>;
  /** block hash → raw transactions (each the signed serialization) */
  readonly bodies: Database<Uint8Array[], Uint8Array>;
  /** block number → canonical block hash */
  readonly canon: Database<Uint8Array, number>;
  /** tx hash → [block number, index in block] */
  readonly txIndex: Database<[number, number], Uint8Array>;
  /** block hash → stored receipts of the block */
  readonly receipts: Database<unknown[], Uint8Array>;
  /** state trie nodes and contract code (content-addressed; never deleted: archive) */
  readonly trie: Database<Uint8Array, Uint8Array>;
  /** contract address → creator address */
  readonly creators: Database<Uint8Array, Uint8Array>;
  /** Wait until everything committed so far is on disk. */
  flushed(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the node's LMDB environment in `dir`/chaindata, after checking the data file LMDB would map
 * (src/store/lmdb-file-check.ts). `readOnly` (chain-node db check) creates nothing and never writes.
 */
export function openStore(dir: string, { readOnly = false } = {}): Store {
  const path = join(dir, 'chaindata');
  const dataFile = join(path, 'data.mdb');
  if (readOnly && !existsSync(dataFile)) throw new StoreError(`no database at ${path}`);
  let problem: string | undefined;
  try {
    if (!readOnly) mkdirSync(path, { recursive: true });
    problem = existsSync(dataFile) ? dataFileProblem(dataFile) : undefined;
  } catch (e) {
    throw new StoreError(`cannot open database ${fileErrorMessage(e, path)}`);
  }
  if (problem) throw new StoreError(`database ${dataFile} ${problem}`);
  let env: RootDatabase;
  try {
    env = open({ path, maxDbs: 16, compression: false, mapSize: 2 ** 36, readOnly });
  } catch (e) {
    throw new StoreError(`cannot open database ${fileErrorMessage(e, path)}`);
  }
  const bin = { keyEncoding: 'binary' as const, encoding: 'binary' as const };
  const binKeyPacked = { keyEncoding: 'binary' as const, encoding: 'msgpack' as const };
  // one write transaction for all of them: in a new environment each openDB would otherwise create
  // its database in a synced transaction of its own (8 commits, 3–10 ms measured; nothing to commit
  // in an existing one)
  // (a read-only environment opens them in a read transaction of its own)
  const openAll = () => ({
    meta: env.openDB<unknown, string>({ name: 'meta', encoding: 'msgpack' }),
    headers: env.openDB<Uint8Array, Uint8Array>({ name: 'headers', ...bin }),
    bodies: env.openDB<Uint8Array[], Uint8Array>({ name: 'bodies', ...binKeyPacked }),
    canon: env.openDB<Uint8Array, number>({ name: 'canon', encoding: 'binary' }),
    txIndex: env.openDB<[number, number], Uint8Array>({ name: 'txIndex', ...binKeyPacked }),
    receipts: env.openDB<unknown[], Uint8Array>({ name: 'receipts', ...binKeyPacked }),
    trie: env.openDB<Uint8Array, Uint8Array>({ name: 'trie', ...bin }),
    creators: env.openDB<Uint8Array, Uint8Array>({ name: 'creators', ...bin }),
  });
  const dbs = readOnly ? openAll() : env.transactionSync(openAll);
  const store: Store = {
    env,
    ...dbs,
    async flushed() {
      await env.flushed;
    },
    async close() {
      await env.flushed;
      await env.close();
    },
  };
  return store;
}

/** A datadir's store opened read-only for an offline command (`db check`, `export`); undefined after telling `out` why it cannot be (exit 1). */
export function openStoreForCommand(datadir: string, command: string, out: (line: string) => void): Store | undefined {
  try {
    return openStore(datadir, { readOnly: true });
  } catch (e) {
    if (!(e instanceof StoreError)) throw e;
    out(`${command}: ${e.message}`);
    return undefined;
  }
}
