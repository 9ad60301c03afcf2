// Integrity of the stored chain, read straight from LMDB: the quick check of the head every start
// makes (its header and the root node of its state, hash verified), and the full walk of
// `chain-node db check` — every canonical header (hash, number, parent link), body and receipts
// (against the header's roots), the transaction index, and the whole head state: every node of the
// account trie and of each storage trie, and every contract's code, each verified against the hash
// it is stored under. Reads only; nothing here writes.
import { RLP } from '@ethereumjs/rlp';
import { encodeReceipt } from '@ethereumjs/vm';
import { KECCAK256_NULL } from '@ethereumjs/util';
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

/** What is wrong with the head the node would start from, or undefined when it can serve it. */
export function headProblem(store: Store): string | undefined {
  const head = store.meta.get('head') as Uint8Array | undefined;
  if (head === undefined) return undefined; // a new database
  const read = readHeader(store, head);
  if (typeof read === 'string') return `head block ${bytesToHex(head)}: ${read}`;
  // a genesis without accounts has the empty root, which is no node
  const problem = equalBytes(read.stateRoot, EMPTY_TRIE_ROOT) ? undefined : storedProblem(store, read.stateRoot);
  return problem && `head state ${problem}`;
}

function readHeader(store: Store, hash: Uint8Array): Header | string {
  const raw = store.headers.get(hash);
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
  const raw = store.trie.get(key);
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

/** Walks the whole stored chain and the head state; `progress` gets a line now and then. */
export function checkDatabase(store: Store, progress: (line: string) => void): CheckReport {
  const report: CheckReport = { problems: [], problemCount: 0, blocks: 0, transactions: 0, trieNodes: 0, accounts: 0, contracts: 0, slots: 0 };
  const problem = (p: string) => {
    if (report.problemCount++ < MAX_LISTED) report.problems.push(p);
  };
  const headHash = store.meta.get('head') as Uint8Array | undefined;
  if (headHash === undefined) {
    problem('no head block recorded: the database holds no chain');
    return report;
  }
  const head = readHeader(store, headHash);
  if (typeof head === 'string') {
    problem(`head block ${bytesToHex(headHash)}: ${head}`);
    return report;
  }
  checkBlocks(store, head.number, headHash, report, problem, progress);
  progress(`blocks checked: ${report.blocks} (${report.transactions} transactions); walking the head state ${bytesToHex(head.stateRoot)}`);
  checkState(store, head.stateRoot, report, problem, progress);
  return report;
}

function checkBlocks(store: Store, headNumber: bigint, headHash: Uint8Array, report: CheckReport, problem: (p: string) => void, progress: (line: string) => void): void {
  const genesisHash = store.meta.get('genesis') as Uint8Array | undefined;
  if (genesisHash === undefined) problem('no genesis block recorded');
  let parent: Uint8Array | undefined;
  let reported = Date.now();
  for (let n = 0n; n <= headNumber; n++) {
    if (Date.now() - reported >= 1000) {
      reported = Date.now();
      progress(`checking blocks: ${n}/${headNumber}`);
    }
    const at = `block #${n}`;
    const hash = store.canon.get(Number(n));
    // the head's canonical entry is written with it; a missing one breaks lookups by number
    if (hash === undefined) {
      problem(`${at}: no canonical hash`);
      parent = undefined;
      continue;
    }
    parent = checkBlock(store, n, hash, parent, report, (p) => problem(`${at} ${bytesToHex(hash)}: ${p}`));
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
  const body = store.bodies.get(hash) as unknown as [Uint8Array[], Uint8Array[]] | undefined;
  if (body === undefined) {
    problem('body not found');
    return hash;
  }
  const txs = body[0];
  report.transactions += txs.length;
  if (!equalBytes(orderedTrieRoot(txs), header.transactionsRoot)) problem(`transactions do not match the header's transactionsRoot ${bytesToHex(header.transactionsRoot)}`);
  for (let i = 0; i < txs.length; i++) {
    const txHash = keccak256(txs[i]!);
    const loc = store.txIndex.get(txHash);
    if (loc === undefined || BigInt(loc[0]) !== n || loc[1] !== i) problem(`transaction ${i} ${bytesToHex(txHash)}: ${loc ? `indexed at block #${loc[0]} index ${loc[1]}` : 'not in the transaction index'}`);
  }
  const receipts = store.receipts.get(hash) as unknown as StoredReceipt[] | undefined;
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
    const fields = RLP.decode(value) as Uint8Array[];
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
      const p = storedProblem(store, ref);
      if (p) {
        problem(`${p} (path 0x${nibblesHex(path)})`);
        return;
      }
      report.trieNodes++;
      node = RLP.decode(store.trie.get(ref)!) as NodeRef;
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
