// Response size limits (issue 19, item 5), scaled down: --rpc.batch-response-max-size of 1 MB
// instead of 25 MB, logs of 100 KB of data (~200 KB of JSON each). Before the limit, 30 eth_getLogs
// in one batch were answered with 727 MB (RSS 2.7 GB) and 100 of them stalled the node for 55 s.
// Once a batch's answers would go over the limit, that entry and every later one get geth's -32003
// "response too large" and are not run; a single answer over the limit gets it too; the node keeps
// answering other clients meanwhile.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ALL_NAMESPACES, parseFlags, type NodeConfig } from '../src/node/config.ts';
import { startTestNode, type TestNode } from './helpers/node.ts';
import { Sender } from './helpers/emitter.ts';
import { paced, slowdown } from './helpers/pace.ts';

const LIMIT = 1_000_000;
const BLOB = 100_000;

let node: TestNode;
let emitter: string;
/** the blocks holding one 100 KB log each */
const blobBlocks: string[] = [];

test.before(async () => {
  // no serving threads: eth_blockNumber must be answered by the thread that runs the batches
  const http: NodeConfig['http'] = { addr: '127.0.0.1', port: 0, api: [...ALL_NAMESPACES], corsDomains: [], maxBodyBytes: 5 * 1024 * 1024, maxBatch: 1000, maxResponseBytes: LIMIT, threads: 0 };
  node = await startTestNode({ config: { http } });
  const s = new Sender(node);
  emitter = await s.deployEmitter();
  for (let i = 0; i < 6; i++) blobBlocks.push((await s.call(emitter, 'blob', [BLOB])).blockNumber);
});
test.after(async () => {
  await node.stop();
});

async function post(body: unknown): Promise<{ value: any; bytes: number }> {
  const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { value: JSON.parse(text), bytes: Buffer.byteLength(text) };
}

/** eth_getLogs of the emitter over the first `blocks` blob blocks (~200 KB of JSON each). */
function getLogs(id: number, blocks: number) {
  return { jsonrpc: '2.0', id, method: 'eth_getLogs', params: [{ address: emitter, fromBlock: blobBlocks[0], toBlock: blobBlocks[blocks - 1] }] };
}

test('a batch past the limit: the entries that do not fit get -32003 "response too large", each with its id', async () => {
  const batch = [
    getLogs(1, 2), // ~400 KB
    getLogs(2, 2), // ~800 KB in all
    { jsonrpc: '2.0', id: 3, method: 'eth_blockNumber', params: [] },
    getLogs(4, 2), // would make ~1.2 MB: over
    { jsonrpc: '2.0', id: 5, method: 'eth_blockNumber', params: [] }, // fits, but the batch is over: not run
    { jsonrpc: '2.0', method: 'eth_blockNumber', params: [] }, // a notification: still no answer
    { jsonrpc: '1.0', id: 7, method: 'eth_blockNumber' }, // a bad envelope keeps its own error
    ...Array.from({ length: 200 }, (_, i) => getLogs(100 + i, 2)),
  ];
  const { value, bytes } = await post(batch);
  assert.ok(bytes < LIMIT + 30_000, `the answer is ${bytes} bytes`);
  assert.is(value.length, batch.length - 1);
  assert.is(value[0].result.length, 2);
  assert.is(value[1].result.length, 2);
  assert.match(value[2].result, /^0x/);
  const tooLarge = { code: -32003, message: 'response too large' };
  assert.equal(value[3], { jsonrpc: '2.0', id: 4, error: tooLarge });
  assert.equal(value[4], { jsonrpc: '2.0', id: 5, error: tooLarge });
  assert.is(value[5].id, 7);
  assert.is(value[5].error.code, -32600);
  for (let i = 6; i < value.length; i++) assert.equal(value[i], { jsonrpc: '2.0', id: 100 + i - 6, error: tooLarge });
});

test('a single answer over the limit gets -32003; one under it is answered whole', async () => {
  const over = await post(getLogs(1, 6)); // ~1.2 MB
  assert.equal(over.value, { jsonrpc: '2.0', id: 1, error: { code: -32003, message: 'response too large' } });
  const under = await post(getLogs(2, 4)); // ~800 KB
  assert.is(under.value.result.length, 4);
  assert.is(under.value.result[3].data.length, 2 + 2 * (BLOB + 64));
});

test('the node keeps answering eth_blockNumber within a second while clients send batches of large answers', async () => {
  const pace = await slowdown();
  const batches = Array.from({ length: 8 }, (_, c) => post(Array.from({ length: 1000 }, (_, i) => getLogs(c * 1000 + i, 3))));
  let done = false;
  const all = Promise.all(batches).finally(() => (done = true));
  let slowest = 0;
  let asked = 0;
  while (!done) {
    const t0 = performance.now();
    assert.match((await post({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })).value.result, /^0x/);
    slowest = Math.max(slowest, performance.now() - t0);
    asked++;
  }
  const answers = await all;
  const bound = await paced(1000, pace);
  assert.ok(slowest < bound, `slowest eth_blockNumber took ${slowest.toFixed(0)} ms (${asked} asked; bound ${bound.toFixed(0)} ms at this machine's pace)`);
  for (const { bytes } of answers) assert.ok(bytes < LIMIT + 100_000, `a batch answer of ${bytes} bytes`);
});

test('an eth_call returning 4 MiB on a dev chain (results checked against the schema) is answered whole (was -32603 "is nested too deeply")', async () => {
  const dev = await startTestNode({ dev: true });
  try {
    const size = 4 * 1024 * 1024;
    // code at an overridden address: RETURN(0, 4 MiB) — 4 MiB of zeros
    const code = '0x62' + size.toString(16).padStart(6, '0') + '6000f3';
    const to = '0x' + '42'.repeat(20);
    const r = await dev.raw('eth_call', [{ to, data: '0x' }, 'latest', { [to]: { code } }]);
    assert.is(r.error, undefined, JSON.stringify(r.error));
    assert.is(r.result.length, 2 + 2 * size);
    assert.ok(/^0x0+$/.test(r.result));
  } finally {
    await dev.stop();
  }
});

test('--rpc.batch-response-max-size: geth\'s default 25,000,000, 0 for no limit, anything else refused', () => {
  const size = (argv: string[]) => (parseFlags(argv) as NodeConfig).http.maxResponseBytes;
  assert.is(size([]), 25_000_000);
  assert.is(size(['--rpc.batch-response-max-size', '0']), 0);
  assert.is(size(['--rpc.batch-response-max-size', '1000000']), 1_000_000);
  assert.throws(() => parseFlags(['--rpc.batch-response-max-size', '25MB']), /--rpc\.batch-response-max-size must be an integer/);
});

test.run();
