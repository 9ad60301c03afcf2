// npm run simulate -- [--validators N] [--seeds K | --seed S] [--faults …]: the iris simulator
// (I15) over many seeds; a failing seed is printed with the command that replays it exactly.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FAULT_KINDS, type FaultKind } from './faults.ts';
import { failureReport } from './report.ts';
import { runSeed, type SimOptions } from './run.ts';
import type { IrisMutations } from '../consensus/iris/ports.ts';

const USAGE = `usage: npm run simulate -- [--validators N] [--seeds K] [--first S] [--seed S] [--faults LIST] [options]

  --validators N   validators (default 4)
  --seeds K        seeds to run, from --first (default 1) on (default 100)
  --seed S         run seed S alone and print its engine log (a failing seed's replay)
  --faults LIST    comma-separated: ${FAULT_KINDS.join(', ')}; all (default) or none
  --heights H      blocks every honest validator must write (default 8)
  --window MS      virtual ms the faults are placed in (default 6000)
  --period S       block period in seconds (default 1)
  --timeout MS     first round timeout (default 10000, as npm run network)
  --liveness MS    longest wait for a block after the faults end (default 180000)
  --profile P      lan or wan delays (default: drawn per seed)
  --loss P         message loss while the faults last, 0–1 (default: drawn per seed)
  --partitions K   the most partitions a seed draws (default 2; they heal by the window's end)
  --stall-sync     the block sync stalls while the faults last (only consensus messages flow)
  --mutation M     test-only engine fault: drop-lock-check or commit-below-quorum
  --jobs J         split the seeds over J processes (default 1)
  --json           one JSON line per seed`;

const MUTATIONS: Record<string, IrisMutations> = { 'drop-lock-check': { dropLockCheck: true }, 'commit-below-quorum': { commitBelowQuorum: true } };

function number(v: string | undefined, flag: string, fallback: number, min: number, max: number): number {
  if (v === undefined) return fallback;
  const x = Number(v);
  if (!Number.isFinite(x) || x < min || x > max) throw new Error(`--${flag} must be a number from ${min} to ${max}, not "${v}"`);
  return x;
}

export function faultKinds(text: string | undefined): Set<FaultKind> {
  if (text === undefined || text === 'all') return new Set(FAULT_KINDS);
  if (text === 'none') return new Set();
  const kinds = text.split(',').map((k) => k.trim());
  for (const k of kinds) if (!(FAULT_KINDS as readonly string[]).includes(k)) throw new Error(`--faults: unknown fault "${k}" (known: ${FAULT_KINDS.join(', ')}, all, none)`);
  return new Set(kinds as FaultKind[]);
}

function options(argv: string[]): { sim: Omit<SimOptions, 'seed'>; seeds: number[]; replay: boolean; json: boolean; replayArgs: string; jobs: number } {
  const { values } = parseArgs({
    args: argv,
    options: {
      validators: { type: 'string' }, seeds: { type: 'string' }, first: { type: 'string' }, seed: { type: 'string' }, faults: { type: 'string' },
      heights: { type: 'string' }, window: { type: 'string' }, period: { type: 'string' }, timeout: { type: 'string' }, liveness: { type: 'string' },
      profile: { type: 'string' }, loss: { type: 'string' }, partitions: { type: 'string' }, mutation: { type: 'string' }, jobs: { type: 'string' }, 'stall-sync': { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (values.profile !== undefined && values.profile !== 'lan' && values.profile !== 'wan') throw new Error('--profile must be lan or wan');
  if (values.mutation !== undefined && !MUTATIONS[values.mutation]) throw new Error(`--mutation must be one of ${Object.keys(MUTATIONS).join(', ')}`);
  const sim: Omit<SimOptions, 'seed'> = {
    validators: number(values.validators, 'validators', 4, 2, 200),
    heights: number(values.heights, 'heights', 8, 1, 100_000),
    faults: faultKinds(values.faults),
    windowMs: number(values.window, 'window', 6000, 0, 3_600_000),
    periodSeconds: number(values.period, 'period', 1, 0, 60),
    timeoutMs: number(values.timeout, 'timeout', 10_000, 10, 3_600_000),
    livenessMs: number(values.liveness, 'liveness', 180_000, 1000, 36_000_000),
    profile: values.profile as 'lan' | 'wan' | undefined,
    loss: values.loss === undefined ? undefined : number(values.loss, 'loss', 0, 0, 1),
    partitions: values.partitions === undefined ? undefined : number(values.partitions, 'partitions', 2, 0, 10_000),
    stallSync: values['stall-sync'] === true,
    mutations: values.mutation === undefined ? undefined : MUTATIONS[values.mutation],
  };
  // the flags that shape a seed, for its replay command
  const keep = ['validators', 'faults', 'heights', 'window', 'period', 'timeout', 'liveness', 'profile', 'loss', 'partitions', 'mutation'] as const;
  const replayArgs = [...keep.filter((k) => values[k] !== undefined).map((k) => `--${k} ${values[k]}`), ...(values['stall-sync'] ? ['--stall-sync'] : [])].join(' ');
  const jobs = number(values.jobs, 'jobs', 1, 1, 64);
  if (values.seed !== undefined) return { sim, seeds: [number(values.seed, 'seed', 0, 0, 2 ** 32 - 1)], replay: true, json: values.json === true, replayArgs, jobs: 1 };
  const first = number(values.first, 'first', 1, 0, 2 ** 32 - 1);
  const count = number(values.seeds, 'seeds', 100, 1, 10_000_000);
  return { sim, seeds: Array.from({ length: count }, (_, i) => first + i), replay: false, json: values.json === true, replayArgs, jobs };
}

async function main(): Promise<void> {
  let o;
  try {
    o = options(process.argv.slice(2));
  } catch (e) {
    console.error(`${(e as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  const started = performance.now();
  if (o.jobs > 1) return inJobs(o.seeds, o.jobs, started);
  const failed: number[] = [];
  let blocks = 0;
  let roundChanges = 0;
  let worstRecovery = 0;
  const recoveries: number[] = [];
  for (const [i, seed] of o.seeds.entries()) {
    const r = await runSeed({ ...o.sim, seed, trace: o.replay ? (l) => console.log(l) : undefined });
    blocks += r.blocks;
    roundChanges += r.roundChanges;
    worstRecovery = Math.max(worstRecovery, r.recoveryMs ?? 0);
    if (r.recoveryMs !== undefined) recoveries.push(r.recoveryMs);
    if (o.json) console.log(JSON.stringify(r, (_, x) => (typeof x === 'bigint' ? String(x) : x)));
    if (!r.ok) {
      failed.push(seed);
      console.log(failureReport(r, o.replayArgs));
    } else if (o.replay) {
      console.log(`seed ${seed} ok: ${r.blocks} blocks, ${r.roundChanges} round changes, ${(r.virtualMs / 1000).toFixed(1)} s virtual; faults: ${r.plan}`);
    }
    if (!o.json && !o.replay && (i + 1) % 100 === 0) console.log(`${i + 1}/${o.seeds.length} seeds, ${failed.length} failed, ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const secs = (performance.now() - started) / 1000;
  console.log(`${o.seeds.length} seeds at N=${o.sim.validators} (faults: ${[...o.sim.faults].join(', ') || 'none'}): ${failed.length} failed${failed.length ? ` (${failed.join(', ')})` : ''}; ${blocks} blocks, ${roundChanges} round changes, worst recovery after the faults ${(worstRecovery / 1000).toFixed(1)} s virtual${recoveryText(recoveries, o.sim.timeoutMs)}; ${secs.toFixed(1)} s`);
  process.exitCode = failed.length ? 1 : 0;
}

/** From the faults' end to the next block: its median and 99th percentile, and how many seeds waited more than 2 × the first round's timeout. */
function recoveryText(ms: number[], timeoutMs: number): string {
  if (ms.length === 0) return '';
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! / 1000).toFixed(2);
  const over = sorted.filter((x) => x > 2 * timeoutMs).length;
  return ` (median ${at(0.5)} s, p99 ${at(0.99)} s; ${over} of ${sorted.length} over 2 × the timeout)`;
}

/** Runs the seeds in `jobs` processes, each a slice (it prints its own failures and summary). */
async function inJobs(seeds: number[], jobs: number, started: number): Promise<void> {
  const args = process.argv.slice(2).filter((_, i, all) => !['--seeds', '--first', '--jobs'].includes(all[i]!) && !['--seeds', '--first', '--jobs'].includes(all[i - 1]!));
  const per = Math.ceil(seeds.length / jobs);
  const codes = await Promise.all(
    Array.from({ length: jobs }, (_, j) => seeds.slice(j * per, (j + 1) * per)).filter((slice) => slice.length > 0).map(
      (slice) =>
        new Promise<number>((done) => {
          const child = fork(fileURLToPath(import.meta.url), [...args, '--first', String(slice[0]), '--seeds', String(slice.length)], { execArgv: process.execArgv });
          child.on('exit', (code) => done(code ?? 1));
        }),
    ),
  );
  const bad = codes.filter((c) => c !== 0).length;
  console.log(`${seeds.length} seeds in ${jobs} jobs: ${bad === 0 ? 'all clean' : `${bad} jobs had failing seeds (above)`}; ${((performance.now() - started) / 1000).toFixed(1)} s`);
  process.exitCode = bad === 0 ? 0 : 1;
}

await main();
