// Load generators. wrk (C, Debian's `wrk`) drives the request-rate rows when it is installed;
// otherwise a keep-alive Node client in a worker thread does (slower: it competes for the CPU).
// Either way the same generator drives every node of a run, so the figures compare.
import { spawnSync, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** In a request body: replaced by a fresh 32-byte hex word (64 digits) in every request. */
export const VARY = '__VARY__';

/** 8 hex digits, new for every run, that a varied word starts with (small enough that get(a) = x + a never overflows). */
const salt = () => Math.floor(Math.random() * 0xffffffff).toString(16).padStart(8, '0');

export function hasWrk(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

/** "wrk 4.1.0" or "node client". */
export function loadGeneratorName(): string {
  if (!hasWrk()) return 'node client (worker thread)';
  const r = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  return /wrk \S+/.exec(`${r.stdout}${r.stderr}`)?.[0] ?? 'wrk';
}

export interface RateResult {
  reqPerSec: number;
  p50ms?: number;
  /** transport errors and non-200 answers (JSON-RPC errors are checked separately: they are 200s) */
  errors: number;
  tool: string;
}

/** POSTs `body` (with VARY replaced per request, if present) over `connections` keep-alive connections for `seconds`. */
export async function measureRate(url: string, body: string, connections: number, seconds: number): Promise<RateResult> {
  if (hasWrk()) return wrkRate(url, body, connections, seconds);
  return nodeRate(url, body, connections, seconds);
}

/** Lua for wrk: a static body, or a `request()` that builds each body with a word unique per thread and request. */
function wrkScript(body: string): string {
  const head = `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n`;
  const done =
    `done = function(summary, latency, requests)\n` +
    `  io.write(string.format("RESULT %f %f %d\\n", summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,` +
    ` summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))\nend\n`;
  const at = body.indexOf(VARY);
  if (at < 0) return `${head}wrk.body = ${JSON.stringify(body)}\n${done}`;
  const pre = JSON.stringify(body.slice(0, at));
  const post = JSON.stringify(body.slice(at + VARY.length));
  // setup() runs once per thread in the main Lua state and hands each thread its own id (a global
  // in that thread's state); the word is 40 zero digits, 8 digits of salt new for every run (so
  // repeated runs against one node never send a word twice), 8 digits thread id, 8 digits counter.
  return (
    `${head}local threads = 0\nfunction setup(thread)\n  thread:set("tid", threads)\n  threads = threads + 1\nend\n` +
    `local n = 0\nlocal zeros = string.rep("0", 40) .. "${salt()}"\n` +
    `function request()\n  n = n + 1\n  return wrk.format(nil, nil, nil, ${pre} .. zeros .. string.format("%08x%08x", tid, n) .. ${post})\nend\n${done}`
  );
}

async function wrkRate(url: string, body: string, connections: number, seconds: number): Promise<RateResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  try {
    const script = join(dir, 'post.lua');
    writeFileSync(script, wrkScript(body));
    // wrk stops by itself after -d; the timeout is the backstop for a server that stops answering
    // asynchronous: the harness's own event loop (WebSocket clients, an in-process server) keeps running
    const { stdout: out } = await promisify(execFile)('wrk', ['-t', '2', '-c', String(connections), '-d', `${seconds}s`, '--timeout', '5s', '-s', script, url], {
      encoding: 'utf8',
      timeout: (seconds + 30) * 1000,
    });
    const m = /RESULT (\S+) (\S+) (\d+)/.exec(out);
    if (!m) throw new Error(`wrk output not understood:\n${out}`);
    return { reqPerSec: Number(m[1]), p50ms: Number(m[2]), errors: Number(m[3]), tool: 'wrk' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function nodeRate(url: string, body: string, connections: number, seconds: number): Promise<RateResult> {
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: workerData.connections });
    const u = new URL(workerData.url);
    const at = workerData.body.indexOf(workerData.vary);
    const pre = at < 0 ? workerData.body : workerData.body.slice(0, at);
    const post = at < 0 ? '' : workerData.body.slice(at + workerData.vary.length);
    let count = 0, errors = 0, n = 0; const end = Date.now() + workerData.seconds * 1000;
    function one() {
      if (Date.now() > end) return Promise.resolve();
      const body = at < 0 ? pre : pre + workerData.salt + (++n).toString(16).padStart(56, '0') + post;
      return new Promise((resolve) => {
        const req = http.request({ host: u.hostname, port: u.port, path: '/', method: 'POST', agent, timeout: 5000, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume(); res.on('end', () => { if (res.statusCode === 200) count++; else errors++; resolve(); });
        });
        req.on('timeout', () => req.destroy());
        req.on('error', () => { errors++; resolve(); });
        req.end(body);
      }).then(one);
    }
    Promise.all(Array.from({ length: workerData.connections }, one)).then(() => { parentPort.postMessage({ count, errors }); agent.destroy(); });
  `;
  const w = new Worker(code, { eval: true, workerData: { url, body, connections, seconds, vary: VARY, salt: salt() } });
  const { count, errors } = await new Promise<{ count: number; errors: number }>((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
  await w.terminate();
  return { reqPerSec: count / seconds, errors, tool: 'node client' };
}
