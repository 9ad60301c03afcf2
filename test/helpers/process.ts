// Runs the real `chain-node` command line in a child process (for restart and signal tests).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

export interface NodeProcess {
  child: ChildProcess;
  url: string;
  startLine: string;
  output(): string;
  /** resolves with the exit code (or signal) */
  exited: Promise<number | string>;
}

/**
 * How long a child may take before a test gives up on it: generous, since a child compiles the
 * sources through tsx first (seconds on a quiet machine, tens of seconds on a busy one). A child
 * stopped at this bound is reported with everything it printed.
 */
export const CHILD_TIMEOUT_MS = 90_000;

/**
 * The sources through tsx, as tests run them; `entry` may name another program (the bundle: test/bundle.test.ts).
 * `wrapper`: a command that execs node in its place, e.g. `prlimit --nofile=256:256` (test/rpc-connections.test.ts).
 */
export async function spawnNode(args: string[], timeoutMs = CHILD_TIMEOUT_MS, entry: string[] = ['--import', 'tsx', CLI], wrapper: string[] = []): Promise<NodeProcess> {
  const [command, ...before] = [...wrapper, process.execPath];
  const child = spawn(command!, [...before, ...entry, ...freeP2pPort(args)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const startLine = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node did not start within ${timeoutMs} ms; it printed:\n${out}`));
    }, timeoutMs);
    const check = () => {
      const line = out.split('\n').find((l) => l.includes('serving JSON-RPC on'));
      if (line) {
        clearTimeout(timer);
        resolve(line);
      }
    };
    child.stdout!.on('data', check);
    exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`node exited before starting:\n${out}`));
    });
  });
  const url = /on (http:\/\/\S+)/.exec(startLine)![1]!;
  return { child, url, startLine, output: () => out, exited };
}

/** A node started by a test listens for peers on a free port unless the test names one: tests run side by side, and 16791 (the default) is one port. */
function freeP2pPort(args: string[]): string[] {
  return args.includes('--p2p.port') ? args : [...args, '--p2p.port', '0'];
}

export async function rpcCall(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

export interface CliRun {
  /** exit code, the signal that ended it, or 'started' when it came up serving (it is then stopped) */
  exit: number | string;
  output: string;
}

/**
 * Runs `chain-node args` to its end: a command (db check, export, import, admin), or a start expected to fail.
 * A child still running after `timeoutMs` is killed; its exit then reads `timeout after N ms` and its output ends with a line saying so.
 */
export function runCli(args: string[], opts: { timeoutMs?: number; uid?: number; gid?: number } = {}): Promise<CliRun> {
  const command = ['db', 'admin', 'export', 'import'].includes(args[0]!) ? args : freeP2pPort(args);
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...command], { stdio: ['ignore', 'pipe', 'pipe'], uid: opts.uid, gid: opts.gid });
  let output = '';
  return new Promise((resolve) => {
    let started = false;
    let timedOut = false;
    const timeoutMs = opts.timeoutMs ?? CHILD_TIMEOUT_MS;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const read = (d: Buffer) => {
      output += d;
      if (!started && output.includes('serving JSON-RPC on')) {
        started = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    // 'close', not 'exit': the output is complete only once the pipes are closed
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) resolve({ exit: `timeout after ${timeoutMs} ms`, output: `${output}\n[runCli] killed: still running after ${timeoutMs} ms (chain-node ${args.join(' ')})` });
      else resolve({ exit: started ? 'started' : (code ?? signal ?? -1), output });
    });
  });
}
