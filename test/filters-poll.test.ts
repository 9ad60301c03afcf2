// Installed filters polled over HTTP: new-block, pending-transaction and log filters,
// getFilterChanges since the last poll, getFilterLogs, uninstallFilter, unguessable ids, the
// inactivity timeout (short here) and the filter-count limit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestNode, testAddress, type TestNode } from './helpers/node.ts';
import { Sender, mined, topic } from './helpers/emitter.ts';

const A = topic(0xa);
const B = topic(0xb);

let node: TestNode;
let s: Sender;
let X: string;
let Y: string;

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

test.before(async () => {
  node = await startTestNode();
  s = new Sender(node);
  X = await s.deployEmitter();
  Y = await s.deployEmitter();
});
test.after(() => node.stop());

test('filter ids are random 16-byte quantities', async () => {
  const ids = new Set<string>();
  for (let i = 0; i < 20; i++) ids.add(await node.rpc('eth_newBlockFilter'));
  assert.is(ids.size, 20);
  for (const id of ids) {
    assert.match(id, /^0x[1-9a-f][0-9a-f]{0,31}$/, 'quantity form, at most 16 bytes');
    assert.ok(await node.rpc('eth_uninstallFilter', [id]));
  }
  // 20 ids of 128 random bits: their lengths say they are not counters
  assert.ok([...ids].filter((id) => id.length >= 30).length >= 18);
});

test('new-block filter: empty when nothing happened, then the new block hashes, then empty again', async () => {
  const id = await node.rpc('eth_newBlockFilter');
  assert.equal(await node.rpc('eth_getFilterChanges', [id]), []);
  const r1 = await s.exec(testAddress(1), '0x');
  const r2 = await s.exec(testAddress(1), '0x');
  assert.equal(await node.rpc('eth_getFilterChanges', [id]), [r1.blockHash, r2.blockHash]);
  assert.equal(await node.rpc('eth_getFilterChanges', [id]), []);
  assert.is(await node.rpc('eth_uninstallFilter', [id]), true);
});

test('pending-transaction filter: hashes of transactions as they enter the pool', async () => {
  const id = await node.rpc('chain_newPendingTransactionFilter');
  assert.equal(await node.rpc('chain_getFilterChanges', [id]), []);
  const h1 = await s.send(testAddress(1), '0x');
  const h2 = await s.send(testAddress(2), '0x');
  await mined(node, h2);
  assert.equal(await node.rpc('chain_getFilterChanges', [id]), [h1, h2]);
  assert.equal(await node.rpc('chain_getFilterChanges', [id]), []);
  assert.is(await node.rpc('chain_uninstallFilter', [id]), true);
});

test('log filter: matching logs since the last poll, with block and transaction fields', async () => {
  const id = await node.rpc('eth_newFilter', [{ address: [X], topics: [A] }]);
  const matching = await s.call(X, 'pair', [A, B]);
  await s.call(X, 'pair', [B, A]); // wrong first topic
  await s.call(Y, 'pair', [A, B]); // wrong address
  const also = await s.call(X, 'one', [A, 2]);
  const changes = await node.rpc('eth_getFilterChanges', [id]);
  assert.equal(changes, [...matching.logs, ...also.logs]);
  assert.equal(changes[2].logIndex, '0x1', 'block-wide log index');
  assert.equal(await node.rpc('eth_getFilterChanges', [id]), []);
  // the spec's spellings work for newFilter too
  const spec = await node.rpc('eth_newFilter', [{ fromblock: 'latest', topic: [null, B] }]);
  const r = await s.call(Y, 'pair', [A, B]);
  assert.equal(await node.rpc('eth_getFilterChanges', [spec]), r.logs);
  assert.ok(await node.rpc('eth_uninstallFilter', [spec]));
  assert.ok(await node.rpc('eth_uninstallFilter', [id]));
});

test('log filter range: only blocks within fromBlock..toBlock are delivered', async () => {
  const head = Number(await node.rpc('eth_blockNumber'));
  const id = await node.rpc('eth_newFilter', [{ fromBlock: head + 2, toBlock: head + 2, address: X }]);
  await s.call(X, 'pair', [A, A]); // head + 1: before the range
  const inRange = await s.call(X, 'pair', [B, B]); // head + 2
  await s.call(X, 'pair', [A, A]); // head + 3: after it
  assert.equal(await node.rpc('eth_getFilterChanges', [id]), inRange.logs);
  assert.equal(await node.rpc('eth_getFilterLogs', [id]), inRange.logs);
  assert.ok(await node.rpc('eth_uninstallFilter', [id]));
});

test('getFilterLogs: all logs of the filter, not consuming its changes', async () => {
  const id = await node.rpc('eth_newFilter', [{ fromBlock: 'earliest', address: Y }]);
  const all = await node.rpc('eth_getLogs', [{ fromBlock: 'earliest', address: Y }]);
  assert.ok(all.length >= 2);
  assert.equal(await node.rpc('eth_getFilterLogs', [id]), all);
  const r = await s.call(Y, 'one', [B, 1]);
  assert.equal(await node.rpc('eth_getFilterLogs', [id]), [...all, ...r.logs]);
  assert.equal(await node.rpc('eth_getFilterChanges', [id]), r.logs, 'changes are only the new logs');
  const latestOnly = await node.rpc('eth_newFilter', [{ address: Y }]);
  assert.equal(await node.rpc('eth_getFilterLogs', [latestOnly]), r.logs, 'fromBlock latest: the head block');
  const blockFilter = await node.rpc('eth_newBlockFilter');
  const err = await node.raw('eth_getFilterLogs', [blockFilter]);
  assert.is(err.error?.code, -32000);
  assert.match(err.error!.message, /block filter; getFilterLogs needs a log filter/);
  for (const f of [id, latestOnly, blockFilter]) assert.ok(await node.rpc('eth_uninstallFilter', [f]));
});

test('uninstallFilter: true once, then false; the filter is gone', async () => {
  const id = await node.rpc('eth_newFilter', [{}]);
  assert.is(await node.rpc('eth_uninstallFilter', [id]), true);
  assert.is(await node.rpc('eth_uninstallFilter', [id]), false);
  assert.is(await node.rpc('eth_uninstallFilter', ['0x1']), false);
  const gone = await node.raw('eth_getFilterChanges', [id]);
  assert.is(gone.error?.code, -32000);
  assert.match(gone.error!.message, /^filter not found/);
  assert.match((await node.raw('eth_getFilterLogs', [id])).error!.message, /^filter not found/);
  const bad = await node.raw('eth_getFilterChanges', ['not-an-id']);
  assert.is(bad.error?.code, -32602);
});

test('ids are accepted back in upper case and zero-padded', async () => {
  const id: string = await node.rpc('eth_newBlockFilter');
  const r = await s.exec(testAddress(1), '0x');
  const padded = '0x' + id.slice(2).toUpperCase().padStart(32, '0');
  assert.equal(await node.rpc('eth_getFilterChanges', [padded]), [r.blockHash]);
  assert.is(await node.rpc('eth_uninstallFilter', [padded]), true);
});

test('filter options are checked: blockHash is for getLogs only, reversed ranges are refused', async () => {
  const withHash = await node.raw('eth_newFilter', [{ blockHash: '0x' + '11'.repeat(32) }]);
  assert.is(withHash.error?.code, -32602);
  assert.match(withHash.error!.message, /blockHash is only for getLogs/);
  const reversed = await node.raw('eth_newFilter', [{ fromBlock: '0x5', toBlock: '0x4' }]);
  assert.is(reversed.error?.code, -32602);
});

test('timeout: a filter not polled within --rpc.filter.timeout is removed; a poll resets the timer', async () => {
  const short = await startTestNode({ config: { logs: { filterTimeoutMs: 400, maxFilters: 3 } } });
  try {
    const kept = await short.rpc('eth_newBlockFilter');
    const dropped = await short.rpc('eth_newFilter', [{}]);
    for (let i = 0; i < 4; i++) {
      await sleep(200);
      assert.equal(await short.rpc('eth_getFilterChanges', [kept]), [], `poll ${i} within the timeout`);
    }
    // 800 ms since `dropped` was installed, never polled
    const gone = await short.raw('eth_getFilterChanges', [dropped]);
    assert.match(gone.error?.message ?? '', /^filter not found/);
    assert.is(await short.rpc('eth_uninstallFilter', [dropped]), false);
    await sleep(600);
    assert.match((await short.raw('eth_getFilterChanges', [kept])).error?.message ?? '', /^filter not found/, 'expired after its last poll');
  } finally {
    await short.stop();
  }
});

test('the number of filters is bounded (--rpc.filter.max); expired and uninstalled ones make room', async () => {
  const small = await startTestNode({ config: { logs: { filterTimeoutMs: 300, maxFilters: 3 } } });
  try {
    const ids = [await small.rpc('eth_newBlockFilter'), await small.rpc('eth_newPendingTransactionFilter'), await small.rpc('eth_newFilter', [{}])];
    const over = await small.raw('eth_newBlockFilter');
    assert.is(over.error?.code, -32000);
    assert.match(over.error!.message, /too many filters installed \(limit 3, --rpc\.filter\.max\)/);
    assert.ok(await small.rpc('eth_uninstallFilter', [ids[0]]));
    ids[0] = await small.rpc('eth_newBlockFilter');
    assert.ok((await small.raw('eth_newBlockFilter')).error);
    await sleep(400);
    for (let i = 0; i < 3; i++) await small.rpc('eth_newBlockFilter'); // all three expired
  } finally {
    await small.stop();
  }
});

test.run();
