// A local network for tests: `npm run network`'s command (src/network-command.ts) as a child
// process on free ports in a temp dir, read through what it prints, stopped by SIGTERM as a user
// stops it. Nodes a test restarts itself (from their printed `command`) are its own to stop —
// or a LocalNetwork's (startLocalNetwork): validators and observers, nodes killed and restarted on
// their datadirs and ports, injected faults per node, and checks across every node's chain.
import { spawn, type ChildProcess } from 'node:child_process';
import { ok as assert } from 'node:assert';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decryptKey, type KeyFileV3 } from '../../src/accounts/keystore-v3.ts';
import { signLegacyTx } from '../../src/accounts/signing.ts';
import { makeTxCommon } from '../../src/tx/common.ts';
import { addressOf } from '../../src/crypto/secp256k1.ts';
import { bytesToHex, hexToBytes } from '../../src/util/hex.ts';
import { CHILD_TIMEOUT_MS, rpcCall } from './process.ts';
import { faultFile } from '../../src/network/node-process.ts';

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

/** Polls `check` every `everyMs` until it resolves truthy; rejects with `what` after `timeoutMs`. */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000, everyMs = 100): Promise<T> {
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
    await new Promise((r) => setTimeout(r, everyMs));
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

/** Resolves with `node`'s receipt of `hash` once it has one. */
export const receiptOn = (node: NetworkNode, hash: string, timeoutMs = 20_000): Promise<any> => until(`the receipt of ${hash} on node ${node.node}`, () => rpcCall(node.http, 'eth_getTransactionReceipt', [hash]), timeoutMs);

/**
 * 1-wei transfers from the network's funded account, its nonces in order, each sent to the nodes a
 * test names (several: a transaction gossip may lose is in every pool anyway): resolves with the hash.
 */
export async function fundedSender(dir: string, first: NetworkNode): Promise<(...via: NetworkNode[]) => Promise<string>> {
  const key = await fundedKey(dir);
  let nonce = await nextNonce(first, key);
  return async (...via) => {
    const tx = signedTransfer(key, nonce++, '0x' + '5e'.repeat(20));
    const [to, ...more] = via;
    await rpcCall(to!.http, 'eth_sendRawTransaction', [tx.raw]);
    // gossip may have brought it there first
    await Promise.all(more.map((n) => rpcCall(n.http, 'eth_sendRawTransaction', [tx.raw]).catch((e: Error) => assert(/already known|nonce too low/.test(e.message), e.message))));
    return tx.hash;
  };
}

export interface RestartedNode {
  child: ChildProcess;
  output(): string;
  /** resolves once the process has exited (killed, or by itself) */
  exited: Promise<void>;
  /** SIGTERM; resolves once it has exited */
  stop(): Promise<void>;
}

/**
 * Starts a node again alone, from its printed `command` run from the project root, as a user would
 * (with `env` added to the environment: CHAIN_NODE_IRIS_TEST, and `extraArgs` after its own); resolves
 * once it answers.
 */
export async function restartNode(node: NetworkNode, env: Record<string, string> = {}, extraArgs: string[] = []): Promise<RestartedNode> {
  const [command, ...args] = node.command;
  const child = spawn(command!, [...args, ...extraArgs], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
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
  return { child, output: () => out, exited, stop };
}

/** The node's key as enode URLs and NodeManagement write it (128 hex digits): how a fault file may name it. */
export const nodeIdOf = (node: NetworkNode): string => node.enode.slice('enode://'.length, 'enode://'.length + 128);

/** The head number of `node`. */
export const head = async (node: NetworkNode): Promise<bigint> => BigInt(await rpcCall(node.http, 'eth_blockNumber'));

/** The hash of `node`'s block at `height`, undefined when it has none. */
export const hashAt = async (node: NetworkNode, height: bigint): Promise<string | undefined> => (await rpcCall(node.http, 'eth_getBlockByNumber', ['0x' + height.toString(16), false]))?.hash;

/**
 * Throws unless every node holds the same block at every height up to `upTo` (default: the lowest
 * head among them); returns the height checked to.
 */
export async function sameHashes(nodes: readonly NetworkNode[], upTo?: bigint): Promise<bigint> {
  const top = upTo ?? (await Promise.all(nodes.map(head))).reduce((a, b) => (a < b ? a : b));
  for (let h = 0n; h <= top; h++) {
    const hashes = await Promise.all(nodes.map((n) => hashAt(n, h)));
    if (hashes.some((x) => x === undefined || x !== hashes[0])) throw new Error(`block ${h}: ${nodes.map((n, i) => `node ${n.node} ${hashes[i] ?? 'none'}`).join(', ')}`);
  }
  return top;
}

/** Resolves once every node's head is at least `height`; returns their heads. */
export function untilHeight(nodes: readonly NetworkNode[], height: bigint, timeoutMs = 20_000): Promise<bigint[]> {
  return until(
    `nodes ${nodes.map((n) => n.node).join(', ')} to reach block ${height}`,
    async () => {
      const heads = await Promise.all(nodes.map(head));
      return heads.every((h) => h >= height) && heads;
    },
    timeoutMs,
  );
}

/**
 * Watches every node's blocks as they come (each node is polled in turn) and keeps the first hash
 * seen at each height: `conflicts()` lists every height where two nodes ever held different blocks.
 * A node that does not answer (killed) is skipped.
 */
export function forkWatch(nodes: readonly NetworkNode[], everyMs = 200): { conflicts(): string[]; stop(): Promise<void> } {
  const seen = new Map<bigint, { hash: string; node: number }>();
  const next = new Map<number, bigint>(nodes.map((n) => [n.node, 0n]));
  const conflicts: string[] = [];
  let stopped = false;
  const scan = async (n: NetworkNode) => {
    const top = await head(n);
    for (let h = next.get(n.node)!; h <= top; h++) {
      const hash = await hashAt(n, h);
      if (hash === undefined) return;
      const first = seen.get(h);
      if (first === undefined) seen.set(h, { hash, node: n.node });
      else if (first.hash !== hash) conflicts.push(`block ${h}: node ${first.node} holds ${first.hash}, node ${n.node} ${hash}`);
      next.set(n.node, h + 1n);
    }
  };
  const loop = (async () => {
    while (!stopped) {
      for (const n of nodes) await scan(n).catch(() => undefined);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    conflicts: () => conflicts,
    async stop() {
      stopped = true;
      await loop;
      // a last pass: what came since the last poll is checked too
      for (const n of nodes) await scan(n).catch(() => undefined);
    },
  };
}

/** A node polls its fault file every 250 ms (FAULT_FILE_POLL_MS, src/p2p/faults.ts): this leaves it time to, on a loaded machine. */
const FAULT_FILE_READ_MS = 1000;

/** A network run with V validators and observers: nodes may be killed, restarted and given faults. */
export interface LocalNetwork {
  dir: string;
  run: NetworkRun;
  /** node k at index k − 1; validators first */
  nodes: NetworkNode[];
  validators: NetworkNode[];
  /** SIGKILL; resolves once it no longer answers */
  kill(node: NetworkNode): Promise<void>;
  /** starts a killed node again on its datadir and ports (`env` added to its environment); resolves once it answers */
  restart(node: NetworkNode, env?: Record<string, string>): Promise<void>;
  /** what the node logged: its node.log, then the output of each restart */
  output(node: NetworkNode): string;
  /** resolves once the node's restarted process has exited (by itself: a crash cue) */
  exited(node: NetworkNode): Promise<void>;
  /** Writes each node's fault file (src/p2p/faults.ts); undefined: no faults. Resolves once the nodes have read it. */
  setFaults(nodes: readonly NetworkNode[], plan: object | undefined): Promise<void>;
  /** Stops every node (the run's and those restarted) and removes the dir. */
  stop(): Promise<void>;
}

export interface LocalNetworkOptions {
  validators: number;
  observers?: number;
  /** the genesis' istanbul.timeout in ms (default: the command's, 10000) */
  timeoutMs?: number;
  period?: number;
}

/** `npm run network` with `--faults` (each node reads DATADIR/faults.json, absent until setFaults writes it); resolves once every node has every other as peer. */
export async function startLocalNetwork(o: LocalNetworkOptions): Promise<LocalNetwork> {
  const dir = networkDir();
  const total = o.validators + (o.observers ?? 0);
  const args = ['--nodes', String(total), '--validators', String(o.validators), '--faults'];
  if (o.timeoutMs !== undefined) args.push('--timeout', String(o.timeoutMs));
  if (o.period !== undefined) args.push('--period', String(o.period));
  let run: NetworkRun;
  try {
    run = await runNetwork(dir, args);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  // every node connected to every other: a transaction gossiped before a peer is there never reaches it
  // generous: on a busy machine each process compiles the sources through tsx first
  await until('every node to be connected to every other', async () => (await Promise.all(run.nodes.map((n) => rpcCall(n.http, 'net_peerCount')))).every((c) => Number(c) >= total - 1), CHILD_TIMEOUT_MS).catch(async (e) => {
    await cleanUp(run, dir);
    throw e;
  });
  const restarted = new Map<number, RestartedNode>();
  const outputs = new Map<number, RestartedNode[]>();
  const gone = async (node: NetworkNode) => {
    await until(`node ${node.node} to be gone`, () => rpcCall(node.http, 'eth_blockNumber').then(() => false, () => true));
  };
  return {
    dir,
    run,
    nodes: run.nodes,
    validators: run.nodes.filter((n) => n.validator),
    async kill(node) {
      const again = restarted.get(node.node);
      if (again) {
        again.child.kill('SIGKILL');
        restarted.delete(node.node);
      } else process.kill(node.pid, 'SIGKILL');
      await gone(node);
    },
    async restart(node, env) {
      const again = await restartNode(node, env);
      restarted.set(node.node, again);
      outputs.set(node.node, [...(outputs.get(node.node) ?? []), again]);
    },
    output(node) {
      return [readFileSync(join(node.datadir, 'node.log'), 'utf8'), ...(outputs.get(node.node) ?? []).map((r) => r.output())].join('\n');
    },
    exited(node) {
      const again = restarted.get(node.node);
      assert(again, `node ${node.node} was not restarted`);
      return again.exited;
    },
    async setFaults(nodes, plan) {
      for (const n of nodes) {
        const file = faultFile(n.datadir);
        // whole or not at all: the node polls the file and must never read half of it
        writeFileSync(file + '.tmp', plan === undefined ? '{}' : JSON.stringify(plan));
        renameSync(file + '.tmp', file);
      }
      await new Promise((r) => setTimeout(r, FAULT_FILE_READ_MS));
    },
    async stop() {
      await Promise.all([...restarted.values()].map((r) => r.stop()));
      await cleanUp(run, dir);
    },
  };
}
