// Load generators. wrk (C, Debian's `wrk`) drives the request-rate rows when it is installed;
// otherwise a keep-alive Node client in a worker thread does (slower: it competes for the CPU).
import { spawnSync, execFileSync } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export function hasWrk(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

export interface RateResult {
  reqPerSec: number;
  p50ms?: number;
  errors: number;
  tool: string;
}

/** POSTs `body` over `connections` keep-alive connections for `seconds`. */
export async function measureRate(url: string, body: string, connections: number, seconds: number): Promise<RateResult> {
  if (hasWrk()) return wrkRate(url, body, connections, seconds);
  return nodeRate(url, body, connections, seconds);
}

function wrkRate(url: string, body: string, connections: number, seconds: number): RateResult {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const script = join(dir, 'post.lua');
  writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n` +
      `done = function(summary, latency, requests)\n  io.write(string.format("RESULT %f %f %d\\n", summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))\nend\n`,
  );
  const out = execFileSync('wrk', ['-t', '2', '-c', String(connections), '-d', `${seconds}s`, '-s', script, url], { encoding: 'utf8' });
  const m = /RESULT (\S+) (\S+) (\d+)/.exec(out);
  if (!m) throw new Error(`wrk output not understood:\n${out}`);
  return { reqPerSec: Number(m[1]), p50ms: Number(m[2]), errors: Number(m[3]), tool: 'wrk' };
}

async function nodeRate(url: string, body: string, connections: number, seconds: number): Promise<RateResult> {
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: workerData.connections });
    const u = new URL(workerData.url);
    let count = 0, errors = 0; const end = Date.now() + workerData.seconds * 1000;
    function one() {
      if (Date.now() > end) return Promise.resolve();
      return new Promise((resolve) => {
        const req = http.request({ host: u.hostname, port: u.port, path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume(); res.on('end', () => { if (res.statusCode === 200) count++; else errors++; resolve(); });
        });
        req.on('error', () => { errors++; resolve(); });
        req.end(workerData.body);
      }).then(one);
    }
    Promise.all(Array.from({ length: workerData.connections }, one)).then(() => { parentPort.postMessage({ count, errors }); agent.destroy(); });
  `;
  const w = new Worker(code, { eval: true, workerData: { url, body, connections, seconds } });
  const { count, errors } = await new Promise<{ count: number; errors: number }>((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
  await w.terminate();
  return { reqPerSec: count / seconds, errors, tool: 'node client' };
}
