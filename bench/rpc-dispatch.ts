// Micro-benchmark of src/rpc: what the dispatcher (envelope, routing, param validation, result
// check) and our transport (the default: uWebSockets.js where it loads, A13) cost over bare
// node:http doing the same JSON parse + stringify, and what --metrics' request observer adds to it. bench/transport.ts compares the two transports.
//
//   node --import tsx bench/rpc-dispatch.ts [seconds-per-run=4] [rounds=3]
//
// The server runs in this process; the load comes from another process (wrk, 1 thread, 32 keep-
// alive connections; a Node keep-alive client in a child process when wrk is not installed), so
// process.cpuUsage() here is the server's CPU alone. Rows are medians over the rounds, with the
// configurations interleaved so drift in machine load hits all of them alike.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { Dispatcher } from '../src/rpc/dispatch.ts';
import { startRpcServer } from '../src/rpc/server.ts';
import type { MethodSpec, Validate } from '../src/rpc/types.ts';
import { Registry } from 'prom-client';
import { RpcMeters } from '../src/node/metrics.ts';

const SECONDS = Number(process.argv[2] ?? 4);
const ROUNDS = Number(process.argv[3] ?? 3);
const CONNECTIONS = 32;

const VERSION = 'chain-node/v0.1.0/linux-x64/node20';
const ADDR = '0x407d73d8a49eeb85d32cf465507dd71d507100c1';
const BODIES = {
  clientVersion: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'web3_clientVersion', params: [] }),
  getBalance: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [ADDR, 'latest'] }),
};

// ------------------------------------------------------------------ servers

/** A small real method table: ajv-compiled validators shaped like the generated ones. */
function table(): Map<string, MethodSpec> {
  const ajv = new Ajv({ strict: false, allErrors: false });
  ajv.addSchema({
    $id: 'urn:bench:rpc',
    components: {
      schemas: {
        Address: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
        Quantity: { type: 'string', pattern: '^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$' },
        BlockTag: { type: 'string', enum: ['earliest', 'latest', 'pending'] },
        BlockNumberOrTag: {
          oneOf: [{ $ref: '#/components/schemas/Quantity' }, { $ref: '#/components/schemas/BlockTag' }, { type: 'integer', minimum: 0 }],
        },
      },
    },
  });
  const ref = (n: string): Validate => ajv.compile({ $ref: `urn:bench:rpc#/components/schemas/${n}` });
  return new Map<string, MethodSpec>([
    ['web3_clientVersion', { name: 'web3_clientVersion', group: 'web3', key: 'clientVersion', params: [], required: 0, validateParams: [], validateResult: ajv.compile({ type: 'string' }) }],
    ['eth_getBalance', { name: 'eth_getBalance', group: 'eth', key: 'getBalance', params: ['address', 'block'], required: 1, validateParams: [ref('Address'), ref('BlockNumberOrTag')], validateResult: ref('Quantity') }],
  ]);
}

const handlers = {
  web3: { clientVersion: () => VERSION },
  eth: { getBalance: (_address: string, _block: unknown) => '0xde0b6b3a7640000' },
};

interface Running {
  url: string;
  close(): Promise<void>;
}

/** `metered`: with --metrics' request observer (src/node/metrics.ts RpcMeters). */
function dispatcher(checkResults: boolean, metered = false): Dispatcher {
  return new Dispatcher({ methods: table(), handlers, enabledNamespaces: new Set(['web3', 'eth']), checkResults, discover: () => null, observer: metered ? new RpcMeters(new Registry()) : undefined });
}

async function ours(checkResults: boolean, metered = false): Promise<Running> {
  const s = await startRpcServer({ dispatcher: dispatcher(checkResults, metered), port: 0 });
  return { url: s.url, close: () => s.close() };
}

/** Bare node:http: read the body, JSON.parse it, answer JSON.stringify({jsonrpc, id, result}). */
async function bare(): Promise<Running> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown; method: string };
      const result = msg.method === 'web3_clientVersion' ? VERSION : '0xde0b6b3a7640000';
      const body = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

// ------------------------------------------------------------------ load

interface Load {
  requests: number;
  errors: number;
  seconds: number;
}

const hasWrk = spawnSync('wrk', ['--version']).error === undefined;

/** Runs the load generator as a child process (never blocking this event loop: it is the server). */
function load(url: string, body: string, seconds: number): Promise<Load> {
  const [cmd, args] = hasWrk ? wrkCommand(url, body, seconds) : nodeCommand(url, body, seconds);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.on('error', reject);
    child.on('close', () => {
      const m = /RESULT (\d+) (\d+) ([\d.]+)/.exec(out);
      if (!m) return reject(new Error(`load generator output not understood:\n${out}`));
      resolve({ requests: Number(m[1]), errors: Number(m[2]), seconds: Number(m[3]) });
    });
  });
}

function wrkCommand(url: string, body: string, seconds: number): [string, string[]] {
  const script = join(mkdtempSync(join(tmpdir(), 'rpc-bench-')), 'post.lua');
  writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n` +
      'done = function(s, latency, requests)\n' +
      '  local e = s.errors.connect + s.errors.read + s.errors.write + s.errors.status + s.errors.timeout\n' +
      '  io.write(string.format("RESULT %d %d %f\\n", s.requests, e, s.duration / 1e6))\nend\n',
  );
  return ['wrk', ['-t', '1', '-c', String(CONNECTIONS), '-d', `${seconds}s`, '-s', script, url]];
}

function nodeCommand(url: string, body: string, seconds: number): [string, string[]] {
  const code = `
    const http = require('node:http');
    const [url, body, conns, secs] = process.argv.slice(1);
    const agent = new http.Agent({ keepAlive: true, maxSockets: Number(conns) });
    const u = new URL(url);
    let requests = 0, errors = 0;
    const t0 = Date.now(), end = t0 + Number(secs) * 1000;
    const one = () => Date.now() > end ? Promise.resolve() : new Promise((resolve) => {
      const req = http.request({ host: u.hostname, port: u.port, path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume(); res.on('end', () => { res.statusCode === 200 ? requests++ : errors++; resolve(); });
      });
      req.on('error', () => { errors++; resolve(); });
      req.end(body);
    }).then(one);
    Promise.all(Array.from({ length: Number(conns) }, one)).then(() => {
      console.log('RESULT ' + requests + ' ' + errors + ' ' + (Date.now() - t0) / 1000);
      agent.destroy();
    });`;
  return [process.execPath, ['-e', code, url, body, String(CONNECTIONS), String(seconds)]];
}

// ------------------------------------------------------------------ runs

interface Row {
  name: string;
  body: keyof typeof BODIES;
  start: () => Promise<Running>;
  rps: number[];
  cpuUs: number[];
}

const rows: Row[] = [
  { name: 'bare node:http (parse + stringify)', body: 'clientVersion', start: bare, rps: [], cpuUs: [] },
  { name: 'dispatcher, checkResults off', body: 'clientVersion', start: () => ours(false), rps: [], cpuUs: [] },
  { name: 'dispatcher, checkResults on', body: 'clientVersion', start: () => ours(true), rps: [], cpuUs: [] },
  { name: 'dispatcher, --metrics', body: 'clientVersion', start: () => ours(false, true), rps: [], cpuUs: [] },
  { name: 'bare node:http (parse + stringify)', body: 'getBalance', start: bare, rps: [], cpuUs: [] },
  { name: 'dispatcher, checkResults off', body: 'getBalance', start: () => ours(false), rps: [], cpuUs: [] },
  { name: 'dispatcher, checkResults on', body: 'getBalance', start: () => ours(true), rps: [], cpuUs: [] },
  { name: 'dispatcher, --metrics', body: 'getBalance', start: () => ours(false, true), rps: [], cpuUs: [] },
];

async function measure(row: Row): Promise<void> {
  const server = await row.start();
  try {
    await load(server.url, BODIES[row.body], 1); // warm-up: let the JIT settle before measuring
    const before = process.cpuUsage();
    const r = await load(server.url, BODIES[row.body], SECONDS);
    const cpu = process.cpuUsage(before);
    if (r.errors > 0) console.warn(`  ${row.name}: ${r.errors} errors`);
    row.rps.push(r.requests / r.seconds);
    row.cpuUs.push((cpu.user + cpu.system) / r.requests);
  } finally {
    await server.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * The dispatcher alone, in this process, without sockets: handle(body) against the bare server's
 * JSON.parse + JSON.stringify. Short and single-threaded, so far less disturbed by other load on
 * the machine than the HTTP runs; it isolates exactly what src/rpc adds per request.
 */
async function inProcess(): Promise<void> {
  const ctx = { transport: 'http' as const };
  const d = { off: dispatcher(false), on: dispatcher(true), metered: dispatcher(false, true) };
  const N = 200_000;
  const time = async (fn: () => unknown): Promise<number> => {
    let best = Infinity;
    for (let rep = 0; rep < 5; rep++) {
      const t0 = process.cpuUsage();
      for (let i = 0; i < N; i++) await fn();
      const t = process.cpuUsage(t0);
      best = Math.min(best, (t.user + t.system) / N);
    }
    return best;
  };
  console.log('\nin-process, no sockets (best of 5 × 200k calls), CPU µs per request:');
  for (const body of Object.keys(BODIES) as (keyof typeof BODIES)[]) {
    const text = BODIES[body];
    const bareUs = await time(() => {
      const msg = JSON.parse(text) as { id: unknown; method: string };
      return JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: msg.method === 'web3_clientVersion' ? VERSION : '0xde0b6b3a7640000' });
    });
    const offUs = await time(() => d.off.handle(text, ctx));
    const onUs = await time(() => d.on.handle(text, ctx));
    const meteredUs = await time(() => d.metered.handle(text, ctx));
    console.log(`  ${body.padEnd(14)} bare parse+stringify ${bareUs.toFixed(2)}   dispatcher ${offUs.toFixed(2)} (+${(offUs - bareUs).toFixed(2)})   with checkResults ${onUs.toFixed(2)} (+${(onUs - bareUs).toFixed(2)})   with --metrics ${meteredUs.toFixed(2)} (+${(meteredUs - offUs).toFixed(2)} over the dispatcher)`);
  }
}

console.log(`rpc dispatch benchmark: ${hasWrk ? 'wrk -t1' : 'node keep-alive client'} -c${CONNECTIONS}, ${SECONDS} s per run, ${ROUNDS} rounds, node ${process.version}`);
for (let round = 0; round < ROUNDS; round++) {
  for (const row of rows) await measure(row);
  process.stdout.write(`  round ${round + 1}/${ROUNDS} done\n`);
}

// Other processes on the machine only ever add CPU time and take throughput, so besides the
// median the best run (lowest CPU per request) is shown: it is the least disturbed measurement.
for (const body of Object.keys(BODIES) as (keyof typeof BODIES)[]) {
  const group = rows.filter((r) => r.body === body);
  const base = group[0]!;
  console.log(`\n${body}: ${BODIES[body]}`);
  console.log('  server                               req/s (median)   CPU µs/req median  best   vs bare (median / best)');
  for (const r of group) {
    const cpuMed = median(r.cpuUs);
    const cpuBest = Math.min(...r.cpuUs);
    const pct = (a: number, b: number) => `${((a / b - 1) * 100).toFixed(1)} %`;
    const rel = r === base ? '' : `${pct(cpuMed, median(base.cpuUs)).padStart(7)} / ${pct(cpuBest, Math.min(...base.cpuUs)).padStart(7)}`;
    console.log(`  ${r.name.padEnd(36)} ${median(r.rps).toFixed(0).padStart(8)}        ${cpuMed.toFixed(2).padStart(8)}  ${cpuBest.toFixed(2).padStart(6)}   ${rel}`);
  }
}

await inProcess();
