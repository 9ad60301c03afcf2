// The DB that @ethereumjs/mpt writes trie nodes and code into. Writes stay in memory until the
// block that produced them commits, in that block's LMDB write transaction, so a block is
// all-or-nothing on disk. Executed blocks whose commit is still in flight stay readable from memory
// (the sealer executes block N+1 while block N commits). Reads fall through to LMDB (synchronous).
// A node the trie asks for by hash and LMDB lacks is damage, not absence: @ethereumjs/mpt reads
// "Missing node in DB" as "no such key" and would answer balance 0 for a funded account, so this
// DB throws MissingTrieNodeError instead (the one hash that is legitimately absent is the empty
// trie's root: mpt looks it up before every walk of an empty trie).
import { KECCAK256_RLP_S, type BatchDBOp, type DB } from '@ethereumjs/util';
import type { Database } from 'lmdb';
import type { NodeStore } from './trie-batch.ts';

export type TrieGeneration = Map<string, Uint8Array>;

/** keccak256(rlp("")): the root of every empty trie, which has no node (a key as mpt asks: unprefixed hex) */
const EMPTY_TRIE_ROOT = KECCAK256_RLP_S.slice(2);
/** @ethereumjs/statemanager stores code under "c" + code hash (its default prefixCodeHashes) */
export const CODE_KEY_PREFIX = '63';

/** A trie node or contract code that the state references by hash is not in the database. */
export class MissingTrieNodeError extends Error {
  constructor(readonly key: string) {
    // geth's wording for a trie node, which operators search for
    super(key.length === 66 && key.startsWith(CODE_KEY_PREFIX) ? `missing contract code 0x${key.slice(2)}` : `missing trie node 0x${key}`);
    this.name = 'MissingTrieNodeError';
  }
}

export class OverlayTrieDB implements DB<string, string | Uint8Array> {
  /** writes of the block being executed */
  private pending: TrieGeneration = new Map();
  /** writes of executed blocks whose commit is still in flight (oldest first) */
  private sealed: TrieGeneration[] = [];

  /** the same nodes by hash, synchronously, for the batched trie update (src/state/trie-batch.ts) */
  readonly nodes: NodeStore = {
    get: (hash) => this.getSync(unprefixedHex(hash))!,
    put: (hash, encoded) => void this.pending.set(unprefixedHex(hash), encoded),
  };

  constructor(private readonly disk: Database<Uint8Array, Uint8Array>) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.getSync(key);
  }

  getSync(key: string): Uint8Array | undefined {
    const p = this.pending.get(key);
    if (p !== undefined) return p;
    for (let i = this.sealed.length - 1; i >= 0; i--) {
      const v = this.sealed[i]!.get(key);
      if (v !== undefined) return v;
    }
    const v = this.disk.get(Buffer.from(key, 'hex'));
    if (v === undefined && key !== EMPTY_TRIE_ROOT) throw new MissingTrieNodeError(key);
    return v;
  }

  async put(key: string, value: string | Uint8Array): Promise<void> {
    this.pending.set(key, toBytes(value));
  }

  // Content-addressed nodes are never deleted (archive node; pruning is off in every trie).
  async del(): Promise<void> {}

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') this.pending.set(op.key, toBytes(op.value));
  }

  shallowCopy(): OverlayTrieDB {
    return this;
  }

  async open(): Promise<void> {}

  /** Closes the executed block's writes into a generation; the next block writes a fresh one. */
  seal(): TrieGeneration {
    const g = this.pending;
    this.sealed.push(g);
    this.pending = new Map();
    return g;
  }

  /** Writes a generation; call inside the block's LMDB write transaction. */
  write(g: TrieGeneration): void {
    for (const [k, v] of g) this.disk.put(Buffer.from(k, 'hex'), v);
  }

  /** The generation's transaction committed: LMDB serves its nodes from now on. */
  committed(g: TrieGeneration): void {
    const i = this.sealed.indexOf(g);
    if (i >= 0) this.sealed.splice(i, 1);
  }

  /** Forget the writes of a block that was executed but will not be committed. */
  discard(): void {
    this.pending = new Map();
  }
}

function unprefixedHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

function toBytes(v: string | Uint8Array): Uint8Array {
  return typeof v === 'string' ? Buffer.from(v, 'hex') : v;
}
