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

/** The receipt of `hash` once it is mined (polled every 5 ms, for at most 5 s). */
export async function mined(node: Pick<TestNode, 'rpc'>, hash: string): Promise<any> {
  for (let i = 0; i < 1000; i++) {
    const r = await node.rpc('eth_getTransactionReceipt', [hash]);
    if (r) return r;
    await new Promise((res) => setTimeout(res, 5));
  }
  throw new Error(`not mined: ${hash}`);
}

/**
 * Polls eth_blockNumber every 100 ms until stopped; resolves the slowest answer's milliseconds.
 * An answer that takes a second means the event loop was held.
 */
export function pollBlockNumber(node: TestNode): { stop: () => Promise<number> } {
  let running = true;
  let slowest = 0;
  const done = (async () => {
    while (running) {
      const t0 = performance.now();
      await node.rpc('eth_blockNumber');
      slowest = Math.max(slowest, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return slowest;
    },
  };
}

/** One JSON-RPC batch over HTTP (ids are the calls' indexes); the answers in the calls' order. */
export async function batch(node: TestNode, calls: [string, unknown[]][]): Promise<any[]> {
  const body = JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params })));
  const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return ((await res.json()) as any[]).sort((a, b) => a.id - b.id);
}
