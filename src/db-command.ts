// `chain-node db check --datadir DIR`: walks the stored chain and the head state
// (src/chain/db-check.ts) and prints what is wrong in words; exit code 0 when the database is
// sound, 1 when it is not, 2 for a usage error. It opens LMDB read-only, so it writes nothing and
// may run beside a node serving the same datadir (LMDB readers share the environment across
// processes). The walk is synchronous, so it reads one snapshot — the head as it was when the check
// began (lmdb-js renews its read transaction only between event-loop turns); meanwhile the node's
// LMDB cannot reuse pages freed after that snapshot, so a long check lets the data file grow by what
// the node writes during it.
//
// From the command line the walk runs in a child process: LMDB trusts the pages it follows, and a
// damaged one can make it abort the process (a failed assertion, a corrupted heap) rather than
// return an error. A child that dies is reported as damage in the part it was reading, and a new
// child goes on with the parts not yet checked.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { openStoreForCommand } from './store/lmdb-store.ts';
import { CHECK_PHASES, checkDatabase, type CheckReport } from './chain/db-check.ts';

const USAGE = 'usage: chain-node db check --datadir DIR';
/** set in the child: the phases already checked, comma-separated */
const CHILD_ENV = 'CHAIN_NODE_DB_CHECK_CHILD';
/** problems printed in full; past this only counted */
const MAX_PRINTED = 50;

type Counts = Omit<CheckReport, 'problems' | 'problemCount'>;
type ChildEvent = { phase: string } | { ended: string; counts: Counts } | { problem: string } | { progress: string } | { fatal: string } | { end: true };

/**
 * `relaunch`: the command that starts this program again (node, its flags, the entry file), to run
 * the walk in a child; without it the walk runs in this process (the tests' fast path).
 */
export async function runDbCommand(argv: string[], out: (line: string) => void, relaunch?: string[]): Promise<number> {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: { datadir: { type: 'string', default: './data' } }, allowPositionals: true, strict: true }));
  } catch (e) {
    out(`chain-node db: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (positionals.length !== 1 || positionals[0] !== 'check') {
    out(USAGE);
    return 2;
  }
  const datadir = resolve(values.datadir);
  const child = process.env[CHILD_ENV];
  if (child !== undefined) return checkAsChild(datadir, new Set(child.split(',').filter(Boolean)));
  return relaunch ? checkInChildren(datadir, relaunch, out) : checkHere(datadir, out);
}

function summary(datadir: string, problemCount: number, printed: number, counts: Counts, seconds: number): string {
  const checked = `${counts.blocks} blocks, ${counts.transactions} transactions, ${counts.accounts} accounts (${counts.contracts} contracts), ${counts.slots} storage slots, ${counts.trieNodes} trie nodes, ${seconds.toFixed(1)} s`;
  if (problemCount === 0) return `chain-node db check: database ${datadir} is sound: ${checked}`;
  const more = problemCount - printed;
  return `chain-node db check: database ${datadir} is damaged: ${problemCount} problem${problemCount === 1 ? '' : 's'}${more > 0 ? ` (${more} not listed)` : ''}; checked ${checked}`;
}

async function checkHere(datadir: string, out: (line: string) => void): Promise<number> {
  const store = openStoreForCommand(datadir, 'chain-node db check', out);
  if (!store) return 1;
  try {
    const started = Date.now();
    const r = checkDatabase(store, { progress: (line) => out(`chain-node db check: ${line}`) });
    for (const p of r.problems) out(`chain-node db check: ${p}`);
    out(summary(datadir, r.problemCount, r.problems.length, r, (Date.now() - started) / 1000));
    return r.problemCount === 0 ? 0 : 1;
  } finally {
    await store.close();
  }
}

/** The child's side: the walk, told as one JSON event a line on stdout. */
async function checkAsChild(datadir: string, skip: Set<string>): Promise<number> {
  const emit = (e: ChildEvent) => process.stdout.write(JSON.stringify(e) + '\n');
  const store = openStoreForCommand(datadir, 'chain-node db check', (line) => emit({ fatal: line }));
  if (!store) return 1;
  try {
    checkDatabase(store, {
      skip,
      stopAtDamagedPage: true,
      progress: (line) => emit({ progress: line }),
      found: (problem) => emit({ problem }),
      phase: (name, ended) => {
        if (!ended) return emit({ phase: name });
        const { problems: _p, problemCount: _c, ...counts } = ended;
        emit({ ended: name, counts });
      },
    });
    emit({ end: true });
    return 0;
  } finally {
    await store.close();
  }
}

/** Runs the walk in children until every phase has been checked or has stopped its child. */
async function checkInChildren(datadir: string, relaunch: string[], out: (line: string) => void): Promise<number> {
  const started = Date.now();
  // a file that cannot be opened is told from here (its meta pages are checked before LMDB maps it): no child for that
  const store = openStoreForCommand(datadir, 'chain-node db check', out);
  if (!store) return 1;
  await store.close();
  const done = new Set<string>();
  const totals: Counts = { blocks: 0, transactions: 0, trieNodes: 0, accounts: 0, contracts: 0, slots: 0 };
  let problems = 0;
  const problem = (p: string) => {
    if (problems++ < MAX_PRINTED) out(`chain-node db check: ${p}`);
  };
  for (;;) {
    const [command, ...args] = relaunch;
    const child = spawn(command!, [...args, 'db', 'check', '--datadir', datadir], { env: { ...process.env, [CHILD_ENV]: [...done].join(',') }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
    const exited = new Promise<{ code: number | null; signal: string | null }>((r) => child.on('close', (code, signal) => r({ code, signal })));
    let current: string | undefined;
    let counts: Counts | undefined;
    let finished = false;
    let fatal: string | undefined;
    for await (const line of createInterface({ input: child.stdout! })) {
      let e: ChildEvent;
      try {
        e = JSON.parse(line) as ChildEvent;
      } catch {
        continue; // not ours
      }
      if ('phase' in e) current = e.phase;
      else if ('ended' in e) {
        done.add(e.ended);
        counts = e.counts;
        current = undefined;
      } else if ('problem' in e) problem(e.problem);
      else if ('progress' in e) out(`chain-node db check: ${e.progress}`);
      else if ('fatal' in e) fatal = e.fatal;
      else if ('end' in e) finished = true;
    }
    const { code, signal } = await exited;
    if (counts) for (const k of Object.keys(totals) as (keyof Counts)[]) totals[k] += counts[k];
    if (fatal !== undefined) {
      out(fatal);
      return 1;
    }
    const left = CHECK_PHASES.filter((p) => !done.has(p));
    if (left.length === 0) break; // every part checked (a child that died closing the file included)
    if (finished && code === 0) continue; // it stopped at a damaged page: a new child reads the rest
    // died between two phases: in the one it was about to begin
    current ??= left[0]!;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    // LMDB's own words on stderr (e.g. "page 2793789736 not found error", a failed assertion)
    const said = stderr.trim().split('\n').filter((l) => !/^\s+at /.test(l)).slice(-2).join('; ');
    problem(`${current}: LMDB stopped while reading it (the check ${how}${said ? `: ${said}` : ''}): a page of this part of the file is damaged`);
    done.add(current);
  }
  out(summary(datadir, problems, Math.min(problems, MAX_PRINTED), totals, (Date.now() - started) / 1000));
  return problems === 0 ? 0 : 1;
}
