// node --import tsx scripts/test-run.ts [--workers N] [--times FILE] [--no-typecheck] [REGEX…]:
// the test files under test/ (`*.test.ts`, or those whose path matches a REGEX) each in its own
// process (`node --import tsx <file>`; uvu runs it and sets the exit code), N at a time
// (TEST_WORKERS, default 3), the type check as one more job beside them. Heavy files go first so
// the last minutes are not one long file alone (T1). A line per file with its time; at the end the
// full output of every failed file, and exit 1 if any failed.
import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: {
    workers: { type: 'string', default: process.env.TEST_WORKERS ?? '3' },
    times: { type: 'string' },
    'no-typecheck': { type: 'boolean', default: false },
  },
  allowPositionals: true,
  strict: true,
});
const workers = Number(values.workers);
if (!Number.isInteger(workers) || workers < 1) {
  process.stderr.write('usage: node --import tsx scripts/test-run.ts [--workers N] [--times FILE] [--no-typecheck] [REGEX…]\n');
  process.exit(2);
}

// The slowest files of a full run (bench/results/*-test-times.md), longest first; the rest follow
// in name order. A stale list costs minutes, never a result.
const HEAVY = [
  'p2p-hostile-network', 'exec-precompile-thread', 'exec-view-interpreter', 'p2p-sync', 'bundle', 'chain-restart', 'iris-faults',
  'txpool-journal', 'db-damage', 'admin-cli', 'network-e2e', 'p2p-faults-network', 'filters-client-limits', 'iris-crash', 'filters-memory',
  'eth-fees', 'p2p-hostile', 'network-script', 'sync-peers', 'iris-network', 'chain-export-import', 'rpc-connections', 'iris-set-change',
];
// A file slower than this is stopped and reported with what it printed (the longest takes ~2 min).
const FILE_TIMEOUT_MS = 8 * 60_000;

const root = join(import.meta.dirname, '..');
const testDir = join(root, 'test');
const filters = positionals.map((p) => new RegExp(p));
const files = readdirSync(testDir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts') && !f.split('/').some((part) => part === 'node_modules' || part.startsWith('.')))
  .filter((f) => filters.length === 0 || filters.some((r) => r.test(f)))
  .sort();
const rank = (f: string): number => {
  const i = HEAVY.indexOf(f.replace(/\.test\.ts$/, ''));
  return i === -1 ? HEAVY.length : i;
};
files.sort((a, b) => rank(a) - rank(b));

interface Job { name: string; cmd: string; args: string[] }
const jobs: Job[] = files.map((f) => ({ name: `test/${f}`, cmd: process.execPath, args: ['--import', 'tsx', join('test', f)] }));
// tsc is native and done within the first files' time; the shell keeps `npm run typecheck` the one definition
if (!values['no-typecheck'] && filters.length === 0) jobs.unshift({ name: 'npm run typecheck', cmd: 'npm', args: ['run', '--silent', 'typecheck'] });

interface Result { name: string; ms: number; ok: boolean; output: string }
const results: Result[] = [];
const started = performance.now();
process.stdout.write(`${jobs.length} jobs, ${workers} at a time\n`);

function run(job: Job): Promise<Result> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    // own process group: a timed-out file is stopped with the nodes it started
    const child = spawn(job.cmd, job.args, { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
    }, FILE_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - t0;
      // uvu 0.5 reports a suite whose before hook threw as "(0 / N)" and exits 0: a file passes
      // only if every test it counts passed
      const total = /^\s*Total:\s+(\d+)/m.exec(output)?.[1];
      const passed = /^\s*Passed:\s+(\d+)/m.exec(output)?.[1];
      const unrun = total !== undefined && passed !== undefined && Number(passed) < Number(total);
      if (timedOut) output += `\n[test-run] stopped after ${FILE_TIMEOUT_MS / 60_000} min\n`;
      else if (code !== 0) output += `\n[test-run] exit ${code ?? signal}\n`;
      else if (unrun) output += `\n[test-run] ${passed} of ${total} tests passed and none failed: a before hook threw (uvu does not print its error)\n`;
      resolve({ name: job.name, ms, ok: code === 0 && !timedOut && !unrun, output });
    });
  });
}

const queue = [...jobs];
const active = new Set<Promise<void>>();
async function worker(): Promise<void> {
  for (let job = queue.shift(); job; job = queue.shift()) {
    const r = await run(job);
    results.push(r);
    const elapsed = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
    process.stdout.write(`${elapsed} s ${r.ok ? 'ok  ' : 'FAIL'} ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${r.name}\n`);
  }
}
for (let i = 0; i < Math.min(workers, jobs.length); i++) active.add(worker());
await Promise.all(active);

const totalS = (performance.now() - started) / 1000;
const failed = results.filter((r) => !r.ok);
for (const r of failed) process.stdout.write(`\n──── ${r.name} (failed) ────\n${r.output}\n`);
const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 10);
process.stdout.write(`\nslowest: ${slowest.map((r) => `${r.name.replace(/^test\//, '')} ${(r.ms / 1000).toFixed(0)} s`).join(', ')}\n`);
const sumS = results.reduce((s, r) => s + r.ms, 0) / 1000;
process.stdout.write(`${results.length - failed.length} of ${results.length} jobs passed in ${totalS.toFixed(0)} s (${sumS.toFixed(0)} s of file time, ${workers} workers)\n`);
if (values.times) writeFileSync(values.times, JSON.stringify({ workers, totalS, results: results.map(({ name, ms, ok }) => ({ name, ms: Math.round(ms), ok })) }, null, 2) + '\n');
if (failed.length > 0) {
  process.stdout.write(`failed: ${failed.map((r) => r.name).join(', ')}\n`);
  process.exit(1);
}
