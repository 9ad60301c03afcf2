// The iris simulator (src/iris-sim, I15): the real engine on an in-process network in virtual
// time. Hundreds of seeds at 4 and 7 validators, every fault kind among them, keep every safety
// check and grow the chain after the faults end; a seed replays exactly, from the library and from
// `npm run simulate`; an engine planted with a broken rule (I16: blocks written on N − F − 1
// commits) is caught by some seed that the real engine passes.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FAULT_KINDS } from '../src/iris-sim/faults.ts';
import { failureReport } from '../src/iris-sim/report.ts';
import { runSeed, type SeedResult, type SimOptions } from '../src/iris-sim/run.ts';
import type { IrisMutations } from '../src/consensus/iris/ports.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ALL = new Set(FAULT_KINDS);
/** the seeds' shape: short enough for npm test's budget, long enough that every fault lands within a few blocks */
const SHORT: Omit<SimOptions, 'seed' | 'validators'> = { heights: 8, faults: ALL, windowMs: 6000, periodSeconds: 1, timeoutMs: 10_000, livenessMs: 180_000 };
/** where a broken rule shows quickly: WAN, rounds of 1 s, a partition every few hundred ms while the faults last */
const HARSH: Omit<SimOptions, 'seed'> = { validators: 4, heights: 10, faults: ALL, windowMs: 10_000, periodSeconds: 1, timeoutMs: 1000, livenessMs: 180_000, profile: 'wan', partitions: 40 };

async function seeds(validators: number, count: number): Promise<void> {
  const failures: string[] = [];
  const occurred = new Map<string, number>();
  let blocks = 0;
  for (let seed = 1; seed <= count; seed++) {
    const r = await runSeed({ ...SHORT, validators, seed });
    if (!r.ok) failures.push(failureReport(r, `--validators ${validators} --heights ${SHORT.heights} --window ${SHORT.windowMs}`));
    for (const k of r.occurred) occurred.set(k, (occurred.get(k) ?? 0) + 1);
    blocks += r.blocks;
  }
  assert.equal(failures, [], failures.join('\n'));
  assert.ok(blocks >= count * SHORT.heights, `${blocks} blocks`);
  for (const k of [...FAULT_KINDS, 'equivocate', 'double-vote', 'silent']) assert.ok((occurred.get(k) ?? 0) >= count / 20, `${k} in ${occurred.get(k) ?? 0} of ${count} seeds`);
}

test('200 seeds at 4 validators, every fault kind: no fork, no double signature, the chain grows after the faults', () => seeds(4, 200));

test('100 seeds at 7 validators, every fault kind: no fork, no double signature, the chain grows after the faults', () => seeds(7, 100));

test('a seed replays exactly', async () => {
  const a = await runSeed({ ...SHORT, validators: 4, seed: 77 });
  const b = await runSeed({ ...SHORT, validators: 4, seed: 77 });
  assert.equal(a, b);
  assert.ok(a.steps > 100, `${a.steps} steps`);
});

/** The first seed of HARSH that `mutations` fails. */
async function caught(mutations: IrisMutations, upTo: number): Promise<SeedResult> {
  for (let seed = 1; seed <= upTo; seed++) {
    const r = await runSeed({ ...HARSH, seed, mutations });
    if (!r.ok) return r;
  }
  throw new Error(`the mutation ${JSON.stringify(mutations)} passed ${upTo} seeds`);
}

const HARSH_ARGS = `--heights ${HARSH.heights} --window ${HARSH.windowMs} --timeout ${HARSH.timeoutMs} --profile wan --partitions ${HARSH.partitions}`;

test('an engine that writes a block on N − F − 1 commits is caught by a seed the real engine passes, and that seed replays from npm run simulate', async () => {
  const bad = await caught({ commitBelowQuorum: true }, 20);
  assert.ok((await runSeed({ ...HARSH, seed: bad.seed })).ok, `seed ${bad.seed} fails the real engine too`);
  // the CLI prints the seed and the command that replays it; the replay finds the same violation
  const run = (args: string[]) => promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/iris-sim/main.ts', ...args], { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
  const printed = await run([...HARSH_ARGS.split(' '), '--mutation', 'commit-below-quorum', '--seeds', '1', '--first', String(bad.seed)]);
  assert.equal(printed.code, 1, printed.out);
  const replay = /replay: npm run simulate -- (.*)/.exec(printed.out)?.[1];
  assert.ok(replay?.endsWith(`--seed ${bad.seed}`), printed.out);
  const again = await run(replay!.split(' '));
  assert.equal(again.code, 1, again.out);
  assert.ok(again.out.includes(bad.violations[0]!.text), again.out.slice(-2000));
});

test.run();
