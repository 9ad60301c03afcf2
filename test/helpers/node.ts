// Starts a real node for a test: random loopback port, real LMDB in a temp dir, instant sealing.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNode, type RunningNode } from '../../src/node/node.ts';
import type { NodeConfig } from '../../src/node/config.ts';
import { ALL_NAMESPACES } from '../../src/node/config.ts';
import { createLogger } from '../../src/util/logger.ts';
import { nodeKeyFrom, enodeUrl } from '../../src/crypto/node-key.ts';
import { addressOf } from '../../src/crypto/secp256k1.ts';
import { bytesToHex } from '../../src/util/hex.ts';
import { paced } from './pace.ts';

export interface TestNode extends RunningNode {
  dir: string;
  /** JSON-RPC call; resolves the result or rejects with an Error carrying code/data */
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
  /** raw JSON-RPC response object */
  raw(method: string, params?: unknown[]): Promise<{ result?: any; error?: { code: number; message: string; data?: unknown } }>;
  stop(): Promise<void>;
}

/** Deterministic test keys: key i is 0x…(i+1). Funded by testGenesis. */
export function testKey(i: number): string {
  return '0x' + (i + 1).toString(16).padStart(64, '0');
}

export function testAddress(i: number): string {
  return bytesToHex(addressOf(Buffer.from(testKey(i).slice(2), 'hex')));
}

/** A genesis whose validator is `nodeKeyHex` and whose first `accounts` test keys hold 10^24 wei each. */
export function testGenesis(nodeKeyHex: string, accounts = 4, period = 0): object {
  const key = nodeKeyFrom(Buffer.from(nodeKeyHex, 'hex'));
  return {
    config: { chainId: 300, interpreter: 'all', istanbul: { period, timeout: 10000, policy: 0, firstValidatorNode: enodeUrl(key, '127.0.0.1', 16791) } },
    timestamp: '0',
    extraData: '0x00',
    alloc: Object.fromEntries(Array.from({ length: accounts }, (_, i) => [testAddress(i), { balance: (10n ** 24n).toString() }])),
  };
}

export const NODE_KEY = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';

export interface TestNodeOptions {
  /** use a genesis file with funded test accounts (default) or a dev chain */
  dev?: boolean;
  dir?: string;
  config?: Partial<NodeConfig>;
  genesis?: object;
  /** the node key of a genesis-file node (default NODE_KEY, the test genesis' validator) */
  nodeKey?: string;
  /** receives every log line of the node (e.g. to check what it logs); default: stderr */
  logWrite?: (line: string) => void;
  /** HTTP/WebSocket server (default: $TEST_TRANSPORT, else auto = uWebSockets.js where it loads) */
  transport?: 'auto' | 'uws' | 'node';
}

export async function startTestNode(o: TestNodeOptions = {}): Promise<TestNode> {
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'chain-node-test-'));
  let genesisFile: string | undefined;
  if (!o.dev) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'nodekey'), o.nodeKey ?? NODE_KEY);
    genesisFile = join(dir, 'test-genesis.json');
    writeFileSync(genesisFile, JSON.stringify(o.genesis ?? testGenesis(NODE_KEY)));
  }
  const config: NodeConfig = {
    datadir: dir,
    genesisFile,
    http: { addr: '127.0.0.1', port: 0, api: [...ALL_NAMESPACES], corsDomains: [], maxBodyBytes: 5 * 1024 * 1024, maxBatch: 1000 },
    checkResults: true,
    verbosity: Number(process.env.TEST_VERBOSITY ?? 0),
    minGasPrice: 0n,
    sealEmpty: false,
    devPeriod: 0,
    lightKdf: true,
    allowInsecureUnlock: false,
    gasCap: 50_000_000n,
    p2pPort: 0,
    ...o.config,
  };
  const transport = o.transport ?? (process.env.TEST_TRANSPORT as TestNodeOptions['transport']);
  if (transport) config.http = { ...config.http, transport };
  const node = await startNode(config, createLogger(config.verbosity, o.logWrite, { format: config.logFormat, vmodule: config.logVmodule }));
  let id = 0;
  const raw = async (method: string, params: unknown[] = []) => {
    const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
    return (await res.json()) as { result?: any; error?: { code: number; message: string; data?: unknown } };
  };
  return {
    ...node,
    dir,
    raw,
    async rpc(method: string, params: unknown[] = []) {
      const r = await raw(method, params);
      if (r.error) throw Object.assign(new Error(`${method}: ${r.error.message}`), r.error);
      return r.result;
    },
    async stop() {
      await node.close();
      if (!o.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The receipt of `hash` once it is mined (polled every 5 ms). It gives up after 60 s: a give-up, not
 * a pace a test asserts — a large wasm deploy on a loaded machine took over 5 s to seal.
 */
export async function mined(node: Pick<TestNode, 'rpc'>, hash: string): Promise<any> {
  for (const end = Date.now() + 60_000; Date.now() < end; ) {
    const r = await node.rpc('eth_getTransactionReceipt', [hash]);
    if (r) return r;
    await new Promise((res) => setTimeout(res, 5));
  }
  throw new Error(`not mined: ${hash}`);
}

/** What a poll of eth_blockNumber saw: how many answers, the slowest, over how long, and the requests that failed. */
export interface PollResult {
  answers: number;
  slowest: number;
  ms: number;
  failures: string[];
}

/**
 * Polls eth_blockNumber every 100 ms until stopped. A held event loop shows as answers missing
 * (one answer for the whole hold), which `assertAnswered` compares with the same poll on the idle
 * node: a count, not a wall-clock bound a busy machine breaks (T2).
 */
export function pollBlockNumber(node: Pick<TestNode, 'rpc'>): { stop: () => Promise<PollResult> } {
  let running = true;
  let slowest = 0;
  let answers = 0;
  const failures: string[] = [];
  const started = performance.now();
  // a failed request is a missing answer, not a rejection nobody awaits yet (which ends the process)
  const done = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        await node.rpc('eth_blockNumber');
        if (running) answers++;
      } catch (e) {
        failures.push((e as Error).message);
      }
      slowest = Math.max(slowest, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      const ms = performance.now() - started;
      running = false;
      await done;
      return { answers, slowest, ms, failures };
    },
  };
}

/**
 * Fails unless the node kept answering while some work ran (`during`, a poll over it): it got at
 * least a third of the answers the same poll gets on the idle node over as long (measured now), or
 * no answer waited longer than `quietMs` at this machine's pace (`before`: slowdown() measured
 * before the work). A loop held for the whole work answers once, after it.
 */
export async function assertAnswered(node: Pick<TestNode, 'rpc'>, during: PollResult, what: string, quietMs = 1000, before = 1): Promise<void> {
  const idle = pollBlockNumber(node);
  await new Promise((r) => setTimeout(r, during.ms));
  const base = await idle.stop();
  const needed = Math.max(2, Math.ceil(base.answers / 3));
  const bound = await paced(quietMs, before);
  if (during.answers < needed && during.slowest >= bound) {
    throw new Error(
      `${what}: eth_blockNumber answered ${during.answers} times in ${during.ms.toFixed(0)} ms, the slowest after ${during.slowest.toFixed(0)} ms; ` +
        `on the idle node ${base.answers} times over as long (needed ${needed}, or none slower than ${bound.toFixed(0)} ms)` +
        (during.failures.length ? `; failed: ${during.failures.join('; ')}` : ''),
    );
  }
}

/** One JSON-RPC batch over HTTP (ids are the calls' indexes); the answers in the calls' order. */
export async function batch(node: TestNode, calls: [string, unknown[]][]): Promise<any[]> {
  const body = JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params })));
  const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return ((await res.json()) as any[]).sort((a, b) => a.id - b.id);
}

/** Submits `raws` to the in-process node and waits for the block that takes them. */
export async function sealBlock(node: TestNode, raws: Uint8Array[]): Promise<void> {
  const sealed = new Promise<void>((resolve) => {
    const off = node.core.events.onBlock(() => {
      off();
      resolve();
    });
  });
  for (const raw of raws) await node.core.submitRawTransaction(raw);
  await sealed;
}
