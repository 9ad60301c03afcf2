// The in-process network between simulated validators: every message is an event at its arrival
// time, drawn from the seed's delay profile; while the faults last, messages are lost, duplicated
// and reordered, and partitions cut groups apart. A validator that is down receives nothing.
import type { FaultPlan } from './faults.ts';
import type { Scheduler } from './scheduler.ts';

export interface Traffic {
  messages: number;
  bytes: number;
}

export class SimNetwork {
  /** consensus messages and bytes each validator sent (block transfers are the sync's, not counted) */
  readonly sent: Traffic[];
  private readonly receivers: (((bytes: Uint8Array) => void) | undefined)[];
  /** when the last message of each link arrives (FIFO links) */
  private readonly lastArrival: Float64Array;
  /** until when each validator's one thread is busy checking the messages that came before */
  private readonly busyUntil: Float64Array;

  /** `receiveCostMs`: what checking one consensus message costs its receiver (0: free) */
  constructor(private readonly s: Scheduler, private readonly random: () => number, private readonly plan: FaultPlan, private readonly n: number, private readonly receiveCostMs = 0) {
    this.busyUntil = new Float64Array(n);
    this.sent = Array.from({ length: n }, () => ({ messages: 0, bytes: 0 }));
    this.receivers = new Array(n).fill(undefined);
    this.lastArrival = new Float64Array(n * n);
  }

  /** Where messages to validator `i` go while it runs (undefined: it is down). */
  attach(i: number, receive: ((bytes: Uint8Array) => void) | undefined): void {
    this.receivers[i] = receive;
  }

  private faulty(): boolean {
    return this.s.now < this.plan.endMs;
  }

  /** Whether i and j are on the same side of every partition now. */
  reachable(i: number, j: number): boolean {
    for (const p of this.plan.partitions) {
      if (this.s.now < p.atMs || this.s.now >= p.healMs) continue;
      if (p.groups.some((g) => g.includes(i)) && !p.groups.some((g) => g.includes(i) && g.includes(j))) return false;
    }
    return true;
  }

  /** Sends a consensus message from i to j (counted as i's traffic). */
  send(i: number, j: number, bytes: Uint8Array): void {
    this.sent[i]!.messages++;
    this.sent[i]!.bytes += bytes.length;
    if (this.receiveCostMs === 0) return this.carry(i, j, () => this.receivers[j]?.(bytes));
    this.carry(i, j, () => {
      const done = Math.max(this.s.now, this.busyUntil[j]!) + this.receiveCostMs;
      this.busyUntil[j] = done;
      this.s.at(done, () => this.receivers[j]?.(bytes));
    });
  }

  /** Carries anything else from i to j (the sync's blocks) through the same faults: `arrive` runs at j if it gets there. */
  carry(i: number, j: number, arrive: () => void): void {
    if (!this.reachable(i, j)) return;
    const faulty = this.faulty();
    if (faulty && this.random() < this.plan.loss) return;
    this.deliver(i, j, arrive, faulty);
    if (faulty && this.random() < this.plan.duplicate) this.deliver(i, j, arrive, faulty);
  }

  /** Whether validator i runs. */
  up(i: number): boolean {
    return this.receivers[i] !== undefined;
  }

  private deliver(i: number, j: number, arrive: () => void, faulty: boolean): void {
    const p = this.plan.profile;
    let delay = p.minMs;
    if (this.plan.delay) {
      delay += (p.maxMs - p.minMs) * this.random();
      if (this.random() < p.tail) delay *= p.tailFactor;
    }
    let at = this.s.now + delay;
    const link = i * this.n + j;
    if (!(faulty && this.plan.reorder)) at = Math.max(at, this.lastArrival[link]!);
    this.lastArrival[link] = at;
    // a partition also cuts what was on the wire when it began
    this.s.at(at, () => this.up(j) && this.reachable(i, j) && arrive());
  }
}
