// How much slower this machine runs right now than when it is quiet, measured in the test's own
// process (T2): a bound on how long something may take is its quiet figure times this factor, so
// a test stays as strict as before on a quiet machine and holds on a busy one (a shared VM, a
// laptop compiling). The failures such bounds exist to catch (a call that ignores its deadline, a
// loop that holds the event loop) are several times their bound and slow down the same way.

/** One run of the reference work on the quiet 2-core dev VM (median 6.2–6.9 ms at load 0.9; 11–15 ms beside `stress-ng --cpu 2`). */
const QUIET_MS = 6.5;

function reference(): number {
  // allocation, property access, strings and arithmetic: the mix of a request's path
  let acc = 0;
  const list: { i: number; s: string; v: number }[] = [];
  for (let i = 0; i < 250_000; i++) {
    const o = { i, s: 'k' + (i % 97), v: i * 1.5 };
    list.push(o);
    acc = (acc + o.s.length * o.v) % 1_000_003;
    if (list.length > 512) list.length = 0;
  }
  return acc + JSON.stringify(list.slice(0, 64)).length;
}

/** The median of seven runs of the reference work (a macrotask turn between them) over its quiet time; at least 1. */
export async function slowdown(): Promise<number> {
  reference(); // compiled before it is timed
  const runs: number[] = [];
  for (let i = 0; i < 7; i++) {
    await new Promise((r) => setImmediate(r));
    const t0 = performance.now();
    reference();
    runs.push(performance.now() - t0);
  }
  runs.sort((a, b) => a - b);
  return Math.max(1, runs[3]! / QUIET_MS);
}

/** `quietMs` at this machine's pace now, measured before the work (`before`) and again now; the larger counts. */
export async function paced(quietMs: number, before = 1): Promise<number> {
  return quietMs * Math.max(before, await slowdown());
}
