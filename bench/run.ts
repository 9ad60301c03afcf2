// npm run bench: starts a real node (child process, its own datadir) and measures each workload,
// printing one markdown table (also written to bench/results/node-only.{md,json}).
//   --quick    shorter runs (3 s per rate row, 2,000 transfers); results go to bench/results/tmp/
//   --peers    also installs anvil, Hardhat and ganache into bench/peers/ and runs the identical
//              workloads against each, side by side; writes bench/results/latest.{md,json,svg}
//   --docs     with --peers: also puts the table and chart into docs/performance.md (between the bench
//              markers; --readme is its old name). The README's summary table is updated by hand.
//   --wait-quiet  first waits (at most 5 minutes) for the 1-minute load average to fall below 0.5
// BENCH_DEBUG=1 logs the ingest's progress every poll.
// Every node gets the same preparation (workload.ts), the same load generator (load.ts) and the same
// bounds: a node that stops making progress is reported as stalled, never waited for.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus, totalmem, release, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureRate, loadGeneratorName, VARY } from './load.ts';
import { cpuMicros, freePort, rssMiB, startServer, type Server, type ServerCommand } from './proc.ts';
import { runIngest, signTransfers, type IngestResult } from './ingest.ts';
import { checkAnswers, GET, GET_ARG, makeLogBlocks, prepare, senderKeys, type Prepared } from './workload.ts';
import { measureLogsByAddress } from './logs.ts';
import { installPeers, peers, type Mining } from './peers/peers.ts';
import { markdown, OURS, ratio, type Cell, type Report, type Row } from './report.ts';
import { renderChart } from './chart.ts';
import { poolBench } from './pool.ts';
import { networkBench } from './network.ts';
import { validatorsBench } from './validators.ts';
import { syncBench } from './sync.ts';
import { wasmCallsBench } from './wasm-calls.ts';
import { awaitDelivery, subscribeNewHeads, type Subscribers } from './fanout.ts';
import { benchGenesis } from './genesis.ts';
import { addressOf } from '../src/crypto/secp256k1.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

const argv = process.argv.slice(2);
const KNOWN = ['--quick', '--peers', '--docs', '--readme', '--wait-quiet'];
if (argv.some((a) => !KNOWN.includes(a))) {
  // an unknown flag (--help included) must not start a multi-minute run that overwrites results
  const usage = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\nimport')[0]!.split('\n').filter((l) => /^\/\/ {3}/.test(l)).join('\n');
  process.stderr.write(`usage: npm run bench [-- ${KNOWN.map((k) => `[${k}]`).join(' ')}]\n${usage.replace(/^\/\/ {3}/gm, '  ')}\n`);
  process.exit(argv.every((a) => a === '--help' || a === '-h') ? 0 : 2);
}
const quick = argv.includes('--quick');
const withPeers = argv.includes('--peers');
const writeDocs = argv.includes('--docs') || argv.includes('--readme');
const waitQuiet = argv.includes('--wait-quiet');
const SECONDS = quick ? 3 : 10;
/** each rate row is measured in this many turns per node (see rateRows); wrk takes whole seconds */
const RATE_ROUNDS = quick ? 1 : 10;
const WARMUP_S = 1;
const CONNECTIONS = 32;
const SENDERS = 100;
const PER_SENDER = quick ? 20 : 100;
const LOG_BLOCKS = 1000;
const LOG_ROUNDS = quick ? 20 : 100;
const FANOUT_CLIENTS = 100;
/** a node that mines nothing new for this long is "stalled"; one not done after the budget is "partial" */
const STALL_S = quick ? 10 : 20;
const BUDGET_S = quick ? 30 : 60;
const root = fileURLToPath(new URL('..', import.meta.url));

const log = (s: string) => process.stderr.write(`${s}\n`);
const body = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const n = (x: number) => x.toLocaleString('en-US');

/** A node under test: ours or a peer. */
interface Target {
  id: string;
  label: string;
  funderKey: Uint8Array;
  checkDevAccount: boolean;
  mining: Mining[];
  command(port: number, mining: Mining, extraArgs?: string[]): ServerCommand;
  /** ours only: start again on the datadir of the instant run */
  restartable?: boolean;
  /** ours only: the node `npm start` runs — a dev chain (no genesis file) in a datadir of its own */
  devCommand?(port: number): ServerCommand;
  cleanup?(): void;
}

// ------------------------------------------------------------------ our node

const OUR_FUNDER = hexToBytes('0x' + 'be'.repeat(32));

function ourTarget(): Target {
  const base = mkdtempSync(join(tmpdir(), 'chain-node-bench-'));
  const nodeKeyHex = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
  const dirs = new Map<string, string>();
  const datadir = (mining: Mining, extraArgs: string[]) => {
    const name = [mining, ...extraArgs].join('-').replace(/[^\w.-]/g, '');
    let dir = dirs.get(name);
    if (!dir) {
      dir = join(base, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'nodekey'), nodeKeyHex);
      writeFileSync(join(dir, 'genesis.in.json'), JSON.stringify(benchGenesis(nodeKeyHex, OUR_FUNDER, mining === 'instant' ? 0 : 1)));
      dirs.set(name, dir);
    }
    return dir;
  };
  return {
    id: OURS,
    label: 'chain-node',
    funderKey: OUR_FUNDER,
    checkDevAccount: false,
    mining: ['instant', 'blocks1s', 'blocks1sLifted'],
    restartable: true,
    command: (port, mining, extraArgs = []) => {
      if (mining === 'blocks1sLifted') extraArgs = [...LIFTED_POOL, ...extraArgs];
      const dir = datadir(mining, extraArgs);
      const args = ['dist/chain-node.mjs', '--datadir', dir, '--genesis', join(dir, 'genesis.in.json'), '--http.addr', '127.0.0.1', '--http.port', String(port), '--p2p.port', '0'];
      return { cmd: process.execPath, args: [...args, '--verbosity', '1', '--rpc.checkresults', 'false', ...extraArgs], cwd: root };
    },
    devCommand: (port) => {
      const dir = join(base, 'dev');
      return { cmd: process.execPath, args: ['dist/chain-node.mjs', '--datadir', dir, '--http.addr', '127.0.0.1', '--http.port', String(port), '--p2p.port', '0', '--verbosity', '1'], cwd: root };
    },
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

// ------------------------------------------------------------------ rows

const ROWS = {
  clientVersion: { short: 'web3_clientVersion', label: 'web3_clientVersion', unit: 'req/s', better: 'higher' },
  blockNumber: { short: 'eth_blockNumber', label: 'eth_blockNumber', unit: 'req/s', better: 'higher' },
  getBalance: { short: 'eth_getBalance', label: 'eth_getBalance', unit: 'req/s', better: 'higher' },
  callSame: { short: 'eth_call, identical calls', label: 'eth_call, identical calls (`get()`)', unit: 'req/s', better: 'higher' },
  callVaried: { short: 'eth_call, varied argument', label: 'eth_call, a new argument every call (`get(uint256)`, never cacheable)', unit: 'req/s', better: 'higher' },
  ingestInstant: { short: 'ingest, instant / automine', label: `ingest, instant sealing / automine: ${n(SENDERS * PER_SENDER)} transfers, ${SENDERS} senders, ${CONNECTIONS} in flight, until all mined`, unit: 'tx/s', better: 'higher' },
  ingestLifted: { short: 'ingest, pool limits lifted', label: `ingest, instant sealing, with --txpool.globalslots/globalqueue 100000 (run only when the default run did not finish)`, unit: 'tx/s', better: 'higher', compare: false },
  ingest1s: { short: 'ingest, 1 s blocks, defaults', label: `ingest, 1 s blocks, each node's defaults: the same ${n(SENDERS * PER_SENDER)} transfers (anvil's blocks hold ≤ 1,428 of them — its 30M block gas limit; chain-node's pool ≤ 4,096 pending — geth's limits)`, unit: 'tx/s', better: 'higher' },
  ingest1sLifted: { short: 'ingest, 1 s blocks, limits lifted', label: `ingest, 1 s blocks, those limits lifted: anvil \`--gas-limit 1000000000\`, chain-node \`--txpool.globalslots 100000 --txpool.globalqueue 100000\``, unit: 'tx/s', better: 'higher' },
  logsMatch: { short: 'eth_getLogs p50, matching', label: `eth_getLogs over ${n(LOG_BLOCKS)} blocks, p50: by the contract's address (a log in every block)`, unit: 'ms', better: 'lower' },
  logsNone: { short: 'eth_getLogs p50, matching none', label: `eth_getLogs over ${n(LOG_BLOCKS)} blocks, p50: by an address with no logs`, unit: 'ms', better: 'lower' },
  fanout: { short: `newHeads to ${FANOUT_CLIENTS} WS clients`, label: `WebSocket fan-out: newHeads to ${FANOUT_CLIENTS} clients while the ${n(LOG_BLOCKS)} log blocks are sealed one at a time, blocks/s delivered to every client`, unit: 'blocks/s', better: 'higher' },
  rssAfter: { short: 'memory after the run', label: 'resident memory after the run', unit: 'MiB', better: 'lower' },
  rssPeak: { short: 'peak memory while ingesting', label: 'peak resident memory while ingesting (instant sealing / automine)', unit: 'MiB', better: 'lower' },
  startNew: { short: 'start-up, new datadir', label: 'start-up until the first answer, new datadir', unit: 'ms', better: 'lower' },
  startExisting: { short: 'start-up, existing datadir', label: 'start-up until the first answer, existing datadir (median of 3 starts)', unit: 'ms', better: 'lower' },
  startDev: { short: 'start-up, existing dev datadir', label: "start-up until the first answer, existing datadir of the dev chain `npm start` runs (its account unlocked; median of 3 starts)", unit: 'ms', better: 'lower', compare: false },
  bare: { short: 'bare node:http', label: 'reference: bare node:http answering web3_clientVersion (no node)', unit: 'req/s', better: 'higher', compare: false },
} as const satisfies Record<string, Omit<Row, 'cells'>>;
type RowKey = keyof typeof ROWS;

class Table {
  readonly rows = new Map<RowKey, Row>();
  /** rows other benches hand over (pool admission), shown after the fixed ones */
  readonly more: Row[] = [];
  set(key: RowKey, target: string, cell: Cell, cpuUs?: number): void {
    let row = this.rows.get(key);
    if (!row) this.rows.set(key, (row = { ...ROWS[key], cells: {} }));
    row.cells[target] = cell;
    if (cpuUs !== undefined) (row.cpuUs ??= {})[target] = cpuUs;
  }
  ordered(): Row[] {
    const fixed = (Object.keys(ROWS) as RowKey[]).filter((k) => k !== 'bare' && this.rows.has(k)).map((k) => this.rows.get(k)!);
    return [...fixed, ...this.more, ...(this.rows.has('bare') ? [this.rows.get('bare')!] : [])];
  }
}

async function rate(t: Table, key: RowKey, target: string, s: Server, reqBody: string): Promise<void> {
  const cpu0 = cpuMicros(s.pid);
  const r = await measureRate(s.url, reqBody, CONNECTIONS, SECONDS);
  const cpu = cpuMicros(s.pid) - cpu0;
  const answered = r.reqPerSec * SECONDS;
  t.set(key, target, { value: Math.round(r.reqPerSec), text: r.errors ? `${n(r.errors)} errors` : undefined }, answered > 0 ? cpu / answered : undefined);
  log(`  ${ROWS[key].label}: ${n(Math.round(r.reqPerSec))} req/s${r.errors ? `, ${r.errors} errors` : ''}`);
}

/** A node started for the instant-sealing workloads and prepared. */
interface Live {
  target: Target;
  s: Server;
  p: Awaited<ReturnType<typeof prepare>>;
}

/**
 * The request-rate rows, every node running at once and measured in turns: each row is
 * RATE_ROUNDS slices of SECONDS / RATE_ROUNDS per node, the order rotated every round, and a
 * node's figure is the median of its slices. This VM's speed drifts by a third within minutes
 * (the bare node:http reference alone: 22,550 and 32,540 req/s in two runs of one day); measured
 * one node after another, a slow spell landed on one node's rows and decided their ratios.
 */
async function rateRows(t: Table, live: Live[]): Promise<void> {
  const account = bytesToHex(addressOf(senderKeys(1)[0]!));
  const calls: [RowKey, (p: Prepared) => string][] = [
    ['clientVersion', () => body('web3_clientVersion', [])],
    ['blockNumber', () => body('eth_blockNumber', [])],
    ['getBalance', () => body('eth_getBalance', [account, 'latest'])],
    ['callSame', (p) => body('eth_call', [{ to: p.contract, data: GET }, 'latest'])],
    ['callVaried', (p) => body('eth_call', [{ to: p.contract, data: GET_ARG + VARY }, 'latest'])],
  ];
  const slice = SECONDS / RATE_ROUNDS;
  for (const [key, bodyFor] of calls) {
    log(`[all nodes, in turns] ${ROWS[key].label}`);
    const runs = new Map<Live, { rates: number[]; cpu: number; answered: number; errors: number }>();
    for (const l of live) {
      // one checked answer first: a JSON-RPC error is an HTTP 200 too, and fast
      const sample = await checkAnswers(l.s.url, bodyFor(l.p).replace(VARY, (7).toString(16).padStart(64, '0')));
      if (key === 'callVaried' && BigInt(sample as string) !== 49n) throw new Error(`${l.target.label}: get(7) answered ${sample}`);
      // warm-up, not counted: the first second of a row is a JIT's compile time, not its speed
      await measureRate(l.s.url, bodyFor(l.p), CONNECTIONS, WARMUP_S);
      runs.set(l, { rates: [], cpu: 0, answered: 0, errors: 0 });
    }
    for (let round = 0; round < RATE_ROUNDS; round++) {
      for (let i = 0; i < live.length; i++) {
        const l = live[(i + round) % live.length]!;
        const run = runs.get(l)!;
        const cpu0 = cpuMicros(l.s.pid);
        const r = await measureRate(l.s.url, bodyFor(l.p), CONNECTIONS, slice);
        run.cpu += cpuMicros(l.s.pid) - cpu0;
        run.answered += r.reqPerSec * slice;
        run.rates.push(r.reqPerSec);
        run.errors += r.errors;
      }
    }
    for (const [l, run] of runs) {
      const median = [...run.rates].sort((a, b) => a - b)[run.rates.length >> 1]!;
      const spread = run.rates.length > 1 ? ` (turns: ${run.rates.map((x) => n(Math.round(x))).join(', ')})` : '';
      t.set(key, l.target.id, { value: Math.round(median), text: run.errors ? `${n(run.errors)} errors` : undefined }, run.answered > 0 ? run.cpu / run.answered : undefined);
      log(`  ${l.target.label}: ${n(Math.round(median))} req/s${spread}${run.errors ? `, ${run.errors} errors` : ''}`);
    }
  }
}

// ------------------------------------------------------------------ one node, all workloads

const startTarget = async (target: Target, mining: Mining) => {
  const port = await freePort();
  return startServer(target.label, port, target.command(port, mining));
};

/** Starts a node for the instant-sealing workloads and prepares it (senders funded, contract deployed). */
async function startInstant(t: Table, target: Target): Promise<Live> {
  log(`[${target.label}] instant sealing / automine: start and prepare`);
  settleDisk();
  const s = await startTarget(target, 'instant');
  try {
    const p = await prepare(s.url, target.funderKey, senderKeys(SENDERS), { contract: true, checkDevAccount: target.checkDevAccount });
    t.set('startNew', target.id, { value: Math.round(s.startupMs) });
    log(`  start-up ${Math.round(s.startupMs)} ms`);
    return { target, s, p };
  } catch (e) {
    await s.stop(2000);
    throw e;
  }
}

/**
 * Everything after the rate rows, on one node alone — the only server running (the rate rows'
 * servers are stopped by then: an idle peer still costs CPU, and only the nodes measured first
 * would have shared the machine with it): instant sealing, then 1 s blocks.
 */
async function measure(t: Table, target: Target): Promise<void> {
  const senders = senderKeys(SENDERS);
  let instantDone = false;
  for (const mining of target.mining) {
    log(`[${target.label}] ${MINING_LABEL[mining]}`);
    const s = await startTarget(target, mining);
    let stalled = false;
    try {
      const p = await prepare(s.url, target.funderKey, senders, { contract: mining === 'instant', checkDevAccount: target.checkDevAccount });
      if (mining === 'instant') {
        // the log blocks are sealed one at a time: the fan-out row watches them reach N subscribers
        let subs: Subscribers | undefined;
        try {
          subs = await subscribeNewHeads(s.url.replace(/^http/, 'ws'), FANOUT_CLIENTS);
        } catch (e) {
          t.set('fanout', target.id, { text: `not measured: ${(e as Error).message}` });
        }
        const t1 = performance.now();
        const range = await makeLogBlocks(s.url, p, LOG_BLOCKS, 180_000);
        if (subs) {
          const d = await awaitDelivery(subs, BigInt(range.from), BigInt(range.to), 10_000);
          subs.close();
          const perS = Math.round(LOG_BLOCKS / ((d.at - t1) / 1000));
          t.set('fanout', target.id, { value: perS, text: d.incomplete ? `${d.incomplete} clients missed headers` : undefined });
          log(`  newHeads to ${FANOUT_CLIENTS} clients: ${perS} blocks/s${d.incomplete ? `, ${d.incomplete} incomplete` : ''}`);
        }
        const logs = await measureLogsByAddress(s.url, p.contract!, range, LOG_ROUNDS, s.pid);
        if (logs.matching.logs !== LOG_BLOCKS || logs.notMatching.logs !== 0) throw new Error(`eth_getLogs found ${logs.matching.logs} and ${logs.notMatching.logs} logs, expected ${LOG_BLOCKS} and 0`);
        t.set('logsMatch', target.id, { value: logs.matching.p50ms });
        t.set('logsNone', target.id, { value: logs.notMatching.p50ms });
        log(`  eth_getLogs p50 ${logs.matching.p50ms.toFixed(2)} ms / ${logs.notMatching.p50ms.toFixed(2)} ms (server CPU ${logs.matching.cpuMs?.toFixed(2)} / ${logs.notMatching.cpuMs?.toFixed(2)} ms a request)`);
      }
      const r = await ingest(t, INGEST_ROW[mining], target.id, s, p);
      instantDone ||= mining === 'instant' && r.status === 'done';
      stalled = r.status === 'stalled';
      if (mining === 'instant') {
        t.set('rssPeak', target.id, { value: Math.round(r.peakRssMiB) });
        t.set('rssAfter', target.id, { value: Math.round(rssMiB(s.pid)) });
      }
    } finally {
      await s.stop(stalled ? 2000 : 10_000);
    }
    if (mining === 'instant' && target.restartable) {
      // three starts, the median: one start right after a long run varies with what the machine
      // is still flushing (seen 211–391 ms for the same build)
      const median = await medianStartup(() => startTarget(target, 'instant'));
      t.set('startExisting', target.id, { value: median });
      log(`  start-up on the existing datadir ${median} ms`);
    }
    if (mining === 'instant' && target.devCommand) {
      // the quick start's node: a first start makes the dev chain and its account, three more count
      const devCommand = target.devCommand;
      const startDev = async () => {
        const port = await freePort();
        return startServer(`${target.label} (dev)`, port, devCommand(port));
      };
      await (await startDev()).stop();
      const median = await medianStartup(startDev);
      t.set('startDev', target.id, { value: median });
      log(`  start-up on the existing dev datadir ${median} ms`);
    }
  }
  if (target.id === OURS && !instantDone) {
    // diagnostic: is the stall the pool's limits (geth's defaults evict accepted pending transactions,
    // leaving nonce gaps) or the node itself? The same ingest with the limits lifted tells.
    log(`[${target.label}] instant sealing, pool limits lifted (${LIFTED_POOL.join(' ')})`);
    const port = await freePort();
    const s = await startServer(target.label, port, target.command(port, 'instant', LIFTED_POOL));
    try {
      const p = await prepare(s.url, target.funderKey, senders, { contract: false, checkDevAccount: false });
      await ingest(t, 'ingestLifted', target.id, s, p);
    } finally {
      await s.stop(2000);
    }
  }
}

/**
 * Before a start-up is measured, the dirty pages of what ran before (an ingest writes ~70 MB, a
 * build or an install more) go to disk, so that the kernel's writeback does not run during the
 * start — a node that opens or creates a datadir waits for its own fsyncs behind it.
 */
function settleDisk(): void {
  try {
    execFileSync('sync', { stdio: 'ignore', timeout: 60_000 });
  } catch {
    // no sync(1): the start shares the machine with the writeback
  }
}

/** Three starts of a node, each stopped after its first answer: the median start-up (ms). */
async function medianStartup(start: () => Promise<Server>): Promise<number> {
  settleDisk();
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const s = await start();
    times.push(Math.round(s.startupMs));
    await s.stop();
  }
  log(`  (starts: ${times.join(', ')} ms)`);
  return [...times].sort((a, b) => a - b)[1]!;
}

const LIFTED_POOL = ['--txpool.globalslots', '100000', '--txpool.globalqueue', '100000'];
const MINING_LABEL: Record<Mining, string> = { instant: 'instant sealing / automine', blocks1s: '1 s blocks, defaults', blocks1sLifted: '1 s blocks, limits lifted' };
const INGEST_ROW: Record<Mining, RowKey> = { instant: 'ingestInstant', blocks1s: 'ingest1s', blocks1sLifted: 'ingest1sLifted' };

/** The ingest workload on a prepared node, as one cell of row `key`. */
async function ingest(t: Table, key: RowKey, target: string, s: Server, p: Prepared): Promise<IngestResult> {
  const txs = signTransfers(p.senders, PER_SENDER, p.chainId, p.gasPrice);
  const r = await runIngest(s.url, txs, p.senders, { inFlight: CONNECTIONS, stallSeconds: STALL_S, budgetSeconds: BUDGET_S, pid: s.pid });
  const rate_ = r.seconds > 0 ? Math.round(r.mined / r.seconds) : 0;
  const refusals = r.refused ? `${n(r.refused)} sends refused as pool full and sent again` : undefined;
  // with blocks on a clock the last ones wait for the next block: when the node had them all tells its admission apart from that
  const accepted = `all accepted after ${r.acceptedSeconds.toFixed(2)} s`;
  const cell: Cell =
    r.status === 'done'
      ? { value: rate_, text: [accepted, refusals].filter(Boolean).join('; ') }
      : r.status === 'partial'
        ? { value: rate_, text: `partial: ${n(r.mined)} of ${n(r.count)} mined in ${BUDGET_S} s` }
        : { text: `stalled: ${n(r.mined)} of ${n(r.count)} mined (${n(rate_)} tx/s until then), then nothing for ${STALL_S} s` };
  t.set(key, target, cell);
  log(`  ingest ${r.status}: ${n(r.mined)} of ${n(r.count)} in ${r.seconds.toFixed(2)} s → ${n(rate_)} tx/s${r.status === 'done' ? `, ${accepted}` : ''}${refusals ? `, ${refusals}` : ''}`);
  return r;
}

// ------------------------------------------------------------------ the run

function machine(): string {
  const c = cpus();
  return `${c.length} cores (${c[0]?.model.trim()}), ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}, Node ${process.version}`;
}

/** Other work on the machine skews every figure: wait, bounded, for it to calm down. */
async function quiet(): Promise<void> {
  const until = performance.now() + 5 * 60_000;
  while (loadavg()[0]! >= 0.5 && performance.now() < until) {
    log(`waiting for a quiet machine: load average ${loadavg()[0]!.toFixed(2)}`);
    await new Promise((r) => setTimeout(r, 10_000));
  }
}

async function main(): Promise<void> {
  // the node runs as users run it: the esbuild bundle `npm start` builds (A1)
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  if (waitQuiet) await quiet();
  const t0 = performance.now();
  const load0 = loadavg()[0]!;
  const table = new Table();
  const notes: string[] = [];
  const targets: Target[] = [ourTarget()];
  if (withPeers) {
    installPeers();
    targets.push(...peers().map((p) => ({ ...p, checkDevAccount: true })));
  }
  try {
    // the transport floor: a bare node:http server doing the same JSON work
    const port = await freePort();
    const bare = await startServer('bare node:http', port, { cmd: process.execPath, args: ['--import', 'tsx', 'bench/bare-server.ts', String(port)], cwd: root });
    try {
      log('[reference] bare node:http');
      await rate(table, 'bare', OURS, bare, body('web3_clientVersion', []));
    } finally {
      await bare.stop();
    }
    // one node failing must not lose the others' figures
    const failed = (target: Target, e: unknown) => {
      log(`[${target.label}] failed: ${(e as Error).stack ?? e}`);
      notes.push(`${target.label}: the run failed (${(e as Error).message.split('\n')[0]}); its missing cells are not measured.`);
    };
    const live: Live[] = [];
    try {
      for (const target of targets) {
        try {
          live.push(await startInstant(table, target));
        } catch (e) {
          failed(target, e);
        }
      }
      await rateRows(table, live);
    } finally {
      for (const l of live) await l.s.stop(2000);
    }
    for (const l of live) {
      try {
        await measure(table, l.target);
      } catch (e) {
        failed(l.target, e);
      }
    }
    // in this process, so only once no server competes for the CPU
    log('[chain-node] pool admission (bench/pool.ts, in-process)');
    for (const r of await poolBench(quick)) {
      const m = /^([\d,]+) tx\/s$/.exec(r.value);
      table.more.push({ short: r.name, label: `pool admission, in-process: ${r.name}`, unit: 'tx/s', better: 'higher', compare: false, cells: { [OURS]: m ? { value: Number(m[1]!.replace(/,/g, '')), text: r.extra || undefined } : { text: `${r.value} ${r.extra}` } } });
      log(`  ${r.name}: ${r.value}`);
    }
    // issue 23: the wasm VM against the EVM, the same get/set contract in C and in Solidity (in-process)
    log('[chain-node] the wasm VM against the EVM: a get/set contract (bench/wasm-calls.ts, in-process)');
    try {
      for (const [what, wasm, evm] of await wasmCallsBench(quick ? 500 : 2000, quick ? 100 : 300)) {
        table.more.push({ short: what, label: `wasm (C) / EVM (Solidity), in-process: ${what}`, unit: '', better: 'higher', compare: false, cells: { [OURS]: { text: evm === '—' ? wasm : `${wasm} / ${evm}` } } });
        log(`  ${what}: ${wasm} / ${evm}`);
      }
    } catch (e) {
      log(`  wasm failed: ${(e as Error).stack ?? e}`);
      notes.push(`The wasm rows failed (${(e as Error).message.split('\n')[0]}); not measured.`);
    }
    // issue 21: two processes of the bundle on loopback, a validator and a follower syncing from it
    const syncBlocks = quick ? 1000 : 10_000;
    log(`[chain-node] sync of ${n(syncBlocks)} blocks of 10 transfers from one peer over loopback (bench/sync.ts)`);
    try {
      const r = await syncBench({ blocks: syncBlocks, txs: 10, entry: ['dist/chain-node.mjs'] });
      const perS = Math.round(r.blocks / r.seconds);
      table.more.push({
        short: 'sync',
        label: `sync from one peer over loopback: ${n(syncBlocks)} blocks of 10 transfers, a follower's first imported block to its last`,
        unit: 'blocks/s',
        better: 'higher',
        compare: false,
        cells: { [OURS]: { value: perS, text: `${n(Math.round(r.txs / r.seconds))} tx/s` } },
      });
      log(`  ${n(perS)} blocks/s, ${n(Math.round(r.txs / r.seconds))} tx/s`);
    } catch (e) {
      log(`  sync failed: ${(e as Error).stack ?? e}`);
      notes.push(`The sync row failed (${(e as Error).message.split('\n')[0]}); not measured.`);
    }
    // issue 21: a local network of 4 processes (bench/network.ts), after the single-node rows so that it competes with nothing
    log('[chain-node] a local network of 4 nodes (bench/network.ts)');
    try {
      table.more.push(...(await networkBench(quick, log)));
    } catch (e) {
      log(`  network failed: ${(e as Error).stack ?? e}`);
      notes.push(`The network rows failed (${(e as Error).message.split('\n')[0]}); not measured.`);
    }
    // issue 22: 4 validators against 1 (bench/validators.ts)
    log('[chain-node] 4 validators against 1 on a network of 4 nodes (bench/validators.ts)');
    try {
      table.more.push(...(await validatorsBench(quick, log)));
    } catch (e) {
      log(`  validators failed: ${(e as Error).stack ?? e}`);
      notes.push(`The validator rows failed (${(e as Error).message.split('\n')[0]}); not measured.`);
    }
  } finally {
    for (const target of targets) target.cleanup?.();
  }

  const command = `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`;
  notes.unshift(
    `Every node is prepared the same way over JSON-RPC: ${SENDERS} senders funded from its own first dev account (transactions signed here for its chain id), the bench contract deployed, ${n(LOG_BLOCKS)} blocks with one log each. Rate rows: ${CONNECTIONS} keep-alive connections, one checked answer and ${WARMUP_S} s of warm-up first, then ${SECONDS} s per node${RATE_ROUNDS > 1 ? ` in ${RATE_ROUNDS} turns of ${SECONDS / RATE_ROUNDS} s with every node running, the order rotated each turn; the cell is the median turn (this VM's speed drifts within minutes, and turns spread a slow spell over every node)` : ''}; a varied argument never repeats within a run.`,
    `eth_getLogs: ${LOG_ROUNDS} sequential requests on one keep-alive connection after 5 warm-up ones; a request's latency runs from sending it to its answer's last byte (as wrk times the rate rows), the answers are parsed and checked afterwards.`,
    `Ingest: pre-signed legacy transfers sent with eth_sendRawTransaction, each sender in nonce order (its next transaction once the node accepted the previous), ${CONNECTIONS} requests in flight across the ${SENDERS} senders, timed until every sender's mined nonce is final. A send refused as "txpool is full" is sent again 25 ms later (the node's backpressure; counted in the cell). No newly mined transaction for ${STALL_S} s is reported as stalled, still running after ${BUDGET_S} s as partial (the rate so far).`,
    withPeers
      ? 'Ratio: ours ÷ the best peer in that row. For req/s and tx/s above 1.0 is ahead; for ms and MiB below 1.0 is ahead. Peers have no datadir, so their start-up is compared with ours on a new one.'
      : 'Only chain-node was measured; `npm run bench -- --peers` adds anvil, Hardhat and ganache side by side.',
  );
  if (withPeers) notes.push('Every node runs with its defaults, except in the row "1 s blocks, limits lifted": there anvil\'s block gas limit (30M: 1,428 transfers a block) and chain-node\'s pool limits (4,096 pending, 1,024 queued: geth\'s) are both raised, so that the row compares how fast each takes transactions rather than its configuration.');
  notes.push(`1-minute load average when the run started: ${load0.toFixed(2)} (the load generator shares the machine with the node under test). The run took ${Math.round((performance.now() - t0) / 1000)} s.`);

  const rep: Report = {
    date: new Date().toISOString().slice(0, 10),
    command,
    machine: machine(),
    loadGenerator: `${loadGeneratorName()}, ${CONNECTIONS} connections, ${SECONDS} s per rate row and node${RATE_ROUNDS > 1 ? ` (${RATE_ROUNDS} turns)` : ''}`,
    columns: targets.map((x) => ({ id: x.id, label: x.label })),
    rows: table.ordered(),
    notes,
  };
  const md = markdown(rep);
  process.stdout.write(`\n${md}`);
  const dir = join(root, 'bench/results', quick ? 'tmp' : '');
  const name = withPeers ? 'latest' : 'node-only';
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.md`), md);
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(rep, null, 2) + '\n');
  if (withPeers) writeFileSync(join(dir, `${name}.svg`), renderChart(rep));
  if (withPeers && writeDocs && !quick) updatePerformancePage(md);
  const behind = rep.rows.map((r) => [r.label, ratio(r)] as const).filter(([, q]) => q && !q.ahead);
  if (withPeers) log(behind.length ? `behind the best peer in ${behind.length} rows:\n${behind.map(([l, q]) => `  ${l}: ${q!.ratio.toFixed(2)}×`).join('\n')}` : 'ahead of every peer in every row');
  log(`results in ${join(dir, name)}.{md,json${withPeers ? ',svg' : ''}}`);
}

/** Replaces the block between docs/performance.md's bench markers with the table and the chart. */
function updatePerformancePage(md: string): void {
  const path = join(root, 'docs/performance.md');
  const text = readFileSync(path, 'utf8');
  const a = text.indexOf('<!-- bench:start -->');
  const b = text.indexOf('<!-- bench:end -->');
  if (a < 0 || b < a) throw new Error('docs/performance.md has no <!-- bench:start --> … <!-- bench:end --> block');
  const block = `<!-- bench:start -->\n${md}\n![chain-node vs anvil, Hardhat, ganache](../bench/results/latest.svg)\n`;
  writeFileSync(path, text.slice(0, a) + block + text.slice(b));
  log('docs/performance.md updated');
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
