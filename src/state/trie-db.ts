// The DB that @ethereumjs/mpt writes trie nodes and code into. Writes stay in memory until the
// block that produced them is committed (drainInto runs inside the block's LMDB transaction), so
// a block is all-or-nothing on disk. Reads fall through to LMDB, which is synchronous.
import type { BatchDBOp, DB } from '@ethereumjs/util';
import type { Database } from 'lmdb';

export class OverlayTrieDB implements DB<string, string | Uint8Array> {
  private pending = new Map<string, Uint8Array>();

  constructor(private readonly disk: Database<Uint8Array, Uint8Array>) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.getSync(key);
  }

  getSync(key: string): Uint8Array | undefined {
    const p = this.pending.get(key);
    if (p !== undefined) return p;
    return this.disk.get(Buffer.from(key, 'hex'));
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

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Writes the pending nodes; call inside the block's LMDB write transaction. */
  drainInto(): void {
    for (const [k, v] of this.pending) this.disk.put(Buffer.from(k, 'hex'), v);
    this.pending = new Map();
  }

  /** Forget pending writes of a block that was not committed. */
  discard(): void {
    this.pending = new Map();
  }
}

function toBytes(v: string | Uint8Array): Uint8Array {
  return typeof v === 'string' ? Buffer.from(v, 'hex') : v;
}
