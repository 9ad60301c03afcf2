// RPC serving threads (A19): the node's port is served by the main thread and
// by serving threads, and the kernel spreads connections over them. Whichever thread a connection
// lands on, it must get the same answers, never one older than a head the client has already seen,
// and WebSockets must behave the same (subscriptions, their end with the socket, the send cap).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request } from 'node:http';
import { ALL_NAMESPACES, ConfigError, parseFlags, type NodeConfig } from '../src/node/config.ts';
import { HeadAnswers } from '../src/rpc/head-answers.ts';
import { HeadGeneration } from '../src/rpc/head-generation.ts';
import { startTestNode, testAddress, type TestNode } from './helpers/node.ts';
import { Sender } from './helpers/emitter.ts';
import { WsRpc } from './helpers/ws-rpc.ts';
import { loadUws } from '../src/rpc/uws-load.ts';

// Serving threads need uWebSockets.js (node:http cannot share a port between threads on Node 20);
// where its binary does not load, or the run forces the node:http transport, those tests are skipped.
const uws = loadUws();
const skip = !('uws' in uws) || process.env.TEST_TRANSPORT === 'node';
if (skip) console.log(`rpc-threads: skipped (${'reason' in uws ? uws.reason : 'TEST_TRANSPORT=node'})`);
// the tests that need uWS are registered as skipped rather than left out of run(): uvu would run
// tests left queued with the next file's
const it = skip ? test.skip : test;

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

/** Enough connections that each of 3 listening sockets gets some (a miss: (2/3)^32 ≈ 2e-6). */
const CONNECTIONS = 32;

/** A node whose serving threads all listen (they start after the main thread already serves). */
async function threadedNode(threads: number, more: Partial<NodeConfig['http']> = {}): Promise<TestNode> {
  const node = await startTestNode({ config: { http: http(threads, more) } });
  for (let i = 0; !(await node.rpcThreadStats()).every((s) => s.listening); i++) {
    if (i === 200) throw new Error('serving threads did not start listening in 10 s');
    await sleep(50);
  }
  return node;
}

function http(threads: number, more: Partial<NodeConfig['http']> = {}): NodeConfig['http'] {
  return { addr: '127.0.0.1', port: 0, api: [...ALL_NAMESPACES], corsDomains: [], maxBodyBytes: 5 * 1024 * 1024, maxBatch: 1000, threads, transport: 'uws', ...more };
}

/** One keep-alive HTTP connection: every request goes on the same socket. */
function connection(url: string): (method: string, params?: unknown[]) => Promise<any> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let id = 0;
  return (method, params = []) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params });
      const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          const answer = JSON.parse(text);
          if (answer.error) reject(new Error(`${method}: ${answer.error.message}`));
          else resolve(answer.result);
        });
      });
      req.on('error', reject);
      req.end(body);
    });
}

test('answers cached per head: only plain requests, only results, dropped when the head moves', () => {
  const head = new HeadGeneration();
  const answers = new HeadAnswers(head, new Set(['eth_blockNumber', 'eth_getBalance']));
  const req = (id: unknown, method: string, params?: unknown[], extra: object = {}) => JSON.stringify({ jsonrpc: '2.0', id, method, params, ...extra });
  const miss = answers.lookup(req(1, 'eth_blockNumber', []));
  assert.ok(miss && typeof miss === 'object', 'a first request is a miss');
  answers.store(miss, '{"jsonrpc":"2.0","id":1,"result":"0x5"}');
  assert.is(answers.lookup(req('a', 'eth_blockNumber', [])), '{"jsonrpc":"2.0","id":"a","result":"0x5"}', 'answered with its own id');
  assert.is(answers.lookup(req(2, 'eth_blockNumber')), '{"jsonrpc":"2.0","id":2,"result":"0x5"}', 'no params is the same request as []');
  // never cached: other methods, notifications, batches, odd ids, extra members, pending
  assert.is(answers.lookup(req(1, 'eth_sendRawTransaction', ['0x00'])), undefined);
  assert.is(answers.lookup(JSON.stringify({ jsonrpc: '2.0', method: 'eth_blockNumber', params: [] })), undefined);
  assert.is(answers.lookup(`[${req(1, 'eth_blockNumber', [])}]`), undefined);
  assert.is(answers.lookup(req(1.5, 'eth_blockNumber', [])), undefined);
  assert.is(answers.lookup(req(null, 'eth_blockNumber', [])), undefined);
  assert.is(answers.lookup(req(1, 'eth_blockNumber', [], { extra: 1 })), undefined);
  assert.is(answers.lookup(req(1, 'eth_getBalance', ['0x' + '11'.repeat(20), 'pending'])), undefined);
  assert.is(answers.lookup(' ' + req(1, 'eth_blockNumber', [])), undefined, 'only the plainest text');
  // a number beyond a double parses to Infinity, which JSON writes as null: never the key of a real null
  const withNull = answers.lookup(req(5, 'eth_getBalance', ['0x' + '11'.repeat(20), null])) as Exclude<ReturnType<HeadAnswers['lookup']>, string | undefined>;
  answers.store(withNull, '{"jsonrpc":"2.0","id":5,"result":"0x7"}');
  assert.is(answers.lookup(req(6, 'eth_getBalance', ['0x' + '11'.repeat(20), null])), '{"jsonrpc":"2.0","id":6,"result":"0x7"}');
  assert.not.type(answers.lookup(`{"jsonrpc":"2.0","id":7,"method":"eth_getBalance","params":["0x${'11'.repeat(20)}",1e400]}`), 'string');
  assert.is(answers.lookup(`{"id":7,"jsonrpc":"2.0","method":"eth_getBalance","params":["0x${'11'.repeat(20)}",1e400]}`), undefined, 'parsed: Infinity');
  // JSON.stringify's layout is read without parsing the body; any other layout is parsed, and both
  // make one key of one request
  const plainBalance = req(8, 'eth_getBalance', ['0x' + '22'.repeat(20), 'latest']);
  answers.store(answers.lookup(plainBalance) as Exclude<ReturnType<HeadAnswers['lookup']>, string | undefined>, '{"jsonrpc":"2.0","id":8,"result":"0x9"}');
  assert.is(answers.lookup(`{"method":"eth_getBalance","params":["0x${'22'.repeat(20)}","latest"],"id":9,"jsonrpc":"2.0"}`), '{"jsonrpc":"2.0","id":9,"result":"0x9"}', "ethers' member order: the same entry");
  assert.is(answers.lookup(req('q-1', 'eth_getBalance', ['0x' + '22'.repeat(20), 'latest'])), '{"jsonrpc":"2.0","id":"q-1","result":"0x9"}', 'a string id');
  assert.not.type(answers.lookup(`{"jsonrpc":"2.0","id":10,"method":"eth_getBalance","params":["0x${'22'.repeat(20)}", "latest"]}`), 'string', 'another spelling: an entry of its own');
  assert.is(answers.lookup(`{"jsonrpc":"2.0","id":11,"method":"eth_getBalance","params":["0x${'22'.repeat(20)}","latest"],"x":["y"]}`), undefined, 'an extra member after params');
  assert.is(answers.lookup(`{"jsonrpc":"2.0","id":12,"method":"eth_getBalance","params":["0x${'22'.repeat(20)}","\\u0070ending"]}`), undefined, 'pending written with an escape');
  assert.is(answers.lookup(`{"jsonrpc":"2.0","id":01,"method":"eth_getBalance","params":["0x${'22'.repeat(20)}","latest"]}`), undefined, 'not JSON: a leading zero');
  assert.is(answers.lookup(`{"jsonrpc":"2.0","id":"a\\"b","method":"eth_getBalance","params":["0x${'22'.repeat(20)}","latest"]}`), '{"jsonrpc":"2.0","id":"a\\"b","result":"0x9"}', 'an escaped id: parsed, written back by JSON.stringify');
  // an error is not kept, nor an answer made after the head moved
  const balance = answers.lookup(req(3, 'eth_getBalance', ['0x' + '11'.repeat(20), 'latest'])) as Exclude<ReturnType<HeadAnswers['lookup']>, string | undefined>;
  answers.store(balance, '{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"x"}}');
  assert.type(answers.lookup(req(3, 'eth_getBalance', ['0x' + '11'.repeat(20), 'latest'])), 'object');
  head.bump(); // the head moves while the answer is being made
  answers.store(balance, '{"jsonrpc":"2.0","id":3,"result":"0x1"}');
  assert.type(answers.lookup(req(3, 'eth_getBalance', ['0x' + '11'.repeat(20), 'latest'])), 'object', 'made at an older head: not kept');
  assert.type(answers.lookup(req(4, 'eth_blockNumber', [])), 'object', 'the head moved: every answer is gone');
});

for (const threads of [0, 2]) {
  it(`HTTP, ${threads} serving threads: every connection answers the head a client has already seen`, async () => {
    const node = await threadedNode(threads);
    try {
      const conns = Array.from({ length: CONNECTIONS }, () => connection(node.url));
      const sender = new Sender(node);
      const from = sender.wallet.address.toLowerCase();
      for (let round = 0; round < 4; round++) {
        // each connection asks twice: the second can be answered from its thread's cache
        for (let i = 0; i < 2; i++) {
          await Promise.all(conns.map((c) => Promise.all([c('eth_blockNumber'), c('eth_getTransactionCount', [from, 'latest']), c('web3_clientVersion')])));
        }
        const receipt = await sender.exec(testAddress(1), '0x');
        // the receipt says the head moved: no connection may answer the head before it
        const seen = await Promise.all(conns.map((c) => Promise.all([c('eth_blockNumber'), c('eth_getTransactionCount', [from, 'latest'])])));
        for (const [number, nonce] of seen) {
          assert.is(number, receipt.blockNumber);
          assert.is(BigInt(nonce), BigInt(round + 1));
        }
        assert.is(BigInt(await conns[round]!('eth_getTransactionCount', [from, 'pending'])), BigInt(round + 1));
      }
      const stats = await node.rpcThreadStats();
      assert.is(stats.length, threads);
      for (const [i, s] of stats.entries()) {
        assert.ok(s.answeredHere > 0, `thread ${i + 1} answered repeated reads itself: ${JSON.stringify(stats)}`);
        assert.ok(s.handedOver > 0, `thread ${i + 1} handed the rest to the main thread: ${JSON.stringify(stats)}`);
      }
    } finally {
      await node.stop();
    }
  });
}

it('WebSockets on every thread: notifications, unsubscribe, and the end of subscriptions and filters with the socket', async () => {
  const node = await threadedNode(2);
  const clients: WsRpc[] = [];
  try {
    for (let i = 0; i < CONNECTIONS; i++) clients.push(await WsRpc.open(node.wsUrl));
    const subs = await Promise.all(clients.map((c) => c.call('eth_subscribe', ['newHeads'])));
    const filters = await Promise.all(clients.map((c) => c.call('eth_newBlockFilter')));
    const sender = new Sender(node);
    const first = await sender.exec(testAddress(1), '0x');
    for (const [i, c] of clients.entries()) {
      assert.equal((await c.waitFor(subs[i]!, 1)).map((h) => h.hash), [first.blockHash], `connection ${i}: newHeads`);
      assert.equal(await c.waitFor(filters[i]!, 1), [first.blockHash], `connection ${i}: its filter pushes`);
    }
    const half = clients.length / 2;
    for (let i = 0; i < half; i++) assert.is(await clients[i]!.call('eth_unsubscribe', [subs[i]]), true);
    const second = await sender.exec(testAddress(1), '0x');
    for (let i = half; i < clients.length; i++) assert.equal((await clients[i]!.waitFor(subs[i]!, 2)).map((h) => h.hash), [first.blockHash, second.blockHash]);
    await sleep(50);
    for (let i = 0; i < half; i++) assert.is(clients[i]!.results(subs[i]!).length, 1, `connection ${i}: nothing after unsubscribe`);
    // polling the WebSocket filters over HTTP works while their sockets are open, and ends with them
    assert.equal(await node.rpc('eth_getFilterChanges', [filters[0]]), [first.blockHash, second.blockHash]);
    await Promise.all(clients.map((c) => c.close()));
    await sleep(100);
    for (const f of filters) assert.match((await node.raw('eth_getFilterChanges', [f])).error?.message ?? '', /^filter not found/, `${f} ended with its socket`);
    const stats = await node.rpcThreadStats();
    for (const [i, s] of stats.entries()) assert.ok(s.handedOver > 0, `thread ${i + 1} served WebSockets: ${JSON.stringify(stats)}`);
  } finally {
    for (const c of clients) await c.close();
    await node.stop();
  }
});

it('a WebSocket that stops reading on a serving thread: its subscriptions are dropped there too', async () => {
  const node = await threadedNode(2, { wsMaxBufferedBytes: 128 * 1024 });
  const clients: WsRpc[] = [];
  try {
    const sender = new Sender(node);
    const emitter = await sender.deployEmitter();
    // enough connections that the threads hold some (the main thread's own: test/ws-slow-consumer.test.ts):
    // all 10 on the main thread has odds of (1/3)^10
    const SUBS = 3;
    const BLOCKS = 12; // 10 × 3 × 12 notifications of ~200 KB: more than the kernel's socket buffers hold
    for (let i = 0; i < 10; i++) clients.push(await WsRpc.open(node.wsUrl));
    const subs = await Promise.all(clients.map((c) => Promise.all(Array.from({ length: SUBS }, () => c.call('eth_subscribe', ['logs', { address: emitter }])))));
    const before = await node.rpcThreadStats();
    assert.ok(before.some((s) => s.handedOver > 0), `the threads hold some of the connections: ${JSON.stringify(before)}`);
    for (const c of clients) c.ws.pause();
    for (let i = 0; i < BLOCKS; i++) await sender.call(emitter, 'blob', [100_000]); // ~200 KB of JSON a notification
    for (const c of clients) c.ws.resume();
    for (const [i, c] of clients.entries()) {
      for (let n = -1; n !== c.notes.length; ) {
        n = c.notes.length;
        await sleep(100);
      }
      assert.ok(c.notes.length < SUBS * BLOCKS, `connection ${i}: ${c.notes.length} notifications, not all ${SUBS * BLOCKS}`);
      for (const id of subs[i]!) assert.is(await c.call('eth_unsubscribe', [id]), false, `connection ${i}: ${id} was dropped`);
    }
  } finally {
    for (const c of clients) await c.close();
    await node.stop();
  }
});

it('the port is claimed whole: a second node on it fails instead of sharing it', async () => {
  const first = await threadedNode(1);
  let second: TestNode | undefined;
  try {
    const error = await startTestNode({ config: { http: http(1, { port: first.port }) } }).then(
      (n) => ((second = n), undefined),
      (e: Error) => e,
    );
    assert.match(error?.message ?? 'started', /EADDRINUSE/);
    assert.is(await first.rpc('eth_blockNumber'), '0x0');
  } finally {
    await second?.stop();
    await first.stop();
  }
});

test('--http.threads: a count, absent by default (then set by the cores), anything else refused', () => {
  const threads = (argv: string[]) => (parseFlags(argv) as NodeConfig).http.threads;
  assert.is(threads([]), undefined);
  assert.is(threads(['--http.threads', '0']), 0);
  assert.is(threads(['--http.threads', '3']), 3);
  assert.throws(() => parseFlags(['--http.threads', 'two']), (e: Error) => e instanceof ConfigError && /--http\.threads must be an integer/.test(e.message));
});

it('no serving threads with --http.threads 0 or the node:http transport', async () => {
  for (const h of [http(0), http(2, { transport: 'node' })]) {
    const node = await startTestNode({ config: { http: h } });
    try {
      assert.equal(await node.rpcThreadStats(), []);
      assert.is(await node.rpc('eth_blockNumber'), '0x0');
    } finally {
      await node.stop();
    }
  }
});

test.run();
