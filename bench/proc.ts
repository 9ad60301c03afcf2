// Server processes under test: start one on a loopback port and time it until its first JSON-RPC
// answer, read its CPU time and resident memory from /proc (Linux), stop it (or kill it when it hangs).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { request } from 'node:http';

const TICK_US = 1e6 / 100; // USER_HZ is 100 on Linux

/** user + system CPU of `pid` in microseconds. */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

export function rssMiB(pid: number, field: 'VmRSS' | 'RssAnon' = 'VmRSS'): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN; // the process is gone
  }
}

/** A port nobody listens on right now (the OS picks it; released before the server takes it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Server {
  name: string;
  url: string;
  pid: number;
  /** spawn → first answered eth_blockNumber */
  startupMs: number;
  /** SIGTERM, then SIGKILL when it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface ServerCommand {
  cmd: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

const PROBE = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}';

/** One POST of the probe; resolves true when an HTTP answer came back. */
function probe(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, timeout: 1000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end(PROBE);
  });
}

/**
 * Spawns the server (it must listen on 127.0.0.1:`port`) and polls it every 5 ms until it answers,
 * for at most `timeoutMs`. The same rule for every node, so start-up figures compare.
 */
export async function startServer(name: string, port: number, c: ServerCommand, timeoutMs = 60_000): Promise<Server> {
  const t0 = performance.now();
  const child: ChildProcess = spawn(c.cmd, c.args, { cwd: c.cwd, env: c.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString('utf8')).slice(-4000);
  });
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) => child.once('exit', (code) => ((exited = code), resolve())));
  for (;;) {
    if (exited !== undefined) throw new Error(`${name} exited (${exited}) before answering:\n${stderr}`);
    if (performance.now() - t0 > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not answer within ${timeoutMs} ms:\n${stderr}`);
    }
    if (await probe(port)) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const startupMs = performance.now() - t0;
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    startupMs,
    async stop(graceMs = 10_000) {
      if (exited !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exit;
      clearTimeout(timer);
    },
  };
}
