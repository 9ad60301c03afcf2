// The remote (non-local) pool transactions ordered by how willing we are to evict them: cheapest
// first, among equal prices the highest nonce first (dropping it opens no gap below other
// transactions), then the latest arrival. A binary min-heap that knows each entry's position, so
// push, remove and peek are O(log n) / O(1) — what admission into a full pool needs.
import type { PooledTx } from '../tx/pooled-tx.ts';

/** true when `a` should be evicted before `b` */
function evictsBefore(a: PooledTx, b: PooledTx): boolean {
  if (a.gasPrice !== b.gasPrice) return a.gasPrice < b.gasPrice;
  if (a.nonce !== b.nonce) return a.nonce > b.nonce;
  return a.arrivedAt > b.arrivedAt;
}

export class PriceHeap {
  private readonly items: PooledTx[] = [];
  private readonly position = new Map<PooledTx, number>();

  get size(): number {
    return this.items.length;
  }

  has(ptx: PooledTx): boolean {
    return this.position.has(ptx);
  }

  /** The transaction to evict first. */
  peek(): PooledTx | undefined {
    return this.items[0];
  }

  push(ptx: PooledTx): void {
    if (this.position.has(ptx)) return;
    this.items.push(ptx);
    this.position.set(ptx, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  remove(ptx: PooledTx): void {
    const i = this.position.get(ptx);
    if (i === undefined) return;
    this.position.delete(ptx);
    const last = this.items.pop()!;
    if (i === this.items.length) return;
    this.items[i] = last;
    this.position.set(last, i);
    if (!this.up(i)) this.down(i);
  }

  private up(i: number): boolean {
    const { items } = this;
    const x = items[i]!;
    const start = i;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!evictsBefore(x, items[p]!)) break;
      this.place(items[p]!, i);
      i = p;
    }
    this.place(x, i);
    return i !== start;
  }

  private down(i: number): void {
    const { items } = this;
    const n = items.length;
    const x = items[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && evictsBefore(items[r]!, items[l]!) ? r : l;
      if (!evictsBefore(items[c]!, x)) break;
      this.place(items[c]!, i);
      i = c;
    }
    this.place(x, i);
  }

  private place(ptx: PooledTx, i: number): void {
    this.items[i] = ptx;
    this.position.set(ptx, i);
  }
}
