// The canonical chain on LMDB: lookups by number and hash, transaction locations, receipts, and
// the one-transaction block commit. Reads are synchronous (LMDB), with a small decoded-header cache.
import type { Store } from '../store/lmdb-store.ts';
import type { OverlayTrieDB, TrieGeneration } from '../state/trie-db.ts';
import { decodeHeader, encodeHeader, headerHash, type Header } from './header.ts';
import type { BlockRecord, StoredReceipt } from './types.ts';
import { keccak256 } from '../crypto/keccak.ts';

export interface TxLocation {
  blockHash: Uint8Array;
  blockNumber: bigint;
  index: number;
}

/** A block executed and sealed, with what its commit writes besides it. */
export interface CommittableBlock {
  block: BlockRecord;
  receipts: StoredReceipt[];
  trieNodes: TrieGeneration;
  creators: [Uint8Array, Uint8Array][];
}

export interface HeadInfo {
  hash: Uint8Array;
  header: Header;
}

/** decoded headers kept (~2 KiB each): eth_feeHistory's 1,024 blocks; more only took a 1 s chain 68 minutes to fill (the soak) */
const HEADER_CACHE = 1024;
const RECEIPT_CACHE = 64;

export class Chain {
  private headerCache = new Map<string, Header>();
  private receiptCache = new Map<string, StoredReceipt[]>();
  private _head!: HeadInfo;
  private _genesis!: HeadInfo;
  private readonly headMoved: (() => void)[] = [];

  constructor(readonly store: Store) {
    const headHash = store.meta.get('head') as Uint8Array | undefined;
    const genesisHash = store.meta.get('genesis') as Uint8Array | undefined;
    if (headHash && genesisHash) {
      this._head = { hash: headHash, header: this.headerByHash(headHash)! };
      this._genesis = { hash: genesisHash, header: this.headerByHash(genesisHash)! };
    }
  }

  /**
   * `fn` runs synchronously each time the head moves, before anything can read the new head: the
   * RPC serving threads' answer caches (src/rpc/head-generation.ts) must never outlive their head.
   */
  onHeadMoved(fn: () => void): void {
    this.headMoved.push(fn);
  }

  get initialized(): boolean {
    return this._head !== undefined;
  }

  get head(): HeadInfo {
    return this._head;
  }

  get genesis(): HeadInfo {
    return this._genesis;
  }

  get headNumber(): bigint {
    return this._head.header.number;
  }

  headerByHash(hash: Uint8Array): Header | undefined {
    const key = Buffer.from(hash).toString('hex');
    const cached = this.headerCache.get(key);
    if (cached) return cached;
    const raw = this.store.headers.get(hash);
    if (!raw) return undefined;
    const header = decodeHeader(raw);
    if (this.headerCache.size >= HEADER_CACHE) this.headerCache.delete(this.headerCache.keys().next().value!);
    this.headerCache.set(key, header);
    return header;
  }

  hashByNumber(n: bigint): Uint8Array | undefined {
    if (n < 0n || n > this.headNumber) return undefined;
    if (n === this.headNumber) return this._head.hash;
    return this.store.canon.get(Number(n));
  }

  headerByNumber(n: bigint): Header | undefined {
    // every "latest" query lands here: the head is held decoded, no LMDB read or hash-keyed lookup
    if (n === this._head?.header.number) return this._head.header;
    const h = this.hashByNumber(n);
    return h && this.headerByHash(h);
  }

  /** Whether this hash is on the canonical chain (single-validator chains never fork; BFT finality keeps it so). */
  isCanonical(hash: Uint8Array, header: Header): boolean {
    const c = this.hashByNumber(header.number);
    return c !== undefined && Buffer.compare(c, hash) === 0;
  }

  body(hash: Uint8Array): { txs: Uint8Array[]; senders: Uint8Array[] } | undefined {
    const b = this.store.bodies.get(hash) as unknown as [Uint8Array[], Uint8Array[]] | undefined;
    return b && { txs: b[0], senders: b[1] };
  }

  block(hash: Uint8Array): BlockRecord | undefined {
    const header = this.headerByHash(hash);
    const body = header && this.body(hash);
    return header && body ? { hash, header, ...body } : undefined;
  }

  /** Decoded receipts of a block; recent blocks are cached (a receipt lookup decodes the whole block's list). */
  receipts(blockHash: Uint8Array): StoredReceipt[] | undefined {
    const key = Buffer.from(blockHash).toString('hex');
    const cached = this.receiptCache.get(key);
    if (cached) return cached;
    const r = this.store.receipts.get(blockHash) as unknown as StoredReceipt[] | undefined;
    if (r) {
      if (this.receiptCache.size >= RECEIPT_CACHE) this.receiptCache.delete(this.receiptCache.keys().next().value!);
      this.receiptCache.set(key, r);
    }
    return r;
  }

  txLocation(txHash: Uint8Array): TxLocation | undefined {
    const loc = this.store.txIndex.get(txHash);
    if (!loc) return undefined;
    const blockHash = this.hashByNumber(BigInt(loc[0]));
    return blockHash && { blockHash, blockNumber: BigInt(loc[0]), index: loc[1] };
  }

  /**
   * Commits a sealed block with its receipts, indexes, creators and the state trie nodes it wrote,
   * all in one LMDB write transaction, then moves the head. A block of up to SYNC_COMMIT_TXS
   * transactions commits synchronously: it is a short write, and the block's receipts and
   * notifications wait for it (the async path's hops between the event loop and LMDB's write thread
   * made a one-transaction block's commit 2.9–3.8 ms instead of 1.6–2.0 ms,
   * A16). A larger block commits on the write thread, so the event loop keeps serving (and the
   * sealer executes the next block) meanwhile. Callers never overlap two commits.
   */
  commitBlock(block: BlockRecord, receipts: StoredReceipt[], trieDb: OverlayTrieDB, trieNodes: TrieGeneration, creators: [Uint8Array, Uint8Array][]): Promise<void> {
    return this.commitBlocks([{ block, receipts, trieNodes, creators }], trieDb);
  }

  /**
   * Commits consecutive blocks in one LMDB write transaction (one sync of the disk for all: block
   * import commits what executed while the previous commit ran); the head moves once, to the last.
   * `onWriteThread`: always commit on LMDB's write thread (else commitBlock's rule by transaction
   * count) — the importer executes the next blocks meanwhile, which makes the next group larger.
   */
  async commitBlocks(blocks: readonly CommittableBlock[], trieDb: OverlayTrieDB, onWriteThread = false): Promise<void> {
    const { store } = this;
    const write = () => {
      for (const b of blocks) {
        trieDb.write(b.trieNodes);
        this.writeBlock(b.block, b.receipts, b.creators);
      }
      store.meta.put('head', blocks.at(-1)!.block.hash);
    };
    const txs = blocks.reduce((n, b) => n + b.block.txs.length, 0);
    if (txs <= SYNC_COMMIT_TXS && !onWriteThread) store.env.transactionSync(write);
    else await store.env.transaction(write);
    for (const b of blocks) trieDb.committed(b.trieNodes);
    const last = blocks.at(-1)!.block;
    this._head = { hash: last.hash, header: last.header };
    if (last.header.number === 0n) this._genesis = this._head;
    for (const fn of this.headMoved) fn();
  }

  /** A block's records and indexes (inside a write transaction). */
  private writeBlock(block: BlockRecord, receipts: StoredReceipt[], creators: [Uint8Array, Uint8Array][]): void {
    const { store } = this;
    const number = Number(block.header.number);
    store.headers.put(block.hash, encodeHeader(block.header));
    store.bodies.put(block.hash, [block.txs, block.senders] as never);
    store.receipts.put(block.hash, receipts as never);
    store.canon.put(number, block.hash);
    for (let i = 0; i < block.txs.length; i++) store.txIndex.put(block.txHashes?.[i] ?? keccak256(block.txs[i]!), [number, i]);
    for (const [address, creator] of creators) store.creators.put(address, creator);
    if (number === 0) store.meta.put('genesis', block.hash);
  }

  /**
   * A state sync's blocks (N16): stored with their indexes like committed ones, above the head,
   * which does not move (nothing reads above it), in one write transaction with `also`.
   */
  async storeAhead(blocks: readonly { block: BlockRecord; receipts: StoredReceipt[]; creators: [Uint8Array, Uint8Array][] }[], also: () => void): Promise<void> {
    await this.store.env.transaction(() => {
      for (const b of blocks) this.writeBlock(b.block, b.receipts, b.creators);
      also();
    });
  }

  /** The head moves to a block stored ahead (a state sync's pivot, once its state is stored), with `also` in the same transaction. */
  async adoptHead(hash: Uint8Array, also: () => void): Promise<void> {
    const header = this.headerByHash(hash);
    if (!header) throw new Error(`no stored header ${Buffer.from(hash).toString('hex')}`);
    await this.store.env.transaction(() => {
      this.store.meta.put('head', hash);
      also();
    });
    this._head = { hash, header };
    for (const fn of this.headMoved) fn();
  }

  /** The canonical hash at `n` whether or not it is above the head (a state sync's stored blocks). */
  storedHashAt(n: bigint): Uint8Array | undefined {
    return n === this.headNumber ? this._head.hash : this.store.canon.get(Number(n));
  }

  creatorOf(address: Uint8Array): Uint8Array | undefined {
    return this.store.creators.get(address);
  }
}

/** Blocks with at most this many transactions commit synchronously (Chain.commitBlock). */
export const SYNC_COMMIT_TXS = 16;

export { headerHash };
