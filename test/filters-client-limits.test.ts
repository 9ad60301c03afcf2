// What one client may take of the filter machinery (issue 19, items 6 and 7), scaled down:
// geth's bounds on a filter's criteria (1,000 addresses, 4 topic positions, 1,000 alternatives at a
// position) for eth_getLogs, eth_newFilter and logs subscriptions; per-connection and per-address
// quotas under the node-wide --rpc.filter.max (before them one WebSocket opened all 10,000
// subscriptions, 20 HTTP batches installed all 10,000 filters); one byte budget for all criteria;
// slots and memory given back when a filter is uninstalled, expires (also on a quiet chain) or its
// connection closes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ALL_NAMESPACES, parseFlags, type NodeConfig } from '../src/node/config.ts';
import { loadUws } from '../src/rpc/uws-load.ts';
import { batch, startTestNode, type TestNode } from './helpers/node.ts';
import { WsRpc } from './helpers/ws-rpc.ts';
import { paced } from './helpers/pace.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

const hex = (n: number, bytes: number) => '0x' + n.toString(16).padStart(bytes * 2, '0');
const addresses = (n: number) => Array.from({ length: n }, (_, i) => hex(i + 1, 20));
const topics = (n: number, salt = 0) => Array.from({ length: n }, (_, i) => hex(salt * 1_000_000 + i + 1, 32));
/** The largest criteria geth allows: 1,000 addresses and 4 positions of 1,000 alternatives. */
const largest = (salt: number) => ({ address: addresses(1000), topics: [topics(1000, salt), topics(1000, salt + 1), topics(1000, salt + 2), topics(1000, salt + 3)] });

/** The JavaScript heap and the ArrayBuffers' memory outside it (where a large Uint8Array's bytes are). */
function usedMiB(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 2 ** 20;
}

test('criteria over geth\'s bounds are refused, naming the parameter; at the bounds they are served', async () => {
  const node = await startTestNode();
  const ws = await WsRpc.open(node.wsUrl);
  try {
    const cases: [object, RegExp][] = [
      [{ address: addresses(1001) }, /exceed max addresses: address has 1001 entries, the limit is 1000/],
      // openrpc.json's schema already holds topics to 4 positions
      [{ topics: [null, null, null, null, null] }, /topics: must NOT have more than 4 items/],
      [{ topics: [null, topics(1001)] }, /exceed max topics: topics\[1\] has 1001 alternatives, the limit is 1000/],
    ];
    for (const [filter, reason] of cases) {
      for (const method of ['eth_getLogs', 'eth_newFilter']) {
        const { error } = await node.raw(method, [filter]);
        assert.is(error?.code, -32602, method);
        assert.match(error?.message ?? '', /^invalid argument 0 \(filter\)/, method);
        assert.match(error?.message ?? '', reason, method);
      }
      const { error } = await ws.raw('eth_subscribe', ['logs', filter]);
      assert.is(error?.code, -32602);
      assert.match(error?.message ?? '', /^invalid argument 1 \(options\)/);
      assert.match(error?.message ?? '', reason);
    }
    assert.equal(await node.rpc('eth_getLogs', [largest(0)]), []);
    assert.match(await node.rpc('eth_newFilter', [largest(0)]), /^0x/);
    assert.match(await ws.call('eth_subscribe', ['logs', largest(0)]), /^0x/);
  } finally {
    await ws.close();
    await node.stop();
  }
});

test('one WebSocket cannot take more than its connection\'s share; another connection still subscribes; closing gives the slots back', async () => {
  const node = await startTestNode({ config: { logs: { maxFiltersPerConnection: 5, maxFiltersPerAddress: 8 } } });
  const [a, b] = [await WsRpc.open(node.wsUrl), await WsRpc.open(node.wsUrl)];
  try {
    const subs: string[] = [];
    for (let i = 0; i < 5; i++) subs.push(await a.call('eth_subscribe', ['newHeads']));
    const refused = await a.raw('eth_subscribe', ['newHeads']);
    assert.is(refused.error?.code, -32000);
    assert.match(refused.error?.message ?? '', /^too many subscriptions on this connection \(limit 5, --rpc\.filter\.maxperconnection\)/);
    // filters are counted apart from subscriptions
    for (let i = 0; i < 5; i++) assert.match(await a.call('eth_newBlockFilter'), /^0x/);
    assert.match((await a.raw('eth_newBlockFilter')).error?.message ?? '', /^too many filters on this connection \(limit 5/);

    // the other connection subscribes up to what is left of the address's 8
    for (let i = 0; i < 3; i++) assert.match(await b.call('eth_subscribe', ['newPendingTransactions']), /^0x/);
    assert.match((await b.raw('eth_subscribe', ['newHeads'])).error?.message ?? '', /^too many subscriptions from client address \S+ \(limit 8, --rpc\.filter\.maxperaddress\)/);

    // an unsubscribe frees a slot; closing the first connection frees all of its own
    assert.is(await a.call('eth_unsubscribe', [subs[0]]), true);
    assert.match(await b.call('eth_subscribe', ['newHeads']), /^0x/);
    await a.close();
    await sleep(100);
    for (let i = 0; i < 1; i++) assert.match(await b.call('eth_subscribe', ['newHeads']), /^0x/); // b: 5, its own cap
    assert.match((await b.raw('eth_subscribe', ['newHeads'])).error?.message ?? '', /on this connection \(limit 5/);
  } finally {
    await a.close();
    await b.close();
    await node.stop();
  }
});

test('HTTP filters count by client address: one client cannot fill the node; uninstall and expiry (on a quiet chain) free its slots', async () => {
  const TIMEOUT_MS = 1000;
  const node = await startTestNode({ config: { logs: { maxFilters: 100, maxFiltersPerAddress: 20, filterTimeoutMs: TIMEOUT_MS } } });
  try {
    const install = (n: number) => batch(node, Array.from({ length: n }, () => ['eth_newBlockFilter', []] as [string, unknown[]]));
    const first = await install(25);
    const ids = first.filter((r) => r.result).map((r) => r.result);
    assert.is(ids.length, 20, 'the address\'s 20, not the node\'s 100');
    for (const r of first.slice(20)) assert.match(r.error.message, /^too many filters from client address \S+ \(limit 20, --rpc\.filter\.maxperaddress\)/);
    assert.is(await node.rpc('eth_uninstallFilter', [ids[0]]), true);
    assert.match(await node.rpc('eth_newBlockFilter'), /^0x/, 'an uninstalled filter\'s slot is free again');
    // past the timeout every one of them is gone and its slot free again
    await sleep(TIMEOUT_MS + 1500);
    assert.ok((await install(20)).every((r) => r.result), 'every slot came back after the timeout');
  } finally {
    await node.stop();
  }
});

test('the criteria of all filters and subscriptions share one byte budget; a removed filter gives its share back', async () => {
  // a filter at geth's bounds packs 1,000 × (20 + 6) + 4,000 × (32 + 6) = 178,000 bytes
  const node = await startTestNode({ config: { logs: { maxCriteriaBytes: 1_000_000 } } });
  const ws = await WsRpc.open(node.wsUrl);
  try {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await node.rpc('eth_newFilter', [largest(4 * i)]));
    assert.match(await ws.call('eth_subscribe', ['logs', largest(100)]), /^0x/, 'the fifth, as a subscription');
    const over = await node.raw('eth_newFilter', [largest(200)]);
    assert.is(over.error?.code, -32000);
    assert.match(over.error?.message ?? '', /^the addresses and topics of all filters and subscriptions together are at the node's limit \(1000000 bytes\)/);
    assert.match((await ws.raw('eth_subscribe', ['logs', largest(300)])).error?.message ?? '', /at the node's limit/);
    assert.match(await node.rpc('eth_newFilter', [{ address: addresses(1), topics: topics(1) }]), /^0x/, 'a small filter still fits');
    assert.match(await node.rpc('eth_newBlockFilter'), /^0x/, 'and a block filter has no criteria');
    assert.is(await node.rpc('eth_uninstallFilter', [ids[0]]), true);
    assert.match(await node.rpc('eth_newFilter', [largest(200)]), /^0x/);
  } finally {
    await ws.close();
    await node.stop();
  }
});

const uws = loadUws();
const threaded = 'uws' in uws && process.env.TEST_TRANSPORT !== 'node' ? test : test.skip;

threaded('connections served by RPC threads count against the same client address', async () => {
  const http: NodeConfig['http'] = { addr: '127.0.0.1', port: 0, api: [...ALL_NAMESPACES], corsDomains: [], maxBodyBytes: 5 * 1024 * 1024, maxBatch: 1000, threads: 2, transport: 'uws' };
  const node = await startTestNode({ config: { http, logs: { maxFiltersPerAddress: 8 } } });
  const clients: WsRpc[] = [];
  try {
    for (let i = 0; i < 200 && (await node.rpcThreadStats()).some((s) => !s.listening); i++) await sleep(50);
    // 16 connections spread over the main thread and two serving threads, one subscription each
    for (let i = 0; i < 16; i++) clients.push(await WsRpc.open(node.wsUrl));
    const answers = await Promise.all(clients.map((c) => c.raw('eth_subscribe', ['newHeads'])));
    assert.ok((await node.rpcThreadStats()).some((s) => s.handedOver > 0), 'the threads hold some of the connections');
    assert.is(answers.filter((r) => r.result).length, 8);
    for (const r of answers.filter((r) => r.error)) assert.match(r.error!.message, /from client address \S+ \(limit 8/);
  } finally {
    for (const c of clients) await c.close();
    await node.stop();
  }
});

test('memory: the largest filters geth allows come back when uninstalled, and when they expire on a quiet chain', async () => {
  const N = 40;
  // the installs and the uninstalls must come before the first expires: ~1 s on a quiet machine
  const TIMEOUT_MS = Math.round(await paced(3000));
  const node = await startTestNode({ config: { logs: { filterTimeoutMs: TIMEOUT_MS } } });
  try {
    const installAll = async () => {
      const ids: string[] = [];
      for (let i = 0; i < N; i += 10) {
        for (const r of await batch(node, Array.from({ length: 10 }, (_, j) => ['eth_newFilter', [largest(4 * (i + j))]] as [string, unknown[]]))) ids.push(r.result);
      }
      return ids;
    };
    const base = usedMiB();
    const ids = await installAll();
    const held = usedMiB();
    const perFilter = (held - base) / N;
    // one Uint8Array per value made it ~2 MiB; packed, the values alone are 150 KB
    assert.ok(perFilter < 0.5, `${perFilter.toFixed(2)} MiB a filter`);
    for (const r of await batch(node, ids.map((id) => ['eth_uninstallFilter', [id]] as [string, unknown[]]))) assert.is(r.result, true);
    const uninstalled = usedMiB();
    assert.ok(uninstalled - base < (held - base) / 5, `uninstalled: ${base.toFixed(1)} → ${held.toFixed(1)} → ${uninstalled.toFixed(1)} MiB`);

    await installAll();
    const again = usedMiB();
    await sleep(TIMEOUT_MS + 1000); // past the timeout: no block, install or poll comes to sweep them
    const expired = usedMiB();
    assert.ok(expired - base < (again - base) / 5, `expired: ${base.toFixed(1)} → ${again.toFixed(1)} → ${expired.toFixed(1)} MiB`);
    console.log(`  ${perFilter.toFixed(2)} MiB per filter of 1,000 addresses and 4 × 1,000 topics; memory ${base.toFixed(1)} → ${held.toFixed(1)} → ${uninstalled.toFixed(1)} (uninstalled) / ${again.toFixed(1)} → ${expired.toFixed(1)} MiB (expired)`);
  } finally {
    await node.stop();
  }
});

test('--rpc.filter.maxperconnection and --rpc.filter.maxperaddress: 1000 and 2000 by default, at least 1', () => {
  const logs = (argv: string[]) => (parseFlags(argv) as NodeConfig).logs!;
  assert.is(logs([]).maxFiltersPerConnection, 1000);
  assert.is(logs([]).maxFiltersPerAddress, 2000);
  assert.is(logs(['--rpc.filter.maxperconnection', '10', '--rpc.filter.maxperaddress', '30']).maxFiltersPerAddress, 30);
  assert.throws(() => parseFlags(['--rpc.filter.maxperconnection', '0']), /--rpc\.filter\.maxperconnection must be an integer ≥ 1/);
  assert.throws(() => parseFlags(['--rpc.filter.maxperaddress', 'x']), /--rpc\.filter\.maxperaddress must be an integer ≥ 1/);
});

test.run();
