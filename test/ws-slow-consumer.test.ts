// A WebSocket client that subscribes and then stops reading must not make the node buffer without
// bound: once the socket's send buffer is over its cap the node drops the subscriptions (with a
// log line) instead of queueing every later notification.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ALL_NAMESPACES } from '../src/node/config.ts';
import { startTestNode, testAddress } from './helpers/node.ts';
import { Sender } from './helpers/emitter.ts';
import { WsRpc } from './helpers/ws-rpc.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

const CAP = 256 * 1024;
const SUBSCRIPTIONS = 8;
const BLOB = 100_000; // bytes of log data per block: ~200 KB of JSON per notification
const BLOCKS = 25; // unbounded, ~40 MB of notifications would queue

/** JS heap plus Buffers (`external` includes ArrayBuffers): where queued notifications would sit. */
function memoryMiB(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return (m.heapUsed + m.external) / 2 ** 20;
}

test('a subscriber that stops reading is dropped; the node\'s buffers stay bounded', async () => {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  // the node logs to stderr; keep its lines for the assertion below instead of printing them
  process.stderr.write = ((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  const node = await startTestNode({
    config: {
      verbosity: 2, // warnings
      http: { addr: '127.0.0.1', port: 0, api: [...ALL_NAMESPACES], corsDomains: [], maxBodyBytes: 5 * 1024 * 1024, maxBatch: 1000, wsMaxBufferedBytes: CAP },
    },
  });
  const client = await WsRpc.open(node.wsUrl);
  try {
    const s = new Sender(node);
    const X = await s.deployEmitter();
    const ids: string[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) ids.push(await client.call('eth_subscribe', ['logs', { address: X }]));
    const heads = await client.call('eth_subscribe', ['newHeads']);
    const first = await s.call(X, 'blob', [BLOB]);
    await client.waitFor(heads, 1);
    await client.waitFor(ids[0]!, 1);
    assert.is(client.results(ids[0]!)[0].data, first.logs[0].data, 'a subscriber that reads gets everything');

    const before = memoryMiB();
    client.ws.pause(); // stop reading: TCP fills up, then the node's send buffer
    for (let i = 0; i < BLOCKS; i++) await s.call(X, 'blob', [BLOB]);
    const during = memoryMiB();
    assert.ok(during - before < 12, `memory grew ${(during - before).toFixed(1)} MiB over ${BLOCKS} blocks of ~${((SUBSCRIPTIONS * 2 * BLOB) / 2 ** 20).toFixed(1)} MiB of notifications each`);

    const received = client.notes.length;
    client.ws.resume();
    // let the backlog drain first: a request answered while the send buffer is over its cap
    // closes the connection (src/rpc/ws.ts)
    for (let n = -1; n !== client.notes.length; ) {
      n = client.notes.length;
      await sleep(200);
    }
    // every subscription on the socket was dropped: unsubscribe finds none of them
    for (const id of [...ids, heads]) assert.is(await client.call('eth_unsubscribe', [id]), false, `${id} was dropped`);
    const delivered = client.notes.length;
    assert.ok(delivered < (BLOCKS + 1) * (SUBSCRIPTIONS + 1), `${delivered} notifications reached the client, not all ${(BLOCKS + 1) * (SUBSCRIPTIONS + 1)}`);
    assert.ok(delivered >= received);
    // the connection still works, and nothing more is pushed on it
    const later = await s.exec(testAddress(1), '0x');
    assert.ok(later.blockHash);
    await sleep(100);
    assert.is(client.notes.length, delivered);
    assert.equal(client.invalid, []);
  } finally {
    process.stderr.write = write;
    await client.close();
    await node.stop();
  }
  const dropped = lines.filter((l) => /subscription 0x[0-9a-f]+ dropped: its WebSocket is closing or its client is not reading/.test(l));
  assert.is(dropped.length, SUBSCRIPTIONS + 1, `one log line per dropped subscription:\n${lines.join('')}`);
});

test.run();
