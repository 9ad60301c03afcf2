// Virtual time for the simulator (I15): one queue of events ordered by time, then by when they
// were scheduled, so a seed replays exactly. After each event the microtasks it started (the
// engine's serial queue, the stand-in chain's promises) run to the end before the next event: an
// event is one step, and the checks run after every step.
import type { IrisClock } from '../consensus/iris/ports.ts';

/** Virtual ms 0 is this wall-clock instant (block timestamps need a plausible epoch). */
export const SIM_EPOCH_MS = 1_700_000_000_000;

export interface SimEvent {
  at: number;
  order: number;
  fn: () => void;
  cancelled: boolean;
}

export class Scheduler {
  now = 0;
  steps = 0;
  private heap: SimEvent[] = [];
  private order = 0;

  at(time: number, fn: () => void): SimEvent {
    const e: SimEvent = { at: Math.max(time, this.now), order: this.order++, fn, cancelled: false };
    this.push(e);
    return e;
  }

  after(ms: number, fn: () => void): SimEvent {
    return this.at(this.now + Math.max(0, ms), fn);
  }

  get pending(): number {
    return this.heap.length;
  }

  /** Runs events until `stop` says so after a step, or nothing is left before `endMs`. */
  async run(endMs: number, afterStep: () => boolean): Promise<void> {
    while (this.heap.length > 0) {
      const e = this.pop();
      if (e.cancelled) continue;
      if (e.at > endMs) {
        this.push(e);
        this.now = endMs;
        return;
      }
      this.now = e.at;
      e.fn();
      // every promise the event started settles before the next one (none waits on real I/O)
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.steps++;
      if (afterStep()) return;
    }
  }

  private less(a: SimEvent, b: SimEvent): boolean {
    return a.at < b.at || (a.at === b.at && a.order < b.order);
  }

  private push(e: SimEvent): void {
    const h = this.heap;
    h.push(e);
    for (let i = h.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): SimEvent {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

/** A node's clock: virtual time plus its skew; its timers are the scheduler's events. */
export function nodeClock(s: Scheduler, skewMs: () => number): IrisClock {
  return {
    now: () => SIM_EPOCH_MS + s.now + skewMs(),
    setTimer: (fn, ms) => s.after(ms, fn),
    clearTimer: (timer) => {
      if (timer) (timer as SimEvent).cancelled = true;
    },
  };
}
