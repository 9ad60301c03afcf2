// The transport comparison behind decision A13: the bundled node (dist/chain-node.mjs)
// once with --http.transport uws and once with node, and bench/bare-server.ts (bare node:http doing
// the same JSON work) for reference, under wrk (2 threads, 32 keep-alive connections). Per row:
// req/s and the server's CPU per answered request (user + system from /proc), the median over
// rounds in which the servers take turns, so drift in machine load hits all of them alike.
//
//   npm run build && node --import tsx bench/transport.ts [seconds-per-row=5] [rounds=3]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureRate } from './load.ts';
import { cpuMicros, freePort, startServer, type Server } from './proc.ts';
import { checkAnswers } from './workload.ts';

const SECONDS = Number(process.argv[2] ?? 5);
const ROUNDS = Number(process.argv[3] ?? 3);
const CONNECTIONS = 32;
const root = fileURLToPath(new URL('..', import.meta.url));

const body = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

interface Sample {
  reqPerSec: number;
  cpuUsPerReq: number;
}

async function sample(s: Server, reqBody: string): Promise<Sample> {
  await checkAnswers(s.url, reqBody);
  const cpu0 = cpuMicros(s.pid);
  const r = await measureRate(s.url, reqBody, CONNECTIONS, SECONDS);
  const cpu = cpuMicros(s.pid) - cpu0;
  if (r.errors) throw new Error(`${s.name}: ${r.errors} errors`);
  return { reqPerSec: r.reqPerSec, cpuUsPerReq: cpu / (r.reqPerSec * SECONDS) };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), 'chain-node-transport-'));
const servers: Server[] = [];
try {
  const node = async (transport: string) => {
    const port = await freePort();
    const args = ['dist/chain-node.mjs', '--datadir', join(dir, transport), '--http.port', String(port), '--p2p.port', '0', '--http.transport', transport];
    return startServer(`chain-node ${transport}`, port, { cmd: process.execPath, args: [...args, '--verbosity', '1', '--rpc.checkresults', 'false'], cwd: root });
  };
  const uws = await node('uws');
  const nodeHttp = await node('node');
  const barePort = await freePort();
  const bare = await startServer('bare node:http', barePort, { cmd: process.execPath, args: ['--import', 'tsx', 'bench/bare-server.ts', String(barePort)], cwd: root });
  servers.push(uws, nodeHttp, bare);
  const [account] = (await checkAnswers(uws.url, body('eth_accounts', []))) as string[];
  const rows: [string, Server[], string][] = [
    ['web3_clientVersion', [uws, nodeHttp, bare], body('web3_clientVersion', [])],
    ['eth_blockNumber', [uws, nodeHttp], body('eth_blockNumber', [])],
    ['eth_getBalance', [uws, nodeHttp], body('eth_getBalance', [account, 'latest'])],
  ];
  const results = new Map<string, Sample[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [row, targets, reqBody] of rows) {
      for (const s of targets) {
        const r = await sample(s, reqBody);
        const key = `${row}\t${s.name}`;
        results.set(key, [...(results.get(key) ?? []), r]);
        process.stderr.write(`round ${round + 1} ${row} ${s.name}: ${Math.round(r.reqPerSec)} req/s, ${r.cpuUsPerReq.toFixed(1)} µs CPU/req\n`);
      }
    }
  }
  const lines = ['| request | server | req/s | CPU µs/request |', '|---|---|--:|--:|'];
  for (const [key, samples] of results) {
    const [row, name] = key.split('\t');
    lines.push(`| ${row} | ${name} | ${Math.round(median(samples.map((x) => x.reqPerSec))).toLocaleString('en-US')} | ${median(samples.map((x) => x.cpuUsPerReq)).toFixed(1)} |`);
  }
  process.stdout.write(`wrk, ${CONNECTIONS} connections, ${SECONDS} s per row, median of ${ROUNDS} rounds\n\n${lines.join('\n')}\n`);
} finally {
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
