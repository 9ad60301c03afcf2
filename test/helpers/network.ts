// A local network for tests: `npm run network`'s command (src/network-command.ts) as a child
// process on free ports in a temp dir, read through what it prints, stopped by SIGTERM as a user
// stops it. Nodes a test restarts itself (from their printed `command`) are its own to stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decryptKey, type KeyFileV3 } from '../../src/accounts/keystore-v3.ts';
import { signLegacyTx } from '../../src/accounts/signing.ts';
import { makeTxCommon } from '../../src/exec/common.ts';
import { addressOf } from '../../src/crypto/secp256k1.ts';
import { bytesToHex, hexToBytes } from '../../src/util/hex.ts';
import { rpcCall } from './process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COMMAND = join(ROOT, 'src', 'network-command.ts');

/** One JSON line of `npm run network`. */
export interface NetworkNode {
  node: number;
  pid: number;
  http: string;
  ws: string;
  enode: string;
  address: string;
  validator: boolean;
  datadir: string;
  command: string[];
}

export interface NetworkRun {
  child: ChildProcess;
  nodes: NetworkNode[];
  /** stdout and stderr so far */
  output(): string;
  /** resolves with the exit code, or the signal that ended it */
  exited: Promise<number | string>;
  /** SIGTERM, as Ctrl-C; resolves with the exit code (every node it started is then gone) */
  stop(): Promise<number | string>;
}

export function networkDir(): string {
  return mkdtempSync(join(tmpdir(), 'chain-node-network-'));
}

/** Runs the command with `args` (plus free ports) until it prints `network ready`. */
export async function runNetwork(dir: string, args: string[], timeoutMs = 60_000): Promise<NetworkRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', COMMAND, '--dir', dir, '--http.port', '0', '--p2p.port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stdout = '';
  child.stdout!.on('data', (d) => ((out += d), (stdout += d)));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string>((done) => child.on('exit', (code, signal) => done(code ?? signal ?? -1)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  try {
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`no "network ready" within ${timeoutMs / 1000} s:\n${out}`)), timeoutMs);
      child.stdout!.on('data', () => {
        if (stdout.includes('network ready\n')) clearTimeout(timer), ready();
      });
      void exited.then((e) => (clearTimeout(timer), fail(new Error(`the network command exited (${e}) before "network ready":\n${out}`))));
    });
  } catch (e) {
    await stop();
    throw e;
  }
  const nodes = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as NetworkNode);
  return { child, nodes, output: () => out, exited, stop };
}

/** Stops the run and removes its dir, whatever state they are in (for finally blocks). */
export async function cleanUp(run: NetworkRun | undefined, dir: string): Promise<void> {
  await run?.stop();
  rmSync(dir, { recursive: true, force: true });
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` every 100 ms until it resolves truthy; rejects with `what` after `timeoutMs`. */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}


/** The network's funded account's private key, from its key file in node 1's keystore (empty password). */
export async function fundedKey(dir: string): Promise<Uint8Array> {
  const keystore = join(dir, 'node-1', 'keystore');
  const [file] = readdirSync(keystore);
  return decryptKey(JSON.parse(readFileSync(join(keystore, file!), 'utf8')) as KeyFileV3, '');
}

/** The funded account's next nonce on `node` (its governance transactions came first). */
export async function nextNonce(node: NetworkNode, key: Uint8Array): Promise<bigint> {
  return BigInt(await rpcCall(node.http, 'eth_getTransactionCount', [bytesToHex(addressOf(key)), 'pending']));
}

/** A signed 1-wei transfer on the network's chain (id 300): raw hex and hash. */
export function signedTransfer(key: Uint8Array, nonce: bigint, to: string): { raw: string; hash: string } {
  const tx = signLegacyTx({ nonce, gasPrice: 0n, gasLimit: 21_000n, to: hexToBytes(to), value: 1n, data: new Uint8Array(0) }, key, makeTxCommon(300n));
  return { raw: bytesToHex(tx.serialize()), hash: bytesToHex(tx.hash()) };
}

export interface RestartedNode {
  child: ChildProcess;
  output(): string;
  /** SIGTERM; resolves once it has exited */
  stop(): Promise<void>;
}

/** Starts a node again alone, from its printed `command` run from the project root, as a user would; resolves once it answers. */
export async function restartNode(node: NetworkNode): Promise<RestartedNode> {
  const [command, ...args] = node.command;
  const child = spawn(command!, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    const gone = exited.then(() => Promise.reject(new Error(`node ${node.node} exited (${child.exitCode ?? child.signalCode}) instead of answering`)));
    await Promise.race([until(`node ${node.node} to answer again`, async () => (await rpcCall(node.http, 'eth_blockNumber')) !== undefined), gone]);
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${out}`);
  }
  return { child, output: () => out, stop };
}
