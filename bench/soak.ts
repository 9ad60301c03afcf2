// npm run soak -- --minutes N: a node process (the bundle npm start runs, built once into a temp
// dir so edits to the sources during the run change nothing) under mixed load for N minutes —
// head-cached and fresh reads, varied eth_call, signed transfers and log-emitting calls, eth_getLogs,
// a polled filter, WebSocket clients subscribed to newHeads and logs — and restarted every few
// minutes, alternately with SIGTERM and SIGKILL. Every sample period it records the node's RSS
// (/proc), V8 heap (its own /metrics, --metrics) and per kind of request the answers, p50 / p99 and
// errors, into a CSV and an SVG chart (bench/soak-chart.ts), and ends with the trend.
//
//   npm run soak -- [--minutes 30] [--sample 10] [--restart-every 5] [--out bench/results/soak] [--svg docs/soak.svg]
//                   [--only read,call,send,getLogs,filter,ws]
//
// Errors while the node is down for a restart (refused connections, a filter the restart forgot)
// are expected and counted apart; any other failed request is an error.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { freePort, rssMiB, startServer, type Server } from './proc.ts';
import { RpcClient } from './ingest.ts';
import { GET_ARG, prepare, senderKeys, Signer } from './workload.ts';
import { renderSoakChart, type SoakSample } from './soak-chart.ts';
import { benchGenesis } from './genesis.ts';
import { addressOf } from '../src/crypto/secp256k1.ts';
import { keccak256 } from '../src/crypto/keccak.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

const { values: o } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    sample: { type: 'string', default: '10' },
    'restart-every': { type: 'string', default: '5' },
    out: { type: 'string', default: 'bench/results/soak' },
    svg: { type: 'string' },
    only: { type: 'string' },
  },
});
const KIND_NAMES = ['read', 'call', 'send', 'getLogs', 'filter', 'ws'];
const MINUTES = Number(o.minutes);
const SAMPLE_S = Number(o.sample);
const RESTART_S = Number(o['restart-every']) * 60;
/** --only read,send,…: the kinds of load to run (to find which one makes memory grow); all without it */
const only = o.only?.split(',');
if (!(MINUTES > 0) || !(SAMPLE_S >= 1) || !(RESTART_S > 0) || only?.some((k) => !KIND_NAMES.includes(k))) {
  process.stderr.write(`usage: npm run soak -- [--minutes N] [--sample SECONDS] [--restart-every MINUTES] [--out PREFIX] [--svg FILE] [--only ${KIND_NAMES.join(',')}]\n`);
  process.exit(2);
}
const root = fileURLToPath(new URL('..', import.meta.url));
const outPrefix = resolve(root, o.out!);
const svgFile = resolve(root, o.svg ?? `${o.out}.svg`);
const log = (s: string) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const FUNDER = hexToBytes('0x' + 'be'.repeat(32));
const NODE_KEY = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
const PING = bytesToHex(keccak256(new TextEncoder().encode('ping(uint256)')).subarray(0, 4));
const SENDERS = 4;
const WS_CLIENTS = 8;

// ------------------------------------------------------------------ the node, restartable

const work = mkdtempSync(join(tmpdir(), 'chain-node-soak-'));
// inside the repository (.tmp/ is ignored by git): the bundle finds its external packages in node_modules
const dist = join(root, '.tmp', `soak-dist-${process.pid}`);
const datadir = join(work, 'data');
log(`building the bundle into ${dist}`);
execFileSync(process.execPath, ['scripts/build.mjs', '--outdir', dist], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
mkdirSync(datadir);
writeFileSync(join(datadir, 'nodekey'), NODE_KEY);
writeFileSync(
  join(work, 'genesis.json'),
  JSON.stringify(benchGenesis(NODE_KEY, FUNDER, 1)),
);
const [port, metricsPort] = [await freePort(), await freePort()];
const url = `http://127.0.0.1:${port}`;
const args = [join(dist, 'chain-node.mjs'), '--datadir', datadir, '--genesis', join(work, 'genesis.json'), '--http.port', String(port), '--p2p.port', '0', '--verbosity', '2', '--rpc.checkresults', 'false', '--metrics', '--metrics.port', String(metricsPort)];
const start = () => startServer('chain-node', port, { cmd: process.execPath, args, cwd: root });

let node: Server = await start();
/** true while the node is being restarted: failures then are expected, counted apart */
let down = false;
let restarts = 0;
let pendingRestart = '';

// ------------------------------------------------------------------ load

class Kind {
  latencies: number[] = [];
  errors = 0;
  expected = 0;
  lastError = '';
  totals = { n: 0, errors: 0, expected: 0 };
  take(): { n: number; p50: number; p99: number; errors: number } {
    const l = this.latencies.sort((a, b) => a - b);
    const q = (p: number) => (l.length ? l[Math.min(l.length - 1, Math.floor(p * l.length))]! : NaN);
    const r = { n: l.length, p50: q(0.5), p99: q(0.99), errors: this.errors };
    this.totals.n += l.length;
    this.totals.errors += this.errors;
    this.totals.expected += this.expected;
    this.latencies = [];
    this.errors = 0;
    this.expected = 0;
    return r;
  }
}
const kinds = { read: new Kind(), call: new Kind(), send: new Kind(), getLogs: new Kind(), filter: new Kind(), ws: new Kind() };
let running = true;
const enabled = (kind: Kind) => !only || only.some((k) => kinds[k as keyof typeof kinds] === kind);

/** Runs `step` again and again, `pauseMs` apart, timing each into `kind`. */
async function loop(kind: Kind, pauseMs: number, step: () => Promise<unknown>): Promise<void> {
  if (!enabled(kind)) return;
  while (running) {
    if (down) {
      await sleep(100);
      continue;
    }
    const t0 = performance.now();
    try {
      await step();
      kind.latencies.push(performance.now() - t0);
    } catch (e) {
      if (down) kind.expected++;
      else {
        kind.errors++;
        kind.lastError = (e as Error).message;
      }
    }
    await sleep(pauseMs);
  }
}

const client = new RpcClient(url, 16, 15_000);
log('funding senders and deploying the contract');
const prepared = await prepare(url, FUNDER, senderKeys(SENDERS), { contract: true, checkDevAccount: false });
const contract = prepared.contract!;
const signers = prepared.senders.map((k) => new Signer(k, prepared.chainId, 0n, prepared.gasPrice));
let addressSeq = 0;
const loops: Promise<void>[] = [];
const randomWord = () => Math.floor(Math.random() * 2 ** 48).toString(16).padStart(64, '0');
// reads: repeated ones (answered from the head's kept answers) and fresh ones
for (let i = 0; i < 3; i++) {
  loops.push(loop(kinds.read, 20, () => client.call('eth_blockNumber', [])));
  loops.push(loop(kinds.read, 20, () => client.call('eth_getBalance', ['0x' + (++addressSeq % 100_000).toString(16).padStart(40, '0'), 'latest'])));
  loops.push(loop(kinds.read, 20, () => client.call('eth_getBlockByNumber', ['latest', true])));
}
for (let i = 0; i < 2; i++) loops.push(loop(kinds.call, 20, () => client.call('eth_call', [{ to: contract, data: GET_ARG + randomWord() }, 'latest'])));
// sends: each sender alternates a transfer and a logging call; its nonce is read again after a failure
signers.forEach((signer, i) => {
  let resync = false;
  loops.push(
    loop(kinds.send, 100, async () => {
      if (resync) {
        signer.nonce = BigInt(await client.call('eth_getTransactionCount', [bytesToHex(addressOf(prepared.senders[i]!)), 'pending']));
        resync = false;
      }
      const tx = signer.nonce % 2n === 0n ? signer.sign({ gasLimit: 21000n, to: hexToBytes('0x' + '77'.repeat(20)), value: 1n, data: new Uint8Array(0) }) : signer.sign({ gasLimit: 60_000n, to: hexToBytes(contract), value: 0n, data: hexToBytes(PING + randomWord()) });
      try {
        await client.call('eth_sendRawTransaction', [tx.raw]);
      } catch (e) {
        resync = true;
        throw e;
      }
    }),
  );
});
loops.push(
  loop(kinds.getLogs, 200, async () => {
    const head = BigInt(await client.call('eth_blockNumber', []));
    const from = head > 100n ? head - 100n : 0n;
    return client.call('eth_getLogs', [{ address: contract, fromBlock: '0x' + from.toString(16), toBlock: '0x' + head.toString(16) }]);
  }),
);
// a polled filter, installed again when a restart forgot it
let filterId: string | undefined;
loops.push(
  loop(kinds.filter, 500, async () => {
    filterId ??= await client.call('eth_newFilter', [{ address: contract }]);
    try {
      return await client.call('eth_getFilterChanges', [filterId]);
    } catch (e) {
      filterId = undefined;
      if (/not found/.test((e as Error).message) && restarts > 0) return; // forgotten by a restart, as in geth
      throw e;
    }
  }),
);

/** WebSocket clients, subscribed to newHeads (and every other one to the contract's logs); they reconnect after a restart. */
const sockets = new Set<WebSocket>();
/** notifications received by all clients (per sample) */
let notifications = 0;
const notesPerSample: number[] = [];
function wsClient(i: number): void {
  if (!running) return;
  const ws = new WebSocket(url.replace('http', 'ws'));
  sockets.add(ws);
  let t0 = 0;
  ws.on('open', () => {
    t0 = performance.now();
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    if (i % 2 === 0) ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['logs', { address: contract }] }));
  });
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString()) as { id?: number; error?: { message: string }; method?: string };
    if (m.error) {
      kinds.ws.errors++;
      kinds.ws.lastError = m.error.message;
    } else if (m.id !== undefined) kinds.ws.latencies.push(performance.now() - t0);
    else if (m.method === 'eth_subscription') notifications++;
  });
  ws.on('error', () => {});
  ws.on('close', () => {
    sockets.delete(ws);
    if (!down && running) {
      kinds.ws.errors++;
      kinds.ws.lastError = 'closed while the node was up';
    }
    setTimeout(() => wsClient(i), 500);
  });
}
if (enabled(kinds.ws)) for (let i = 0; i < WS_CLIENTS; i++) wsClient(i);

// ------------------------------------------------------------------ restarts and samples

async function restart(): Promise<void> {
  const signal = restarts % 2 === 0 ? 'TERM' : 'KILL';
  down = true;
  const t0 = performance.now();
  if (signal === 'KILL') process.kill(node.pid, 'SIGKILL');
  await node.stop(30_000);
  node = await start();
  restarts++;
  pendingRestart = signal;
  log(`restart ${restarts} (SIG${signal}): answering again after ${(performance.now() - t0).toFixed(0)} ms`);
  await sleep(1000); // WebSockets reconnect
  down = false;
}

/** V8's heap in use and committed and its external memory (Buffers, typed arrays), from the node's /metrics. */
async function v8MiB(): Promise<{ heap: number; heapTotal: number; external: number }> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
    return { heap: read('nodejs_heap_size_used_bytes'), heapTotal: read('nodejs_heap_size_total_bytes'), external: read('nodejs_external_memory_bytes') };
  } catch {
    return { heap: NaN, heapTotal: NaN, external: NaN };
  }
}

const samples: SoakSample[] = [];
const t0 = performance.now();
const endAt = t0 + MINUTES * 60_000;
let nextRestart = t0 + RESTART_S * 1000;
log(`load running for ${MINUTES} min; a sample every ${SAMPLE_S} s, a restart every ${RESTART_S / 60} min`);
while (performance.now() < endAt) {
  await sleep(SAMPLE_S * 1000);
  if (performance.now() >= nextRestart && performance.now() + 60_000 < endAt) {
    await restart();
    nextRestart = performance.now() + RESTART_S * 1000;
  }
  const s: SoakSample = {
    t: Math.round((performance.now() - t0) / 1000),
    rssMiB: rssMiB(node.pid),
    anonMiB: rssMiB(node.pid, 'RssAnon'),
    ...(await v8MiB().then((m) => ({ heapMiB: m.heap, heapTotalMiB: m.heapTotal, externalMiB: m.external }))),
    kinds: Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, v.take()])),
    restart: pendingRestart,
  };
  pendingRestart = '';
  samples.push(s);
  notesPerSample.push(notifications);
  notifications = 0;
  const worst = Object.entries(kinds).filter(([, k]) => k.lastError).map(([n, k]) => `${n}: ${k.lastError}`);
  log(`t=${s.t}s notifications=${notesPerSample.at(-1)} rss=${s.rssMiB.toFixed(0)}MiB anon=${s.anonMiB.toFixed(0)}MiB heap=${s.heapMiB.toFixed(0)}/${s.heapTotalMiB.toFixed(0)}MiB external=${s.externalMiB.toFixed(0)}MiB ` + Object.entries(s.kinds).map(([k, v]) => `${k} ${v.n}/${fmtMs(v.p99)}${v.errors ? ` ${v.errors}err` : ''}`).join(' ') + (worst.length ? ` (last: ${worst.join('; ')})` : ''));
  for (const k of Object.values(kinds)) k.lastError = '';
}
running = false;
for (const ws of sockets) ws.terminate();
await Promise.all(loops);
const head = BigInt(await client.call('eth_blockNumber', []));
client.close();
await node.stop(30_000);
rmSync(work, { recursive: true, force: true });
rmSync(dist, { recursive: true, force: true });

// ------------------------------------------------------------------ results

function fmtMs(v: number): string {
  return Number.isFinite(v) ? `${v.toFixed(1)}ms` : '-';
}
const kindNames = Object.keys(kinds);
const csv = [
  ['t_s', 'rss_mib', 'anon_mib', 'heap_mib', 'heap_total_mib', 'external_mib', 'restart', 'ws_notifications', ...kindNames.flatMap((k) => [`${k}_n`, `${k}_p50_ms`, `${k}_p99_ms`, `${k}_errors`])].join(','),
  ...samples.map((s, i) => [s.t, s.rssMiB.toFixed(1), s.anonMiB.toFixed(1), s.heapMiB.toFixed(1), s.heapTotalMiB.toFixed(1), s.externalMiB.toFixed(1), s.restart, notesPerSample[i], ...kindNames.flatMap((k) => [s.kinds[k]!.n, s.kinds[k]!.p50.toFixed(2), s.kinds[k]!.p99.toFixed(2), s.kinds[k]!.errors])].join(',')),
].join('\n');
mkdirSync(dirname(outPrefix), { recursive: true });
writeFileSync(`${outPrefix}.csv`, csv + '\n');

/** least-squares slope of y over t, per hour */
function slopePerHour(points: [number, number][]): number {
  const ok = points.filter(([, y]) => Number.isFinite(y));
  const n = ok.length;
  const mt = ok.reduce((a, [t]) => a + t, 0) / n;
  const my = ok.reduce((a, [, y]) => a + y, 0) / n;
  const num = ok.reduce((a, [t, y]) => a + (t - mt) * (y - my), 0);
  const den = ok.reduce((a, [t]) => a + (t - mt) ** 2, 0);
  return den === 0 ? 0 : (num / den) * 3600;
}
/** what RSS holds beyond V8: malloc's heap (LMDB, uWS, V8's own bookkeeping), thread stacks */
const nativeMiB = (s: SoakSample) => s.anonMiB - s.heapTotalMiB - s.externalMiB;
const median = (v: number[]) => {
  const s = v.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
};
// the trend after the first restart (or, without one, after 5 minutes): before it the process still grows into its working set
const settled = samples.filter((s) => s.t >= (restarts > 0 ? RESTART_S + 60 : 300));
const after = restarts > 0 ? 'after the first restart' : 'after the first 5 min';
const firstAfterLabel = restarts > 0 ? 'first 5 min after the first restart' : 'minutes 5-10';
const tail = samples.slice(-Math.max(3, Math.round(300 / SAMPLE_S)));
const firstAfter = settled.slice(0, Math.max(3, Math.round(300 / SAMPLE_S)));
const lines = [
  `soak: ${MINUTES} min, ${restarts} restarts${restarts > 0 ? ' (SIGTERM and SIGKILL alternating)' : ''}, ${samples.length} samples of ${SAMPLE_S} s, head #${head}; ${cpus().length} cores shared with other work (load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end)`,
  `RSS MiB: median ${median(samples.map((s) => s.rssMiB)).toFixed(0)}, max ${Math.max(...samples.map((s) => s.rssMiB)).toFixed(0)}; ${firstAfterLabel} ${median(firstAfter.map((s) => s.rssMiB)).toFixed(0)}, last 5 min ${median(tail.map((s) => s.rssMiB)).toFixed(0)}; slope ${after} ${slopePerHour(settled.map((s) => [s.t, s.rssMiB])).toFixed(1)} MiB/h`,
  `RSS anonymous MiB (the process's own; the rest maps LMDB's growing file): median ${median(samples.map((s) => s.anonMiB)).toFixed(0)}, max ${Math.max(...samples.map((s) => s.anonMiB)).toFixed(0)}; ${firstAfterLabel} ${median(firstAfter.map((s) => s.anonMiB)).toFixed(0)}, last 5 min ${median(tail.map((s) => s.anonMiB)).toFixed(0)}; slope ${after} ${slopePerHour(settled.map((s) => [s.t, s.anonMiB])).toFixed(1)} MiB/h`,
  `heap MiB: median ${median(samples.map((s) => s.heapMiB)).toFixed(0)}, max ${Math.max(...samples.map((s) => s.heapMiB).filter(Number.isFinite)).toFixed(0)}; slope ${after} ${slopePerHour(settled.map((s) => [s.t, s.heapMiB])).toFixed(1)} MiB/h; external (Buffers) median ${median(samples.map((s) => s.externalMiB)).toFixed(0)}, slope ${slopePerHour(settled.map((s) => [s.t, s.externalMiB])).toFixed(1)} MiB/h`,
  `heap committed MiB (used, free pages, the young generation's reserve): median ${median(samples.map((s) => s.heapTotalMiB)).toFixed(0)}, slope ${after} ${slopePerHour(settled.map((s) => [s.t, s.heapTotalMiB])).toFixed(1)} MiB/h; native (anonymous − committed heap − external): median ${median(samples.map(nativeMiB)).toFixed(0)}, slope ${slopePerHour(settled.map((s) => [s.t, nativeMiB(s)])).toFixed(1)} MiB/h`,
  ...kindNames.map((k) => {
    const t = kinds[k as keyof typeof kinds].totals;
    const p99s = samples.map((s) => s.kinds[k]!.p99).filter(Number.isFinite);
    const notes = k === 'ws' ? ` (subscription answers), ${notesPerSample.reduce((a, b) => a + b, 0)} notifications received` : '';
    return `${k}: ${t.n} answers${notes}, ${t.errors} errors, ${t.expected} failures while down; p50 of sample p50s ${median(samples.map((s) => s.kinds[k]!.p50)).toFixed(1)} ms, p99 per sample median ${median(p99s).toFixed(1)} ms, max ${Math.max(...p99s).toFixed(1)} ms`;
  }),
];
writeFileSync(`${outPrefix}.md`, lines.map((l) => `- ${l}`).join('\n') + '\n');
writeFileSync(svgFile, renderSoakChart(samples, `${new Date().toISOString().slice(0, 10)} · ${cpus().length} cores shared with other work · ${lines[1]!.split(';')[0]}`));
process.stdout.write(lines.join('\n') + `\nwrote ${outPrefix}.csv, ${outPrefix}.md, ${svgFile}\n`);
process.exit(0);
