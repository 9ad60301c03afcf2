// How the simulator reports a failing seed: what broke, where, under which faults, and the command
// that replays it exactly.
import type { SeedResult } from './run.ts';

export function failureReport(r: SeedResult, replayArgs: string): string {
  const v = r.violations[0]!;
  return `seed ${r.seed} FAILED (${v.kind}, step ${v.step}, ${(v.atMs / 1000).toFixed(3)} s virtual): ${v.text}\n  faults: ${r.plan}\n  replay: npm run simulate -- ${replayArgs ? replayArgs + ' ' : ''}--seed ${r.seed}`;
}
