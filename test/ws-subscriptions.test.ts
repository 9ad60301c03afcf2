// WebSocket push over a raw `ws` client: eth_subscribe / chain_subscribe (newHeads, logs,
// newPendingTransactions) with geth's notification shape (each checked against openrpc.json),
// eth_unsubscribe, filters created over a WebSocket pushing for their filter id while polling
// still works, clean-up when the socket closes, and no expiry by the polling timeout.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestNode, testAddress, type TestNode } from './helpers/node.ts';
import { Sender, mined, topic } from './helpers/emitter.ts';
import { WsRpc, notificationProblem } from './helpers/ws-rpc.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnNode } from './helpers/process.ts';

const A = topic(0xa);
const B = topic(0xb);
const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

let node: TestNode;
let s: Sender;
let X: string;
let Y: string;
let ws: WsRpc;

test.before(async () => {
  node = await startTestNode();
  s = new Sender(node);
  X = await s.deployEmitter();
  Y = await s.deployEmitter();
  ws = await WsRpc.open(node.wsUrl);
});
test.after(async () => {
  await ws.close();
  await node.stop();
});

/** The block JSON's fields a newHeads header carries. */
function headerOf(block: any) {
  const { size: _s, uncles: _u, transactions: _t, totalDifficulty: _d, ...header } = block;
  return header;
}

test('openrpc.json documents the notifications: x-notifications examples match SubscriptionNotification', () => {
  const doc = JSON.parse(readFileSync(new URL('../openrpc.json', import.meta.url), 'utf8'));
  for (const ns of ['eth', 'chain']) {
    const n = doc.methods.find((m: any) => m.name === `${ns}_subscribe`)['x-notifications'];
    assert.is(n.method, `${ns}_subscription`);
    assert.equal(n.examples.map((e: any) => e.name), ['newHeads', 'logs', 'newPendingTransactions']);
    for (const e of n.examples) assert.is(notificationProblem(e.value), '', `${ns} example ${e.name}`);
  }
  assert.match(notificationProblem({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0x1', result: 42 } }), /.+/, 'the schema rejects a bad payload');
});

test('newHeads: a header per sealed block, in geth\'s notification shape', async () => {
  const id = await ws.call('eth_subscribe', ['newHeads']);
  assert.match(id, /^0x[1-9a-f][0-9a-f]{0,31}$/);
  const r1 = await s.exec(testAddress(1), '0x');
  const r2 = await s.exec(testAddress(1), '0x');
  const [h1, h2] = await ws.waitFor(id, 2);
  assert.equal(h1, headerOf(await node.rpc('eth_getBlockByHash', [r1.blockHash, false])));
  assert.equal(h2.hash, r2.blockHash);
  const note = ws.notes.find((n) => n.params.subscription === id);
  assert.equal(Object.keys(note), ['jsonrpc', 'method', 'params']);
  assert.is(note.method, 'eth_subscription');
  assert.is(await ws.call('eth_unsubscribe', [id]), true);
});

test('a request waiting when a block commits is answered before the block is pushed (F9)', async () => {
  // a node of its own in a child process: in this process the client could send nothing while the
  // node executes, so no request would be waiting
  const dir = mkdtempSync(join(tmpdir(), 'chain-node-f9-'));
  const child = await spawnNode(['--datadir', dir, '--http.port', '0', '--dev.period', '0', '--verbosity', '1']);
  const sock = await WsRpc.open(child.url.replace(/^http/, 'ws'));
  try {
    const [dev] = await sock.call('eth_accounts');
    const id = await sock.call('eth_subscribe', ['newHeads']);
    const before = BigInt(await sock.call('eth_blockNumber'));
    // a block that executes for tens of milliseconds: a creation whose code loops until its 3M gas
    // runs out (JUMPDEST PUSH1 0 JUMP); while it runs, the next request below is already waiting
    const hash = await sock.call('eth_sendTransaction', [{ from: dev, data: '0x5b600056', gas: '0x2dc6c0' }]);
    let answer;
    for (const t0 = Date.now(); ; ) {
      answer = await sock.raw('eth_blockNumber');
      if (BigInt(answer.result) > before) break;
      assert.ok(Date.now() - t0 < 10_000, 'the block was not sealed');
    }
    const pushedEarlier = sock.notes.slice(0, answer.notesBefore).filter((n) => n.params.subscription === id);
    assert.equal(pushedEarlier, [], 'the new head was pushed before the request waiting for it was answered');
    const [head] = await sock.waitFor(id, 1);
    assert.is(BigInt(head.number), before + 1n, 'it is pushed right after');
    assert.is((await sock.call('eth_getTransactionReceipt', [hash])).status, '0x0', 'the creation ran out of gas');
  } finally {
    await sock.close();
    child.child.kill('SIGTERM');
    await child.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('logs: only logs matching address and topics, as the receipts carry them', async () => {
  const id = await ws.call('eth_subscribe', ['logs', { address: [X], topics: [A] }]);
  const spec = await ws.call('eth_subscribe', ['logs', { topic: [null, B] }]);
  await s.call(X, 'pair', [B, A]);
  await s.call(Y, 'pair', [A, A]);
  const hit = await s.call(X, 'pair', [A, B]);
  const many = await s.call(X, 'one', [A, 3]);
  const got = await ws.waitFor(id, 4);
  assert.equal(got, [...hit.logs, ...many.logs]);
  assert.equal(await ws.waitFor(spec, 1), hit.logs, 'the spec spelling topic');
  for (const x of [id, spec]) assert.ok(await ws.call('eth_unsubscribe', [x]));
});

test('newPendingTransactions: each transaction hash as it becomes pending', async () => {
  const id = await ws.call('eth_subscribe', ['newPendingTransactions']);
  const h1 = await s.send(testAddress(1), '0x');
  const h2 = await s.send(testAddress(2), '0x');
  assert.equal(await ws.waitFor(id, 2), [h1, h2]);
  assert.ok(await ws.call('eth_unsubscribe', [id]));
  await mined(node, h2);
});

test('chain_subscribe notifies as chain_subscription', async () => {
  const id = await ws.call('chain_subscribe', ['newHeads', null]);
  const r = await s.exec(testAddress(1), '0x');
  const [h] = await ws.waitFor(id, 1);
  assert.is(h.hash, r.blockHash);
  assert.is(ws.notes.find((n) => n.params.subscription === id).method, 'chain_subscription');
  assert.ok(await ws.call('chain_unsubscribe', [id]));
});

test('unsubscribe: true once, nothing after it, false again and from another connection', async () => {
  const gone = await ws.call('eth_subscribe', ['newHeads']);
  const stays = await ws.call('eth_subscribe', ['newHeads']);
  const other = await WsRpc.open(node.wsUrl);
  try {
    assert.is(await other.call('eth_unsubscribe', [stays]), false, 'not its subscription');
    assert.is(await ws.call('eth_unsubscribe', [gone.toUpperCase().replace('0X', '0x')]), true, 'any case');
    assert.is(await ws.call('eth_unsubscribe', [gone]), false);
    assert.is(await ws.call('eth_unsubscribe', ['0x1']), false);
    await s.exec(testAddress(1), '0x');
    await ws.waitFor(stays, 1);
    await sleep(50);
    assert.is(ws.results(gone).length, 0);
    assert.ok(await ws.call('eth_unsubscribe', [stays]));
  } finally {
    await other.close();
  }
  assert.is(await node.rpc('eth_unsubscribe', [stays]), false, 'over HTTP: there are no subscriptions');
});

test('subscribe needs a WebSocket; bad kinds and options are invalid params', async () => {
  const http = await node.raw('eth_subscribe', ['newHeads']);
  assert.is(http.error?.code, -32601);
  assert.match(http.error!.message, /notifications not supported: eth_subscribe needs a WebSocket connection/);
  const kind = await ws.raw('eth_subscribe', ['newBlocks']);
  assert.is(kind.error?.code, -32602);
  assert.match(kind.error!.message, /argument 0 \(kind\)/);
  const opts = await ws.raw('eth_subscribe', ['newHeads', { address: X }]);
  assert.is(opts.error?.code, -32602);
  assert.match(opts.error!.message, /argument 1 \(options\): only the logs subscription takes filter options/);
  const hash = await ws.raw('eth_subscribe', ['logs', { blockHash: '0x' + '11'.repeat(32) }]);
  assert.is(hash.error?.code, -32602);
  assert.match(hash.error!.message, /blockHash is only for getLogs/);
});

test('filters created over a WebSocket push for their filter id, and polling still works', async () => {
  const logs = await ws.call('eth_newFilter', [{ address: X, topics: [[A, B]] }]);
  const blocks = await ws.call('eth_newBlockFilter');
  const pending = await ws.call('chain_newPendingTransactionFilter');
  const r = await s.call(X, 'pair', [B, B]);
  assert.equal(await ws.waitFor(logs, 1), r.logs);
  assert.equal(await ws.waitFor(blocks, 1), [r.blockHash], 'block filters push the block hash');
  assert.equal(await ws.waitFor(pending, 1), [r.transactionHash]);
  assert.is(ws.notes.find((n) => n.params.subscription === pending).method, 'chain_subscription');
  assert.is(ws.notes.find((n) => n.params.subscription === logs).method, 'eth_subscription');
  // the same items wait for a poll, over this socket or over HTTP
  assert.equal(await ws.call('eth_getFilterChanges', [logs]), r.logs);
  assert.equal(await node.rpc('eth_getFilterChanges', [blocks]), [r.blockHash]);
  assert.equal(await node.rpc('eth_getFilterChanges', [pending]), [r.transactionHash]);
  assert.equal(await ws.call('eth_getFilterLogs', [logs]), r.logs);
  assert.is(await ws.call('eth_uninstallFilter', [blocks]), true);
  const r2 = await s.call(X, 'pair', [A, A]);
  await ws.waitFor(logs, 2);
  assert.is(ws.results(blocks).length, 1, 'an uninstalled filter pushes nothing more');
  assert.equal(ws.results(logs)[1], r2.logs[0]);
  for (const f of [logs, pending]) assert.ok(await ws.call('eth_uninstallFilter', [f]));
  assert.equal(ws.invalid, []);
});

test('a closed socket ends its subscriptions and filters; nothing expires by the polling timeout', async () => {
  const short = await startTestNode({ config: { logs: { filterTimeoutMs: 300, maxFilters: 2 } } });
  try {
    const sender = new Sender(short);
    const c1 = await WsRpc.open(short.wsUrl);
    const sub = await c1.call('eth_subscribe', ['newHeads']);
    const sub2 = await c1.call('eth_subscribe', ['newPendingTransactions']);
    const filter = await c1.call('eth_newBlockFilter');
    const over = await c1.raw('eth_subscribe', ['newHeads']);
    assert.match(over.error?.message ?? '', /too many subscriptions \(limit 2, --rpc\.filter\.max\)/);
    await sleep(900); // three timeouts without a poll
    const r = await sender.exec(testAddress(1), '0x');
    assert.equal((await c1.waitFor(sub, 1)).map((h) => h.hash), [r.blockHash], 'the subscription did not expire');
    assert.equal(await c1.waitFor(sub2, 1), [r.transactionHash]);
    assert.equal(await c1.waitFor(filter, 1), [r.blockHash], 'the WebSocket filter did not expire');
    assert.equal(await short.rpc('eth_getFilterChanges', [filter]), [r.blockHash]);
    await c1.close();
    await sleep(50);
    assert.match((await short.raw('eth_getFilterChanges', [filter])).error?.message ?? '', /^filter not found/, 'the filter ended with its socket');
    const c2 = await WsRpc.open(short.wsUrl);
    assert.ok(await c2.call('eth_subscribe', ['newHeads']));
    assert.ok(await c2.call('eth_subscribe', ['logs']), 'both subscription slots are free again');
    await c2.close();
  } finally {
    await short.stop();
  }
});

test.run();
