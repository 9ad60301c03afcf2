// In-process events the core produces once and every consumer (filters, subscriptions, p2p) shares.
import type { BlockRecord, StoredReceipt } from './chain/types.ts';
import type { PooledTx } from './txpool/pooled-tx.ts';

export interface NewBlockEvent {
  block: BlockRecord;
  receipts: StoredReceipt[];
}

type Listener<T> = (event: T) => void;

export class ChainEvents {
  private readonly blockListeners: Listener<NewBlockEvent>[] = [];
  private readonly txListeners: Listener<PooledTx>[] = [];

  onBlock(fn: Listener<NewBlockEvent>): () => void {
    return add(this.blockListeners, fn);
  }

  onPendingTx(fn: Listener<PooledTx>): () => void {
    return add(this.txListeners, fn);
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
