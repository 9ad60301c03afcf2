// A counter of head moves shared between the main thread and the RPC serving threads (one Int32 in
// a SharedArrayBuffer). The main thread bumps it synchronously as the chain's head moves; a serving
// thread keeps an answer of a head-cached method (generated/head-cached.ts) only while the counter
// still reads what it read before asking. A wrap-around after 2^32 moves is harmless: an answer is
// only kept for the generation it was made in, and the cache is dropped whenever the value changes.
export class HeadGeneration {
  readonly cell: Int32Array;

  constructor(cell?: Int32Array) {
    this.cell = cell ?? new Int32Array(new SharedArrayBuffer(4));
  }

  get current(): number {
    return Atomics.load(this.cell, 0);
  }

  bump(): void {
    Atomics.add(this.cell, 0, 1);
  }
}
