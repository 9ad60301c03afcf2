// In-process events the core produces once and every consumer (filters, subscriptions, p2p) shares.
import type { BlockRecord, StoredReceipt } from './types.ts';
import type { PooledTx } from '../tx/pooled-tx.ts';

export interface NewBlockEvent {
  block: BlockRecord;
  receipts: StoredReceipt[];
}

type Listener<T> = (event: T) => void;

export class ChainEvents {
  private readonly blockListeners: Listener<NewBlockEvent>[] = [];
  private readonly txListeners: Listener<PooledTx>[] = [];
  private readonly submittedListeners: Listener<PooledTx>[] = [];

  onBlock(fn: Listener<NewBlockEvent>): () => void {
    return add(this.blockListeners, fn);
  }

  onPendingTx(fn: Listener<PooledTx>): () => void {
    return add(this.txListeners, fn);
  }

  /** Transactions admitted through this node's RPC (or replayed from its journal): what it sends to peers. */
  onSubmittedTx(fn: Listener<PooledTx>): () => void {
    return add(this.submittedListeners, fn);
  }

  emitSubmittedTx(ptx: PooledTx): void {
    for (const fn of this.submittedListeners) fn(ptx);
  }

  emitBlock(e: NewBlockEvent): void {
    for (const fn of this.blockListeners) fn(e);
  }

  emitPendingTx(ptx: PooledTx): void {
    for (const fn of this.txListeners) fn(ptx);
  }
}

function add<T>(list: Listener<T>[], fn: Listener<T>): () => void {
  list.push(fn);
  return () => {
    const i = list.indexOf(fn);
    if (i >= 0) list.splice(i, 1);
  };
}
