// --metrics: Prometheus text at /metrics on a listener of its own, scraped and parsed while load
// runs — request counters by method and outcome move, latency and batch histograms fill, errors are
// counted by code, and the levels (WebSockets, subscriptions, filters, pool, head) are what the node
// holds. Without --metrics nothing listens and nothing is counted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestNode, type TestNode } from './helpers/node.ts';
import { sealTransferBlocks, signedTransfer } from './helpers/blocks.ts';
import { WsRpc } from './helpers/ws-rpc.ts';
import { parseFlags, ConfigError, DEFAULT_METRICS_PORT } from '../src/node/config.ts';
import { hexToBytes } from '../src/util/hex.ts';
import { loadUws } from '../src/rpc/uws-load.ts';
import { Agent, request } from 'node:http';
import { readFileSync } from 'node:fs';
import { testKey } from './helpers/node.ts';

/** `name{labels}` → value, from Prometheus text format (comments skipped). */
type Samples = Map<string, number>;

function parse(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*(?:\{.*\})?) (\S+)$/.exec(line);
    assert.ok(m, `a sample line: ${line}`);
    out.set(m![1]!, Number(m![2]));
  }
  return out;
}

async function scrape(node: TestNode): Promise<Samples> {
  const res = await fetch(node.metricsUrl!);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parse(await res.text());
}

const get = (s: Samples, key: string) => s.get(key) ?? 0;

/** One POST on `agent`'s connection (node:http: fetch's pool cannot be held to one connection each). */
function postWith(agent: Agent, url: string, body: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const post = (node: TestNode, body: unknown) =>
  fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());

test('flags: --metrics with geth defaults, address and port checked; off without it', () => {
  const on = parseFlags(['--metrics']);
  assert.ok(on !== 'help');
  assert.equal(on.metrics, { addr: '127.0.0.1', port: DEFAULT_METRICS_PORT });
  const set = parseFlags(['--metrics', '--metrics.addr', '0.0.0.0', '--metrics.port', '9100']);
  assert.equal(set !== 'help' && set.metrics, { addr: '0.0.0.0', port: 9100 });
  const off = parseFlags(['--metrics.port', '9100']);
  assert.is(off !== 'help' && off.metrics, undefined);
  assert.throws(() => parseFlags(['--metrics', '--metrics.addr', 'example.com']), (e: Error) => e instanceof ConfigError && /--metrics.addr/.test(e.message));
  assert.throws(() => parseFlags(['--metrics', '--metrics.port', 'x']), (e: Error) => e instanceof ConfigError && /--metrics.port/.test(e.message));
});

test('scraped while load runs: counters move, histograms fill, levels match the node', async () => {
  const node = await startTestNode({ config: { metrics: { addr: '127.0.0.1', port: 0 } } });
  const ws = await WsRpc.open(node.wsUrl);
  try {
    assert.match(node.metricsUrl!, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const other = await fetch(node.metricsUrl!.replace('/metrics', '/'));
    assert.is(other.status, 404);
    await other.text();
    const before = await scrape(node);
    assert.ok(get(before, 'process_resident_memory_bytes') > 0, 'default metrics: RSS');
    assert.ok(before.has('nodejs_eventloop_lag_seconds'), 'default metrics: event-loop lag');
    assert.ok(get(before, 'chain_lmdb_size_bytes') > 0, 'LMDB data file size');

    const sub = await ws.call('eth_subscribe', ['newHeads']);
    const filter = await node.rpc('eth_newBlockFilter');
    // load: reads, errors of two kinds, a batch, blocks of transfers — and scrapes in between
    const load = (async () => {
      for (let i = 0; i < 20; i++) {
        await Promise.all([
          node.rpc('eth_blockNumber'),
          node.rpc('eth_getBalance', ['0x' + (i + 1).toString(16).padStart(40, '0'), 'latest']), // a new account each time: never a kept answer
          node.raw('eth_getBalance', ['0x12']), // -32602
          node.raw('no_suchMethod'), // -32601
          post(node, [{ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }, { jsonrpc: '2.0', id: 2, method: 'net_version', params: [] }, { jsonrpc: '2.0', id: 3, method: 'eth_gasPrice', params: [] }]),
        ]);
      }
      await sealTransferBlocks(node, 3, 2);
    })();
    const during = await scrape(node);
    await load;
    // this period-0 chain seals what is executable at once: a nonce gap stays queued
    await node.core.submitRawTransaction(signedTransfer(hexToBytes(testKey(3)), 5n, node.core.config.chainId));
    await ws.waitFor(sub, 3);
    const after = await scrape(node);

    const ok = (s: Samples, m: string) => get(s, `chain_rpc_requests_total{method="${m}",outcome="ok"}`);
    assert.is(ok(after, 'eth_getBalance'), 20);
    assert.ok(ok(after, 'eth_getBalance') >= ok(during, 'eth_getBalance'));
    assert.is(get(after, 'chain_rpc_requests_total{method="eth_getBalance",outcome="error"}'), 20, 'the invalid getBalance calls');
    assert.is(get(after, 'chain_rpc_requests_total{method="",outcome="error"}'), 20, 'unknown methods under one label');
    assert.is(get(after, 'chain_rpc_errors_total{code="-32602"}'), 20);
    assert.is(get(after, 'chain_rpc_errors_total{code="-32601"}'), 20);
    assert.is(ok(after, 'eth_chainId'), 20, 'batch entries counted one by one');
    assert.is(get(after, 'chain_rpc_batch_size_count'), 20);
    assert.is(get(after, 'chain_rpc_batch_size_bucket{le="2"}'), 0);
    assert.is(get(after, 'chain_rpc_batch_size_bucket{le="5"}'), 20);
    // a repeated read at one head is answered from the head's kept answers, not the dispatcher, and counted all the same
    const cached = get(after, 'chain_rpc_head_cache_answers_total{thread="main"}');
    assert.ok(cached > 0, `eth_blockNumber: ${cached} from kept answers`);
    assert.is(ok(after, 'eth_blockNumber'), 20);
    // the latency histogram: every request observed once, buckets cumulative
    const lat = (k: string) => get(after, `chain_rpc_request_duration_seconds_${k}`);
    assert.is(lat('count{method="eth_getBalance"}'), 40);
    assert.ok(lat('sum{method="eth_getBalance"}') > 0);
    assert.is(lat('bucket{le="+Inf",method="eth_getBalance"}'), 40);
    assert.ok(lat('bucket{le="0.0001",method="eth_getBalance"}') <= lat('bucket{le="10",method="eth_getBalance"}'));
    // blocks
    assert.is(get(after, 'chain_head_block'), 3);
    assert.is(get(after, 'chain_block_transactions_count'), 3);
    assert.is(get(after, 'chain_block_transactions_sum'), 6);
    assert.is(get(after, 'chain_block_interval_seconds_count'), 2);
    // levels
    assert.is(get(after, 'chain_ws_connections'), 1);
    assert.is(get(after, 'chain_ws_subscriptions'), 1);
    assert.is(get(after, 'chain_filters'), 1);
    assert.is(get(after, 'chain_txpool_queued'), 1);
    assert.is(get(after, 'chain_txpool_pending'), 0);
    assert.is(get(after, 'chain_p2p_peers'), 0);
    assert.is(get(after, 'chain_consensus_rounds_total'), 0, 'present for the consensus engine to move');
    await node.rpc('eth_uninstallFilter', [filter]);
    await ws.close();
    // the Grafana dashboard asks only for what the node serves
    const dashboard = JSON.parse(readFileSync(new URL('../docs/grafana/chain-node.json', import.meta.url), 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    const served = new Set([...after.keys()].map((k) => k.replace(/\{.*$/, '')));
    const asked = new Set(dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/\b(?:chain|nodejs|process)_\w+/g) ?? [])));
    assert.equal([...asked].filter((m) => !served.has(m)), [], 'dashboard metrics the node does not serve');
    const closed = await scrape(node);
    assert.is(get(closed, 'chain_ws_connections'), 0);
    assert.is(get(closed, 'chain_ws_subscriptions'), 0);
    assert.is(get(closed, 'chain_filters'), 0);
  } finally {
    await ws.close();
    await node.stop();
  }
  const gone = await fetch(node.metricsUrl!).then(() => 'answered', () => 'refused');
  assert.is(gone, 'refused', 'the listener closes with the node');
});

test('30 eth_blockNumber over HTTP and 30 over WebSocket on a fresh node count 60, though most come from the head answers', async () => {
  const node = await startTestNode({ dev: true, config: { metrics: { addr: '127.0.0.1', port: 0 } } });
  const ws = await WsRpc.open(node.wsUrl);
  try {
    for (let i = 0; i < 30; i++) await node.rpc('eth_blockNumber');
    const http = await scrape(node);
    // was 1: only the first reached the dispatcher
    assert.is(get(http, 'chain_rpc_requests_total{method="eth_blockNumber",outcome="ok"}'), 30);
    for (let i = 0; i < 30; i++) await ws.call('eth_blockNumber', []);
    const both = await scrape(node);
    assert.is(get(both, 'chain_rpc_requests_total{method="eth_blockNumber",outcome="ok"}'), 60);
    assert.is(get(both, 'chain_rpc_requests_total{method="eth_blockNumber",outcome="error"}'), 0);
    // the fast path did answer them: only the first of each head reached the dispatcher
    assert.ok(get(both, 'chain_rpc_head_cache_answers_total{thread="main"}') >= 58, 'answered from the head answers');
  } finally {
    await ws.close();
    await node.stop();
  }
});

// serving threads need uWebSockets.js (test/rpc-threads.test.ts); registered as skipped where it does not load
const threaded = 'uws' in loadUws() && process.env.TEST_TRANSPORT !== 'node' ? test : test.skip;

threaded('serving threads: what they answer themselves and their WebSockets are counted too', async () => {
  const http = { addr: '127.0.0.1', port: 0, api: ['eth'], corsDomains: [], maxBodyBytes: 1 << 20, maxBatch: 10, threads: 1, transport: 'uws' as const };
  const node = await startTestNode({ config: { http, metrics: { addr: '127.0.0.1', port: 0 } } });
  const sockets: WsRpc[] = [];
  try {
    for (let i = 0; i < 100 && !(await node.rpcThreadStats()).every((t) => t.listening); i++) await new Promise((r) => setTimeout(r, 50));
    // 32 connections of their own (the kernel spreads them over the two listeners), 10 reads each
    const CONNECTIONS = 32;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        for (let i = 0; i < 10; i++) await postWith(agent, node.url, { jsonrpc: '2.0', id: i, method: 'eth_blockNumber', params: [] });
        agent.destroy();
      }),
    );
    for (let i = 0; i < 16; i++) sockets.push(await WsRpc.open(node.wsUrl));
    const s = await scrape(node);
    const here = get(s, 'chain_rpc_head_cache_answers_total{thread="main"}');
    const thread = get(s, 'chain_rpc_head_cache_answers_total{thread="1"}');
    const dispatched = get(s, 'chain_rpc_requests_total{method="eth_blockNumber",outcome="ok"}'); // whichever path answered
    assert.ok(thread > 0, `the thread answered some itself: ${thread}`);
    assert.is(dispatched, CONNECTIONS * 10, `every answer counted: main ${here} + thread ${thread} of them from kept answers`);
    assert.is(get(s, 'chain_ws_connections'), 16);
  } finally {
    await Promise.all(sockets.map((w) => w.close()));
    await node.stop();
  }
});

test('without --metrics: no listener, no url', async () => {
  const node = await startTestNode({ dev: true });
  try {
    assert.is(node.metricsUrl, undefined);
  } finally {
    await node.stop();
  }
});

test.run();
