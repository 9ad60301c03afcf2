// Real clients receiving events from a Solidity contract compiled here: ethers v6 WebSocketProvider
// (block events and contract.on over eth_subscribe), ethers JsonRpcProvider polling (eth_newFilter
// + eth_getFilterChanges over HTTP) getting the same events, and web3.js v4 subscribe('logs').
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Contract, JsonRpcProvider, WebSocketProvider, type ContractEventPayload } from 'ethers';
import { Web3 } from 'web3';
import { startTestNode, type TestNode } from './helpers/node.ts';
import { closePollingProvider } from './helpers/ethers-provider.ts';
import { Emitter, Sender } from './helpers/emitter.ts';

let node: TestNode;
let s: Sender;
let X: string;

test.before(async () => {
  node = await startTestNode();
  s = new Sender(node);
  X = await s.deployEmitter();
});
test.after(() => node.stop());

/** Resolves when `check()` holds, polling every 10 ms. */
async function until(check: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

interface Seen {
  blocks: number[];
  pings: { from: string; value: bigint; txHash: string; blockNumber: number }[];
}

/** Subscribes to blocks and to the contract's Ping events through an ethers provider. */
async function listen(provider: WebSocketProvider | JsonRpcProvider): Promise<Seen> {
  const seen: Seen = { blocks: [], pings: [] };
  await provider.on('block', (n: number) => seen.blocks.push(n));
  const contract = new Contract(X, Emitter.abi, provider);
  await contract.on('Ping', (from: string, value: bigint, ev: ContractEventPayload) => {
    seen.pings.push({ from, value, txHash: ev.log.transactionHash, blockNumber: ev.log.blockNumber });
  });
  return seen;
}

/** Two Ping transactions in two blocks; what every client should then have seen. */
async function pingTwice(first: bigint) {
  const a = await s.call(X, 'ping', [first]);
  const b = await s.call(X, 'ping', [first + 1n]);
  return [a, b].map((r) => ({ from: s.wallet.address, value: BigInt(r.logs[0].data), txHash: r.transactionHash, blockNumber: Number(r.blockNumber) }));
}

test('ethers WebSocketProvider: block events and contract.on(...) over eth_subscribe', async () => {
  const provider = new WebSocketProvider(node.wsUrl, 300, { staticNetwork: true });
  const subscribed: Promise<unknown>[] = [];
  const send = provider.send.bind(provider);
  provider.send = (method, params) => {
    const p = send(method, params);
    if (method === 'eth_subscribe') subscribed.push(p);
    return p;
  };
  try {
    const seen = await listen(provider);
    // ethers requests the subscriptions without waiting for them: wait for both ids
    await until(() => subscribed.length === 2, 'two eth_subscribe calls');
    await Promise.all(subscribed);
    const expected = await pingTwice(7n);
    await until(() => seen.pings.length >= 2 && seen.blocks.includes(expected[1]!.blockNumber), 'two Ping events and their blocks');
    assert.equal(seen.pings, expected);
    assert.ok(seen.blocks.includes(expected[0]!.blockNumber));
  } finally {
    await provider.destroy();
  }
});

test('ethers JsonRpcProvider polling gets the same events through eth_newFilter / getFilterChanges', async () => {
  const provider = new JsonRpcProvider(node.url, 300, { staticNetwork: true, pollingInterval: 20 });
  const methods: string[] = [];
  const installed: Promise<unknown>[] = [];
  const send = provider.send.bind(provider);
  provider.send = (method, params) => {
    methods.push(method);
    const p = send(method, params);
    if (method === 'eth_newFilter' || method === 'eth_blockNumber') installed.push(p);
    return p;
  };
  try {
    const seen = await listen(provider);
    // the filter must be installed (not merely requested) before the events happen
    await until(() => methods.includes('eth_newFilter') && methods.includes('eth_blockNumber'), 'the contract event filter and the first block poll');
    await Promise.all(installed);
    const expected = await pingTwice(70n);
    await until(() => seen.pings.length >= 2 && seen.blocks.includes(expected[1]!.blockNumber), 'two Ping events and their blocks');
    assert.equal(seen.pings, expected);
    assert.ok(seen.blocks.includes(expected[0]!.blockNumber));
    assert.ok(methods.includes('eth_getFilterChanges'), 'ethers polled the filter');
  } finally {
    await closePollingProvider(provider);
  }
});

test('web3.js v4: subscribe("logs") and subscribe("newHeads")', async () => {
  const web3 = new Web3(node.wsUrl);
  try {
    const pingTopic = web3.utils.sha3('Ping(address,uint256)')!;
    const logs = await web3.eth.subscribe('logs', { address: X, topics: [pingTopic] });
    const heads = await web3.eth.subscribe('newHeads');
    const gotLogs: any[] = [];
    const gotHeads: any[] = [];
    logs.on('data', (l) => void gotLogs.push(l));
    heads.on('data', (h) => void gotHeads.push(h));
    const r = await s.call(X, 'ping', [700n]);
    await s.call(X, 'pair', [pingTopic.replace(/.$/, '0'), pingTopic]); // another first topic: not delivered
    const r2 = await s.call(X, 'ping', [701n]);
    await until(() => gotLogs.length >= 2 && gotHeads.length >= 3, 'logs and heads');
    assert.equal(gotLogs.map((l) => l.transactionHash), [r.transactionHash, r2.transactionHash]);
    assert.is(gotLogs[0].address, X);
    assert.is(BigInt(gotLogs[0].data), 700n);
    assert.is(BigInt(gotLogs[0].blockNumber), BigInt(r.blockNumber));
    assert.is(gotHeads[0].hash, r.blockHash);
    assert.is(gotHeads[2].hash, r2.blockHash);
    await logs.unsubscribe();
    await heads.unsubscribe();
  } finally {
    await web3.provider?.disconnect?.();
  }
});

test.run();
