// The chain the contract suite runs openrpc.json's examples on. The examples describe a chain at
// height 436 with two accounts, a token and a few transactions; this fixture builds a fresh chain
// with every one of those roles, then translates each example value that names a role (an
// address, a block, a transaction, a filter…) into the fixture's value before the call. Values a
// fresh chain cannot reproduce byte for byte — block hashes (timestamps), filter and subscription
// ids (random) — are exactly the ones translated; everything else in an example is sent as written.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Interface, Transaction, Wallet } from 'ethers';
import { Keystore } from '../../src/accounts/keystore.ts';
import { hexToBytes } from '../../src/util/hex.ts';
import { wsTransport } from '../../src/client/ws.ts';
import type { JsonRpcResponse, Transport } from '../../src/client/transport.ts';
import { NODE_KEY, startTestNode, testGenesis, testKey, type TestNode } from '../helpers/node.ts';
import { NODE_STATUS, NODE_TYPE, systemGenesisAlloc } from '../../src/exec/native/system-state.ts';
import { nodeKeyFrom } from '../../src/crypto/node-key.ts';
import { compile } from '../helpers/solc.ts';
import { emulatedLedger } from './ledger-device.ts';

export interface ExampleParam {
  readonly name: string;
  readonly value: unknown;
}
export interface Example {
  readonly name: string;
  readonly params: readonly ExampleParam[];
  readonly result?: { readonly value: unknown };
}
export interface Method {
  readonly name: string;
  readonly examples?: readonly Example[];
  readonly [field: string]: unknown;
}
export interface Document {
  readonly methods: readonly Method[];
  readonly [field: string]: unknown;
}

export const DOCUMENT = JSON.parse(readFileSync(new URL('../../openrpc.json', import.meta.url), 'utf8')) as Document;

/** Password of account A's key file in the examples. */
export const PASSWORD = 'correct horse battery staple';

/** The values openrpc.json's examples use, by the role they play. */
export const EXAMPLE = {
  /** A: the node's keystore account, holder of the tokens. */
  accountA: '0xc3024ee055f812112e0b12857fdc5784e0128732',
  /** B: another funded account, creator of the token. */
  accountB: '0x5224f291187e7ace28fda4fb454a2ec74ffa3f53',
  /** An ERC-20 token deployed by B, total supply (slot 2) held by A. */
  token: '0xff7c4c98d46f20e7ddfd7c2f1f29dea804301af1',
  /** The block holding a transfer A→B (index 0) and a token transfer A→B (index 1)… */
  block: '0x1b4',
  blockNumber: 436,
  blockHash: '0xff2d39cf0b8b7193b81ef3993df059df6d2a1900987beb0e23d7146c57c22c0f',
  transferTx: '0x7a8ca3d31723c239d1ef1c1f2c6c67350a7b950c28e1cba541db7f578fe18ba4',
  tokenTransferTx: '0x3d9d779397b7ba681f2557667a9f2f21bf0c221ba6a9997022b1e4e17c448bba',
  /** …and a block before it, where log queries start. */
  earlierBlock: '0x1b0',
  /** A transaction of A in the pool, not mined. */
  pendingTx: '0x3bceb82a41260c6943f33933b4eb0e38a8efd1c6f2164ac1b2634dc3505beb21',
  /** A's signature of "hello chain" (personal_sign). */
  signature:
    '0x05038e8a78ee9ff55935db0a2f6f3096a1b9c5ca22df59fe126ebc8a908ec9bf3bedc8fe5a5c9ecd189251c96caab5c48c069beb705f6f70bc9c65a1e9515bdf1b',
  /** Installed filters: token transfers to B, new blocks, new pending transactions. */
  logFilter: '0x9f3c2d1e8b7a6f5e4d3c2b1a09f8e7d6',
  blockFilter: '0x4e1a7c9b2d3f5e6a8b0c1d2e3f4a5b6c',
  pendingTxFilter: '0x7b2e4f6a8c0d1e3f5a7b9c1d3e5f7a9b',
  /** A newHeads subscription of the connection. */
  subscription: '0x9cef478923ff08bf67fde6c64013158d',
  /** The Ledger personal_openWallet opens (its HID path is the URL's rest). */
  ledgerPath: '0001:0004:00',
} as const;

/** 20- and 32-byte values examples use on purpose as they are: unknown hashes, the Transfer topic. */
const AS_WRITTEN = new Set([
  '0x4300fe1a6c8a0acc5975423bb5e25cc71c20020b0d3710bcb17420c78991b4a4', // a block hash no chain has
  '0xbdcb14d9acf3f1aa02d785f948d1712dbdd9daf0919d0f779dfeb1db19a2151e', // a transaction hash no chain has
  '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', // keccak("Transfer(address,address,uint256)")
]);

const TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Token {
  string public name = "Fixture Token";
  mapping(address => uint256) public balanceOf;
  uint256 public totalSupply;
  event Transfer(address indexed from, address indexed to, uint256 value);
  constructor(address holder, uint256 supply) {
    totalSupply = supply;
    balanceOf[holder] = supply;
    emit Transfer(address(0), holder, supply);
  }
  function transfer(address to, uint256 value) external returns (bool) {
    require(balanceOf[msg.sender] >= value, "balance too low");
    balanceOf[msg.sender] -= value;
    balanceOf[to] += value;
    emit Transfer(msg.sender, to, value);
    return true;
  }
}`;

/** Far beyond A's nonce, so the examples' own sends from A never fill the gap: these stay queued. */
const QUEUED_NONCE = 1000;
/** Namespaces whose examples run against their own filters, subscriptions and resend targets. */
const ETH_LIKE = ['eth', 'chain'] as const;
const SIGNS_AS_A = new Set(['sendTransaction', 'sign', 'signTransaction', 'signTypedData_v4', 'resend']);

export interface Fixture {
  readonly node: TestNode;
  /** The example's params with every role value translated, for `method`'s namespace. */
  translate(method: string, params: readonly unknown[]): unknown[];
  /**
   * Ready-to-send params for an example call: translated, plus what the call needs first — A
   * unlocked for node-side signing, a freshly signed raw transaction, the resend target's nonce.
   */
  prepare(method: string, params: readonly unknown[]): Promise<unknown[]>;
  /** Sends a call to the node: HTTP, or the fixture's WebSocket for (un)subscribe. */
  send(method: string, params: readonly unknown[]): Promise<JsonRpcResponse>;
  /** 20/32-byte values of an example that name nothing in the fixture (document drift). */
  unknownValues(params: readonly unknown[]): string[];
  close(): Promise<void>;
}

const walletA = new Wallet(testKey(0));
const walletB = new Wallet(testKey(1));

export async function createFixture(): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'chain-node-contract-'));
  // A's key file, dropped into DATADIR/keystore as a user would.
  await new Keystore(join(dir, 'keystore'), true).store(hexToBytes(walletA.privateKey), PASSWORD);
  const node = await startTestNode({ dir, genesis: await registeredGenesis(), config: { ledgerTransports: emulatedLedger(EXAMPLE.ledgerPath) } });
  const ws: Transport = wsTransport(node.wsUrl);
  let nextId = 0;
  const rpc = async <T = any>(method: string, params: readonly unknown[], via?: Transport): Promise<T> => {
    const r = via ? await via.send({ jsonrpc: '2.0', id: ++nextId, method, params }) : await node.raw(method, [...params]);
    if (r.error) throw new Error(`fixture: ${method} failed: ${r.error.message}`);
    return r.result as T;
  };
  try {
    return fixtureOver(node, ws, rpc, await buildChain(node, rpc, ws), dir);
  } catch (e) {
    await ws.close();
    await node.stop();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** The test genesis with the node registered in NodeManagement as a consensus node, as a network's chain has it (iris_candidates lists it). */
async function registeredGenesis(): Promise<object> {
  const genesis = testGenesis(NODE_KEY) as { alloc: Record<string, object> };
  const governance = await systemGenesisAlloc((state) =>
    state.nodes.put({ name: 'node0', owner: '', desc: 'the fixture node', type: NODE_TYPE.consensus, status: NODE_STATUS.normal, externalIP: '127.0.0.1', internalIP: '127.0.0.1', publicKey: nodeKeyFrom(hexToBytes(NODE_KEY)).id, rpcPort: 6791, p2pPort: 16791 }),
  );
  return { ...genesis, alloc: { ...genesis.alloc, ...governance } };
}

type Rpc = <T = any>(method: string, params: readonly unknown[], via?: Transport) => Promise<T>;

/** Fixture value of each role, per namespace where roles differ (filters, subscriptions, resend). */
interface Roles {
  readonly common: Map<string, unknown>;
  readonly perNamespace: Map<string, Map<string, unknown>>;
  readonly addresses: [string, string][];
  readonly resendNonce: Map<string, string>;
}

async function buildChain(node: TestNode, rpc: Rpc, ws: Transport): Promise<Roles> {
  const { Token } = compile(TOKEN_SOURCE);
  const token = new Interface(Token!.abi);
  const sign = (w: Wallet, f: { to?: string; value?: bigint; data?: string; nonce: number; gas?: bigint }) =>
    w.signTransaction(Transaction.from({ type: 0, chainId: 300, gasPrice: 0n, gasLimit: f.gas ?? 200_000n, to: f.to ?? null, value: f.value ?? 0n, data: f.data ?? '0x', nonce: f.nonce }));
  const mined = async (hash: string) => {
    for (let i = 0; i < 1000; i++) {
      const r = await rpc('eth_getTransactionReceipt', [hash]);
      if (r) return r as { blockNumber: string; blockHash: string; contractAddress: string | null; status: string };
      await new Promise((res) => setTimeout(res, 5));
    }
    throw new Error(`fixture: ${hash} not mined`);
  };
  const A = walletA.address.toLowerCase();
  const B = walletB.address.toLowerCase();

  // B deploys the token; A holds its supply (10^24, the examples' slot-2 value).
  const deploy = await mined(await rpc('eth_sendRawTransaction', [await sign(walletB, { nonce: 0, data: Token!.bytecode + token.encodeDeploy([A, 10n ** 24n]).slice(2), gas: 2_000_000n })]));
  const tokenAddress = deploy.contractAddress!;
  // One block with a transfer A→B and a token transfer A→B: the second (nonce 1) is sent first and
  // waits queued, so the first (nonce 0) makes both pending at once and the instant sealer takes
  // both (a batch alone does not: each answer waits for the journal's write, a turn later).
  const transfer = await sign(walletA, { nonce: 0, to: B, value: 10n ** 18n, gas: 21_000n });
  const tokenTransfer = await sign(walletA, { nonce: 1, to: tokenAddress, data: token.encodeFunctionData('transfer', [B, 250n * 10n ** 18n]) });
  const tokenTransferHash = await rpc<string>('eth_sendRawTransaction', [tokenTransfer]);
  const transferHash = await rpc<string>('eth_sendRawTransaction', [transfer]);
  const [r1, r2] = [await mined(transferHash), await mined(tokenTransferHash)];
  if (r1.blockHash !== r2.blockHash) throw new Error('fixture: the transfer and the token transfer were sealed in different blocks');

  const signature = await rpc<string>('personal_sign', ['0x68656c6c6f20636861696e', A, PASSWORD]);

  // A's transactions that stay in the pool: the "pending" one, and one resend target per namespace
  // with the fields of eth_resend's example.
  const pendingTx = await rpc<string>('eth_sendRawTransaction', [await sign(walletA, { nonce: QUEUED_NONCE, to: B, value: 10n ** 18n, gas: 21_000n })]);
  const resendExample = exampleOf('eth_resend').params[0]!.value as { to: string; gas: string; value: string; input: string };
  const resendNonce = new Map<string, string>();
  for (const [i, ns] of ETH_LIKE.entries()) {
    const nonce = QUEUED_NONCE + 1 + i;
    await rpc('eth_sendRawTransaction', [await sign(walletA, { nonce, to: B, value: BigInt(resendExample.value), gas: BigInt(resendExample.gas), data: resendExample.input })]);
    resendNonce.set(ns, '0x' + nonce.toString(16));
  }

  const common = new Map<string, unknown>([
    [EXAMPLE.block, r1.blockNumber],
    [EXAMPLE.earlierBlock, deploy.blockNumber],
    [EXAMPLE.blockHash, r1.blockHash],
    [EXAMPLE.transferTx, transferHash],
    [EXAMPLE.tokenTransferTx, tokenTransferHash],
    [EXAMPLE.pendingTx, pendingTx],
    [EXAMPLE.signature, signature],
  ]);
  const addresses: [string, string][] = [
    [EXAMPLE.accountA.slice(2), A.slice(2)],
    [EXAMPLE.accountB.slice(2), B.slice(2)],
    [EXAMPLE.token.slice(2), tokenAddress.slice(2)],
  ];
  const translateCommon = (v: unknown) => translateValue(v, common, addresses, Number(r1.blockNumber));

  // Per namespace (eth_ and chain_ each uninstall and unsubscribe theirs): filters with something
  // to report, and a subscription on the WebSocket the examples' (un)subscribe calls use.
  const perNamespace = new Map<string, Map<string, unknown>>();
  for (const ns of ETH_LIKE) {
    const filterParams = translateCommon(exampleOf('eth_newFilter').params.map((p) => p.value)) as unknown[];
    perNamespace.set(
      ns,
      new Map<string, unknown>([
        [EXAMPLE.logFilter, await rpc(`${ns}_newFilter`, filterParams)],
        [EXAMPLE.blockFilter, await rpc(`${ns}_newBlockFilter`, [])],
        [EXAMPLE.pendingTxFilter, await rpc(`${ns}_newPendingTransactionFilter`, [])],
        [EXAMPLE.subscription, await rpc(`${ns}_subscribe`, ['newHeads'], ws)],
      ]),
    );
  }
  // A new block with a token transfer to B: every filter above has changes to report.
  const nonce = Number(await rpc('eth_getTransactionCount', [A, 'pending']));
  await mined(await rpc('eth_sendRawTransaction', [await sign(walletA, { nonce, to: tokenAddress, data: token.encodeFunctionData('transfer', [B, 10n ** 18n]) })]));
  return { common, addresses, resendNonce, perNamespace };
}

function fixtureOver(node: TestNode, ws: Transport, rpc: Rpc, built: Roles, dir: string): Fixture {
  const { perNamespace } = built;
  const blockNumber = Number(built.common.get(EXAMPLE.block));
  const translate = (method: string, params: readonly unknown[]): unknown[] => {
    const ns = method.slice(0, method.indexOf('_'));
    const exact = new Map([...built.common, ...(perNamespace.get(ns) ?? [])]);
    return translateValue(params, exact, built.addresses, blockNumber) as unknown[];
  };
  let nextId = 1_000_000;
  const fixture: Fixture = {
    node,
    translate,
    async prepare(method, params) {
      const ns = method.slice(0, method.indexOf('_'));
      const key = method.slice(method.indexOf('_') + 1);
      const out = translate(method, params);
      if ((ETH_LIKE as readonly string[]).includes(ns)) {
        if (SIGNS_AS_A.has(key)) await rpc('personal_unlockAccount', [walletA.address, PASSWORD, 0]);
        if (key === 'sendRawTransaction') {
          // A signed transfer A→B nobody has sent yet: the example's own would be "already known".
          const nonce = Number(await rpc('eth_getTransactionCount', [walletA.address, 'pending']));
          out[0] = await walletA.signTransaction(Transaction.from({ type: 0, chainId: 300, gasPrice: 0n, gasLimit: 21_000n, to: walletB.address, value: 10n ** 18n, nonce }));
        }
        if (key === 'resend') out[0] = { ...(out[0] as object), nonce: built.resendNonce.get(ns) };
      }
      return out;
    },
    async send(method, params) {
      const request = { jsonrpc: '2.0' as const, id: ++nextId, method, params };
      if (/_(un)?subscribe$/.test(method)) return ws.send(request);
      return (await node.raw(method, [...params])) as JsonRpcResponse;
    },
    unknownValues(params) {
      const known = new Set([...built.common.keys(), ...(perNamespace.get('eth')?.keys() ?? []), ...AS_WRITTEN].map((k) => String(k).toLowerCase()));
      const roleAddresses = built.addresses.map(([from]) => from);
      const out: string[] = [];
      walk(params, (s) => {
        if (!/^0x([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/.test(s)) return;
        const lower = s.toLowerCase();
        if (!known.has(lower) && !roleAddresses.some((a) => lower.includes(a))) out.push(s);
      });
      return out;
    },
    async close() {
      await ws.close();
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return fixture;
}

/** Role values → fixture values: exact strings (any case), the role addresses inside any string or object key, the block height as a plain integer. */
function translateValue(value: unknown, exact: ReadonlyMap<string, unknown>, addresses: readonly [string, string][], blockNumber: number): unknown {
  if (typeof value === 'string') {
    for (const [k, v] of exact) if (k.toLowerCase() === value.toLowerCase()) return v;
    let s = value;
    for (const [from, to] of addresses) s = s.replace(new RegExp(from, 'gi'), to);
    return s;
  }
  if (value === EXAMPLE.blockNumber) return blockNumber;
  if (Array.isArray(value)) return value.map((v) => translateValue(v, exact, addresses, blockNumber));
  if (value !== null && typeof value === 'object') {
    // keys too: eth_getStorageValues' requests are keyed by address
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [translateValue(k, exact, addresses, blockNumber), translateValue(v, exact, addresses, blockNumber)]));
  }
  return value;
}

function walk(value: unknown, visit: (s: string) => void): void {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) value.forEach((v) => walk(v, visit));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((v) => walk(v, visit));
}

function exampleOf(method: string): Example {
  const ex = DOCUMENT.methods.find((m) => m.name === method)?.examples?.[0];
  if (!ex) throw new Error(`fixture: openrpc.json has no example for ${method}`);
  return ex;
}
