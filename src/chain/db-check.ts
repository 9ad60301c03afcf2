// Integrity of the stored chain, read straight from LMDB: the quick check of the head every start
// makes (its header and the root node of its state, hash verified), and the full walk of
// `chain-node db check` — every canonical header (hash, number, parent link), body and receipts
// (against the header's roots), the transaction index, and the whole head state: every node of the
// account trie and of each storage trie, and every contract's code, each verified against the hash
// it is stored under. Reads only; nothing here writes. Damage in the file itself (a page LMDB cannot
// follow, a value that no longer decodes) is reported as a problem naming the table and the key or
// key range, never thrown: a damaged datadir is exactly what this check is run on.
import { RLP } from '@ethereumjs/rlp';
import { encodeReceipt } from '@ethereumjs/vm';
import { KECCAK256_NULL } from '@ethereumjs/util';
import type { Database, Key } from 'lmdb';
import type { Store } from '../store/lmdb-store.ts';
import { decodeHeader, headerHash, EMPTY_TRIE_ROOT, type Header } from './header.ts';
import { orderedTrieRoot } from './ordered-trie.ts';
import { logsBloom } from './bloom.ts';
import type { StoredReceipt } from './types.ts';
import { CODE_KEY_PREFIX } from '../state/trie-db.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { bytesToHex, equalBytes } from '../util/hex.ts';

/** Problems listed in full; past this only counted (a wiped table would list every block). */
const MAX_LISTED = 50;

type TableName = 'meta' | 'headers' | 'bodies' | 'canon' | 'txIndex' | 'receipts' | 'trie' | 'creators';
const TABLES: TableName[] = ['meta', 'canon', 'headers', 'bodies', 'receipts', 'txIndex', 'trie', 'creators'];

/** A stored value that cannot be read: the message names the table, the key and why. */
class Unreadable extends Error {
  constructor(message: string, readonly page: boolean) {
    super(message);
  }
}

/**
 * Thrown after a damaged page was reported: LMDB has then marked the read transaction bad
 * (MDB_BAD_TXN) and every later read of this process fails too, so the part being checked ends here.
 */
class PageDamage extends Error {}

/** LMDB's own errors (MDB_PAGE_NOTFOUND, MDB_CORRUPTED, …) mean a damaged page; anything else a value that no longer decodes. */
function isPageError(e: unknown): boolean {
  return /^MDB_/.test(String((e as Error)?.message ?? e));
}

function readFailure(e: unknown): string {
  const message = String((e as Error)?.message ?? e).split('\n')[0]!;
  return isPageError(e) ? `unreadable, a page on its path is damaged (${message})` : `does not decode (${message})`;
}

/** After `e` was reported: a damaged page ends the part being checked (PageDamage). */
function stopOnPage(e: unknown): void {
  if (e instanceof PageDamage || (e instanceof Unreadable && e.page) || isPageError(e)) throw new PageDamage();
}

function keyText(key: unknown): string {
  return key instanceof Uint8Array ? bytesToHex(key) : JSON.stringify(key);
}

/** `store[table].get(key)`, throwing Unreadable (table, key, why) when the file cannot give it. */
function read<V>(store: Store, table: TableName, key: unknown): V | undefined {
  const db = store[table] as unknown as Database<V, Key> | undefined;
  // lmdb-js leaves a table undefined when its entry in the main database is unreadable
  if (db === undefined) throw new Unreadable(`table ${table}: cannot be opened, its entry in LMDB's main database is damaged`, false);
  try {
    return db.get(key as Key);
  } catch (e) {
    throw new Unreadable(`table ${table} key ${keyText(key)}: ${readFailure(e)}`, isPageError(e));
  }
}

/** What a thrown error during a check says: Unreadable names itself; anything else is a value whose shape is wrong. */
function described(e: unknown): string {
  return e instanceof Unreadable ? e.message : readFailure(e);
}

/** What is wrong with the head the node would start from, or undefined when it can serve it. */
export function headProblem(store: Store): string | undefined {
  try {
    return headProblemOf(store);
  } catch (e) {
    return `head ${described(e)}`;
  }
}

function headProblemOf(store: Store): string | undefined {
  const head = read<Uint8Array>(store, 'meta', 'head');
  if (head === undefined) return undefined; // a new database
  const header = readHeader(store, head);
  if (typeof header === 'string') return `head block ${bytesToHex(head)}: ${header}`;
  // a genesis without accounts has the empty root, which is no node
  const problem = equalBytes(header.stateRoot, EMPTY_TRIE_ROOT) ? undefined : storedProblem(store, header.stateRoot);
  return problem && `head state ${problem}`;
}

function readHeader(store: Store, hash: Uint8Array): Header | string {
  const raw = read<Uint8Array>(store, 'headers', hash);
  if (raw === undefined) return 'header not found';
  try {
    return decodeHeader(raw);
  } catch {
    return 'header does not decode';
  }
}

/**
 * Why the trie node (or code: `what`, stored under `key`) with this hash is unusable, or undefined
 * when it is there and its bytes hash to it.
 */
function storedProblem(store: Store, hash: Uint8Array, what = 'trie node', key = hash): string | undefined {
  const raw = read<Uint8Array>(store, 'trie', key);
  if (raw === undefined) return `missing: ${what} ${bytesToHex(hash)} not found`;
  const actual = keccak256(raw);
  return equalBytes(actual, hash) ? undefined : `damaged: ${what} ${bytesToHex(hash)} holds bytes that hash to ${bytesToHex(actual)}`;
}

export interface CheckReport {
  /** what is wrong, in words (at most MAX_LISTED; `problemCount` has them all) */
  problems: string[];
  problemCount: number;
  blocks: number;
  transactions: number;
  trieNodes: number;
  accounts: number;
  contracts: number;
  slots: number;
}

/** The parts of the check, in order: each table read key by key, then the canonical blocks, then the head state. */
export const CHECK_PHASES: readonly string[] = [...TABLES.map((t) => `table ${t}`), 'blocks', 'state'];

export interface CheckHooks {
  /** a line now and then */
  progress(line: string): void;
  /** phases not to run (done by an earlier run that LMDB crashed later: src/db-command.ts) */
  skip?: ReadonlySet<string>;
  /** each phase as it begins and as it ends (with the report so far) */
  phase?(name: string, ended: CheckReport | undefined): void;
  /** each problem as it is found */
  found?(problem: string): void;
  /**
   * After a damaged page LMDB fails every later read of the process (MDB_BAD_TXN): stop there, so
   * that a new process checks the parts left (src/db-command.ts). Otherwise they are read anyway.
   */
  stopAtDamagedPage?: boolean;
}

/** Walks the whole stored chain and the head state. */
export function checkDatabase(store: Store, hooks: CheckHooks): CheckReport {
  const report: CheckReport = { problems: [], problemCount: 0, blocks: 0, transactions: 0, trieNodes: 0, accounts: 0, contracts: 0, slots: 0 };
  const problem = (p: string) => {
    if (report.problemCount++ < MAX_LISTED) report.problems.push(p);
    hooks.found?.(p);
  };
  let damagedPage = false;
  const run = (phase: string, fn: () => void) => {
    if (hooks.skip?.has(phase) || (damagedPage && hooks.stopAtDamagedPage)) return;
    hooks.phase?.(phase, undefined);
    try {
      fn();
    } catch (e) {
      if (!(e instanceof PageDamage)) throw e;
      damagedPage = true;
      problem(`${phase}: the rest of it was not read (after a damaged page LMDB fails every read of the process)`);
    }
    hooks.phase?.(phase, report);
  };
  {
    for (const table of TABLES) run(`table ${table}`, () => checkTable(store, table, problem));
    // read in each phase: a damaged page there ends only that phase's child (src/db-command.ts)
    run('blocks', () => {
      let head: ReturnType<typeof readHead>;
      try {
        head = readHead(store);
      } catch (e) {
        problem(`head block: ${described(e)}`);
        stopOnPage(e);
        return;
      }
      if (typeof head === 'string') problem(head);
      else checkBlocks(store, head.header.number, head.hash, report, problem, hooks.progress);
    });
    run('state', () => {
      let head: ReturnType<typeof readHead>;
      try {
        head = readHead(store);
      } catch (e) {
        stopOnPage(e);
        return; // told by the blocks
      }
      if (typeof head === 'string') return; // told by the blocks
      hooks.progress(`walking the head state ${bytesToHex(head.header.stateRoot)}`);
      checkState(store, head.header.stateRoot, report, problem, hooks.progress);
    });
    return report;
  }
}

/** The recorded head block, or what is wrong with it; throws Unreadable. */
function readHead(store: Store): { hash: Uint8Array; header: Header } | string {
  const hash = read<Uint8Array>(store, 'meta', 'head');
  if (hash === undefined) return 'no head block recorded: the database holds no chain';
  const header = readHeader(store, hash);
  return typeof header === 'string' ? `head block ${bytesToHex(hash)}: ${header}` : { hash, header };
}

/**
 * Reads every key of a table in order, so damage anywhere in the file is found, not only on the
 * paths the walk below takes (old state, side blocks, creators). A damaged page stops a cursor; the
 * same table read backwards from its end bounds the unreadable key range from above.
 */
function checkTable(store: Store, table: TableName, problem: (p: string) => void): void {
  {
    const db = store[table] as Database<unknown, Key> | undefined;
    if (db === undefined) {
      problem(`table ${table}: cannot be opened, its entry in LMDB's main database is damaged`);
      return;
    }
    const scan = (reverse: boolean): { count: number; last?: unknown; failure?: string; page?: boolean } => {
      let count = 0;
      let last: unknown;
      try {
        for (const key of db.getKeys({ reverse })) {
          last = key;
          count++;
        }
        return { count, last };
      } catch (e) {
        return { count, last, failure: readFailure(e), page: isPageError(e) };
      }
    };
    const forward = scan(false);
    if (forward.failure === undefined) return;
    // after a page error the process reads nothing more (PageDamage): the range stays open above
    const backward = forward.page ? { count: 0, failure: 'not read' } : scan(true);
    const from = forward.last === undefined ? 'its first key' : `key ${keyText(forward.last)}`;
    const to = backward.failure === undefined ? 'its end' : backward.last === undefined ? 'its last key' : `key ${keyText(backward.last)}`;
    const readable = backward.failure === undefined || forward.page ? '' : `, ${backward.count} after`;
    problem(`table ${table}: the keys after ${from} and before ${forward.page ? 'its end' : to}: ${forward.failure} (${forward.count} keys readable before the damage${readable})`);
    if (forward.page) throw new PageDamage();
  }
}

function checkBlocks(store: Store, headNumber: bigint, headHash: Uint8Array, report: CheckReport, problem: (p: string) => void, progress: (line: string) => void): void {
  let genesisHash: Uint8Array | undefined;
  try {
    genesisHash = read<Uint8Array>(store, 'meta', 'genesis');
    if (genesisHash === undefined) problem('no genesis block recorded');
  } catch (e) {
    problem(`genesis block: ${described(e)}`);
    stopOnPage(e);
  }
  let parent: Uint8Array | undefined;
  let reported = Date.now();
  for (let n = 0n; n <= headNumber; n++) {
    if (Date.now() - reported >= 1000) {
      reported = Date.now();
      progress(`checking blocks: ${n}/${headNumber}`);
    }
    const at = `block #${n}`;
    let hash: Uint8Array | undefined;
    try {
      hash = read<Uint8Array>(store, 'canon', Number(n));
    } catch (e) {
      problem(`${at}: ${described(e)}`);
      stopOnPage(e);
      parent = undefined;
      continue;
    }
    // the head's canonical entry is written with it; a missing one breaks lookups by number
    if (hash === undefined) {
      problem(`${at}: no canonical hash`);
      parent = undefined;
      continue;
    }
    const blockProblem = (p: string) => problem(`${at} ${bytesToHex(hash)}: ${p}`);
    try {
      parent = checkBlock(store, n, hash, parent, report, blockProblem);
    } catch (e) {
      blockProblem(described(e));
      stopOnPage(e);
      parent = hash;
    }
    if (n === 0n && genesisHash !== undefined && !equalBytes(hash, genesisHash)) problem(`${at}: is not the recorded genesis ${bytesToHex(genesisHash)}`);
    if (n === headNumber && !equalBytes(hash, headHash)) problem(`${at}: is not the recorded head ${bytesToHex(headHash)}`);
    report.blocks++;
  }
}

/** Checks one canonical block; returns its hash as the next block's parent (undefined when it is unusable). */
function checkBlock(store: Store, n: bigint, hash: Uint8Array, parent: Uint8Array | undefined, report: CheckReport, problem: (p: string) => void): Uint8Array | undefined {
  const header = readHeader(store, hash);
  if (typeof header === 'string') {
    problem(header);
    return undefined;
  }
  if (!equalBytes(headerHash(header), hash)) problem(`header hashes to ${bytesToHex(headerHash(header))}`);
  if (header.number !== n) problem(`header says number ${header.number}`);
  if (parent !== undefined && !equalBytes(header.parentHash, parent)) problem(`parent hash ${bytesToHex(header.parentHash)} is not block #${n - 1n} ${bytesToHex(parent)}`);
  const body = read<[Uint8Array[], Uint8Array[]]>(store, 'bodies', hash);
  if (body === undefined) {
    problem('body not found');
    return hash;
  }
  const txs = body[0];
  report.transactions += txs.length;
  if (!equalBytes(orderedTrieRoot(txs), header.transactionsRoot)) problem(`transactions do not match the header's transactionsRoot ${bytesToHex(header.transactionsRoot)}`);
  for (let i = 0; i < txs.length; i++) {
    const txHash = keccak256(txs[i]!);
    const loc = read<[number, number]>(store, 'txIndex', txHash);
    if (loc === undefined || BigInt(loc[0]) !== n || loc[1] !== i) problem(`transaction ${i} ${bytesToHex(txHash)}: ${loc ? `indexed at block #${loc[0]} index ${loc[1]}` : 'not in the transaction index'}`);
  }
  const receipts = read<StoredReceipt[]>(store, 'receipts', hash);
  if (receipts === undefined) problem('receipts not found');
  else if (receipts.length !== txs.length) problem(`${receipts.length} receipts for ${txs.length} transactions`);
  else if (!equalBytes(receiptsRoot(receipts), header.receiptsRoot)) problem(`receipts do not match the header's receiptsRoot ${bytesToHex(header.receiptsRoot)}`);
  return hash;
}

/** The receipts root as the executor computes it (src/exec/executor.ts). */
function receiptsRoot(receipts: StoredReceipt[]): Uint8Array {
  return orderedTrieRoot(receipts.map((r) => encodeReceipt({ status: r.status, cumulativeBlockGasUsed: BigInt(r.cumulativeGasUsed), bitvector: logsBloom(r.logs), logs: r.logs }, r.type as 0)));
}

/** A child reference inside a node: a 32-byte hash, or the child itself when its encoding is under 32 bytes. */
type NodeRef = Uint8Array | NodeRef[];

function checkState(store: Store, root: Uint8Array, report: CheckReport, problem: (p: string) => void, progress: (line: string) => void): void {
  let reported = Date.now();
  walkTrie(store, root, report, problem, (path, value) => {
    report.accounts++;
    if (Date.now() - reported >= 1000) {
      reported = Date.now();
      progress(`walking the head state: ${report.accounts} accounts, ${report.slots} slots, ${report.trieNodes} trie nodes`);
    }
    let fields: Uint8Array[] | undefined;
    try {
      fields = RLP.decode(value) as Uint8Array[];
    } catch {
      fields = undefined;
    }
    if (!Array.isArray(fields) || fields.length !== 4) {
      problem(`account ${path}: does not decode`);
      return;
    }
    const [, , storageRoot, codeHash] = fields as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    walkTrie(store, storageRoot, report, (p) => problem(`storage of account ${path}: ${p}`), () => report.slots++);
    if (!equalBytes(codeHash, KECCAK256_NULL)) {
      report.contracts++;
      const p = storedProblem(store, codeHash, 'code', Buffer.concat([Buffer.from(CODE_KEY_PREFIX, 'hex'), codeHash]));
      if (p) problem(`code of account ${path}: ${p}`);
    }
  });
}

/**
 * Visits every node of the trie under `root` (depth first), verifying each stored node's hash;
 * `onValue` gets each value with its key (0x-hex: the hashed address or slot).
 */
function walkTrie(store: Store, root: Uint8Array, report: CheckReport, problem: (p: string) => void, onValue: (key: string, value: Uint8Array) => void): void {
  const visit = (ref: NodeRef, path: number[]): void => {
    let node: NodeRef;
    if (ref instanceof Uint8Array) {
      if (ref.length === 0) return;
      try {
        const p = storedProblem(store, ref);
        if (p) {
          problem(`${p} (path 0x${nibblesHex(path)})`);
          return;
        }
        report.trieNodes++;
        node = RLP.decode(read<Uint8Array>(store, 'trie', ref)!) as NodeRef;
      } catch (e) {
        problem(`trie node ${bytesToHex(ref)} (path 0x${nibblesHex(path)}): ${described(e)}`);
        stopOnPage(e);
        return;
      }
    } else {
      node = ref;
    }
    if (Array.isArray(node) && node.length === 17) {
      for (let i = 0; i < 16; i++) visit(node[i]!, [...path, i]);
      const value = node[16];
      if (value instanceof Uint8Array && value.length > 0) onValue('0x' + nibblesHex(path), value);
      return;
    }
    if (Array.isArray(node) && node.length === 2 && node[0] instanceof Uint8Array && node[0].length > 0) {
      const [compact, child] = node as [Uint8Array, NodeRef];
      const flag = compact[0]! >> 4;
      const nibbles = [...(flag & 1 ? [compact[0]! & 15] : [])];
      for (let i = 1; i < compact.length; i++) nibbles.push(compact[i]! >> 4, compact[i]! & 15);
      if (flag >= 2) onValue('0x' + nibblesHex([...path, ...nibbles]), child as Uint8Array);
      else visit(child, [...path, ...nibbles]);
      return;
    }
    problem(`trie node at path 0x${nibblesHex(path)} is not a branch, extension or leaf`);
  };
  if (!equalBytes(root, EMPTY_TRIE_ROOT)) visit(root, []);
}

function nibblesHex(path: number[]): string {
  return path.map((n) => n.toString(16)).join('');
}
