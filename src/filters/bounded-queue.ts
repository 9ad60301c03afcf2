// A FIFO that holds at most `cap` items: pushing onto a full queue overwrites the oldest. Used
// for a filter's items between polls, so a filter nobody polls costs at most `cap` slots.

export class BoundedQueue<T> {
  private items: T[] = [];
  /** index of the oldest item once the queue has wrapped (items.length === cap) */
  private head = 0;

  constructor(private readonly cap: number) {}

  get length(): number {
    return this.items.length;
  }

  /** Appends; returns true when the oldest item was dropped to make room. */
  push(item: T): boolean {
    if (this.items.length < this.cap) {
      this.items.push(item);
      return false;
    }
    this.items[this.head] = item;
    this.head = (this.head + 1) % this.cap;
    return true;
  }

  /** Everything held, oldest first; the queue is empty afterwards. */
  drain(): T[] {
    const out = this.head === 0 ? this.items : [...this.items.slice(this.head), ...this.items.slice(0, this.head)];
    this.items = [];
    this.head = 0;
    return out;
  }
}
