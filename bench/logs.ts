// eth_getLogs latency over 1,000 blocks with one log each (issue 6 targets: p50 ≤ 5 ms when every
// block's log matches the address, ≤ 1 ms when none does — the bloom skip), and the WebSocket
// fan-out while those blocks are sealed (issue 8: newHeads to 100 subscribers). Run on its own:
//   node --import tsx bench/logs.ts [--rounds N] [--bundle | --entry PATH] [--fanout N] [--node-flags "--http.threads 0"]
//                                   [--transport uws|node] [--prof DIR]
// It starts our node in a child process on a fresh datadir (through tsx, with --bundle the esbuild
// bundle npm run bench runs — build it first with `node scripts/build.mjs` —, or with --entry another
// built launcher, e.g. of an older tree for an A/B), makes the blocks with the shared workload
// (bench/workload.ts) while N clients (default 100, as run.ts) are subscribed to newHeads, and prints
// the figures with the server's CPU per block and per request (steadier than wall time on a busy
// machine). --prof DIR runs the server with --cpu-prof into DIR. measureLogsByAddress() is what
// run.ts calls.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RpcClient } from './ingest.ts';
import { cpuMicros, freePort, startServer } from './proc.ts';
import { makeLogBlocks, prepare } from './workload.ts';
import { awaitDelivery, subscribeNewHeads, type Subscribers } from './fanout.ts';
import { benchGenesis } from './genesis.ts';
import { hexToBytes } from '../src/util/hex.ts';

export interface LatencyStats {
  p50ms: number;
  p90ms: number;
  logs: number;
  /** user + system CPU of the server per request (when its pid was given) */
  cpuMs?: number;
}

export interface LogsByAddress {
  matching: LatencyStats;
  notMatching: LatencyStats;
  /** the matching answer as sent (for the transfer floor) */
  matchingAnswer: string;
}

/**
 * `rounds` sequential POSTs of `body` (after 5 warm-up rounds): latency percentiles and the last
 * answer. A request's latency runs from sending it to its answer's last byte, as wrk times the rate
 * rows; the answers are checked after the timed rounds (parsing 455 KiB of JSON took this client
 * 1.5–3 ms, more inside the bench's own large process, the same for every node).
 */
async function latency(url: string, body: string, rounds: number, pid?: number): Promise<LatencyStats & { answer: string }> {
  const client = new RpcClient(url, 1);
  try {
    const times: number[] = [];
    const sizes = new Set<number>();
    let last: Buffer | undefined;
    let cpu0 = 0;
    for (let i = 0; i < rounds + 5; i++) {
      if (i === 5 && pid !== undefined) cpu0 = cpuMicros(pid);
      const t0 = performance.now();
      last = (await client.postRaw(body)).bytes;
      if (i >= 5) times.push(performance.now() - t0); // the first rounds warm caches and the JIT
      sizes.add(last.length);
    }
    const cpuMs = pid === undefined ? undefined : (cpuMicros(pid) - cpu0) / rounds / 1000;
    // every answer the same size as the last, which is whole JSON with the expected result
    if (sizes.size !== 1) throw new Error(`eth_getLogs answers of ${sizes.size} different sizes: ${[...sizes].join(', ')} bytes`);
    const answer = JSON.parse(last!.toString('utf8'));
    if (!Array.isArray(answer.result)) throw new Error(`eth_getLogs failed: ${JSON.stringify(answer.error)}`);
    times.sort((a, b) => a - b);
    return { p50ms: times[Math.floor(times.length / 2)]!, p90ms: times[Math.floor(times.length * 0.9)]!, logs: answer.result.length, cpuMs, answer: JSON.stringify(answer) };
  } finally {
    client.close();
  }
}

/**
 * Sequential eth_getLogs over `range`: the contract's address (a log in every block) and an address
 * with none. With the server's pid the stats carry its CPU per request.
 */
export async function measureLogsByAddress(url: string, contract: string, range: { from: string; to: string }, rounds: number, pid?: number): Promise<LogsByAddress> {
  const query = (address: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ fromBlock: range.from, toBlock: range.to, address }] });
  const { answer, ...matching } = await latency(url, query(contract), rounds, pid);
  const { answer: _none, ...notMatching } = await latency(url, query('0x' + '5a'.repeat(20)), rounds, pid);
  return { matching, notMatching, matchingAnswer: answer };
}

/** A bare node:http server answering every POST with the bytes of `file`: the transfer + parse floor. */
const FLOOR_SERVER = `
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
const body = readFileSync(process.argv[2]);
createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }); res.end(body); });
}).listen(Number(process.argv[1]), '127.0.0.1');
`;

const BLOCKS = 1000;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const option = (name: string): string | undefined => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const rounds = Number(option('--rounds') ?? 200);
  const fanout = Number(option('--fanout') ?? 100);
  const transport = option('--transport');
  const prof = option('--prof');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'chain-node-bench-logs-'));
  const funder = hexToBytes('0x' + 'be'.repeat(32));
  const nodeKeyHex = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
  writeFileSync(join(dir, 'nodekey'), nodeKeyHex);
  writeFileSync(
    join(dir, 'genesis.in.json'),
    JSON.stringify(benchGenesis(nodeKeyHex, funder, 0)),
  );
  const port = await freePort();
  const launcher = option('--entry');
  const entry = launcher !== undefined ? [launcher] : argv.includes('--bundle') ? ['dist/chain-node.mjs'] : ['--import', 'tsx', 'src/cli.ts'];
  const nodeFlags = prof === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', prof];
  const args = [...nodeFlags, ...entry, '--datadir', dir, '--genesis', join(dir, 'genesis.in.json'), '--http.port', String(port), '--p2p.port', '0', '--verbosity', '1', '--rpc.checkresults', 'false'];
  if (transport !== undefined) args.push('--http.transport', transport);
  args.push(...(option('--node-flags') ?? '').split(' ').filter(Boolean));
  const server = await startServer('chain-node', port, { cmd: process.execPath, args, cwd: root });
  let subs: Subscribers | undefined;
  try {
    const p = await prepare(server.url, funder, [], { contract: true, checkDevAccount: false });
    if (fanout > 0) subs = await subscribeNewHeads(server.url.replace(/^http/, 'ws'), fanout);
    const cpu0 = cpuMicros(server.pid);
    const own0 = process.cpuUsage();
    const t0 = performance.now();
    const range = await makeLogBlocks(server.url, p, BLOCKS, 600_000);
    // as run.ts: until every subscriber has every header
    const delivered = subs ? await awaitDelivery(subs, BigInt(range.from), BigInt(range.to), 10_000) : { at: performance.now(), incomplete: 0 };
    const madeS = (delivered.at - t0) / 1000;
    const cpuPerBlockMs = (cpuMicros(server.pid) - cpu0) / BLOCKS / 1000;
    // this process: the block-making client and the subscribers, which are on the critical path too
    const own = process.cpuUsage(own0);
    const ownPerBlockMs = (own.user + own.system) / BLOCKS / 1000;
    subs?.close();
    const r = await measureLogsByAddress(server.url, p.contract!, range, rounds, server.pid);
    await server.stop();
    writeFileSync(join(dir, 'answer.json'), r.matchingAnswer);
    const floorPort = await freePort();
    const floor = await startServer('floor', floorPort, { cmd: process.execPath, args: ['--input-type=module', '-e', FLOOR_SERVER, String(floorPort), join(dir, 'answer.json')] });
    const f = await latency(floor.url, '{}', rounds, floor.pid).finally(() => floor.stop());
    const cpu = (s: LatencyStats) => (s.cpuMs === undefined ? '—' : `${s.cpuMs.toFixed(2)} ms`);
    const row = (name: string, s: LatencyStats, target: number) =>
      `| ${name} | ${s.p50ms.toFixed(2)} ms | ${s.p90ms.toFixed(2)} ms | ${cpu(s)} | ${s.logs} | ≤ ${target} ms ${s.p50ms <= target ? 'met' : 'MISSED'} |`;
    process.stdout.write(
      [
        `${BLOCKS} blocks made one at a time (one log each) with ${fanout} newHeads subscribers: ${(BLOCKS / madeS).toFixed(0)} blocks/s delivered to every client` +
          `${delivered.incomplete ? ` (${delivered.incomplete} clients missed headers)` : ''}, server CPU ${cpuPerBlockMs.toFixed(2)} ms per block (the clients' ${ownPerBlockMs.toFixed(2)} ms).`,
        '',
        `eth_getLogs over ${BLOCKS} blocks (${range.from}…${range.to}), ${rounds} sequential requests per row, keep-alive HTTP, node ${entry.at(-1)}${transport ? ` (--http.transport ${transport})` : ''}:`,
        '',
        '| address | p50 | p90 | server CPU per request | logs | target |',
        '|---|---|---|---|---|---|',
        row('matching (the contract)', r.matching, 5),
        row('not matching', r.notMatching, 1),
        `| floor: bare node:http sending the matching answer's ${(r.matchingAnswer.length / 1024).toFixed(0)} KiB, precomputed | ${f.p50ms.toFixed(2)} ms | ${f.p90ms.toFixed(2)} ms | ${cpu(f)} | ${f.logs} | — |`,
        '',
      ].join('\n'),
    );
  } finally {
    subs?.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
}
