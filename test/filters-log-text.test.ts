// Log lists go out as text joined from each log's cached JSON (F7). These
// answers must be byte-for-byte what formatting the logs gives: checked against the logs of the
// receipts (formatted by src/api/format.ts, no text cache), on a fresh index, on a warm one, after
// a restart (cold index, blocks read back from LMDB) and across the edge of a deliberately small
// index window (4 blocks), where some logs come from cached text and some are formatted again.
// Answers over 64 KiB are assembled in reused memory (src/rpc/reply-buffers.ts): checked with many
// in flight at once, in a batch and over WebSocket.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestNode, testAddress, type TestNode } from './helpers/node.ts';
import { WebSocket } from 'ws';
import { Sender, emitterAbi, mined, topic } from './helpers/emitter.ts';

const WINDOW = 4;
const dir = mkdtempSync(join(tmpdir(), 'chain-node-log-text-'));
const start = () => startTestNode({ dir, config: { logs: { indexBlocks: WINDOW } } });

let node: TestNode;
let X: string;
let Y: string;
/** every log of the chain, as the receipts format them, in block order */
let receiptLogs: any[] = [];
let head = 0;

/** The exact response text of one request. */
async function text(method: string, params: unknown[]): Promise<string> {
  const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
  return res.text();
}

const expected = (logs: any[]) => JSON.stringify({ jsonrpc: '2.0', id: 7, result: logs });
const inRange = (from: number, to: number) => receiptLogs.filter((l) => Number(l.blockNumber) >= from && Number(l.blockNumber) <= to);
const hex = (n: number) => '0x' + n.toString(16);

/** getLogs over from..to (optionally narrowed) answers exactly the receipts' logs, twice in a row. */
async function checkRange(from: number, to: number, narrow: { address?: string | string[]; topics?: unknown[] } = {}, pick: (l: any) => boolean = () => true) {
  const want = expected(inRange(from, to).filter(pick));
  const filter = { fromBlock: hex(from), toBlock: hex(to), ...narrow };
  assert.is(await text('eth_getLogs', [filter]), want, `first answer for ${JSON.stringify(filter)}`);
  assert.is(await text('eth_getLogs', [filter]), want, `repeated answer for ${JSON.stringify(filter)}`);
}

test.before(async () => {
  node = await start();
  const s = new Sender(node);
  X = await s.deployEmitter(); // block 1
  Y = await s.deployEmitter(); // block 2
  const receipts = [
    await s.call(X, 'pair', [topic(0xa), topic(0xb)]),
    await s.call(X, 'one', [topic(0xc), 3]), // three logs in one transaction
    await s.call(Y, 'ping', [12345]), // an address topic and data
    await s.exec(testAddress(1), '0x'), // no logs
    await s.call(X, 'blob', [70]), // dynamic data
    await s.call(Y, 'pair', [topic(0xb), topic(0xa)]),
  ];
  // two transactions, four logs, one block: block-wide log indexes
  const first = s.nonce;
  s.nonce += 2;
  const later = await node.rpc('eth_sendRawTransaction', [await s.sign(Y, emitterAbi.encodeFunctionData('one', [topic(0xd), 2]), first + 1)]);
  const earlier = await node.rpc('eth_sendRawTransaction', [await s.sign(X, emitterAbi.encodeFunctionData('one', [topic(0xd), 2]), first)]);
  receipts.push(await mined(node, earlier), await mined(node, later));
  for (let i = 0; i < 3; i++) receipts.push(await s.call(i % 2 ? X : Y, 'ping', [i]));
  receiptLogs = receipts.flatMap((r) => r.logs);
  head = Number(await node.rpc('eth_blockNumber'));
  assert.ok(head >= 3 * WINDOW, `enough blocks for the window edge (head ${head})`);
  assert.is(receiptLogs.length, 14);
});
test.after(async () => {
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a fresh index: whole chain, inside the window, across its edge', async () => {
  await checkRange(0, head);
  await checkRange(head - WINDOW + 2, head); // blocks sealed into the index, texts made on first use
  await checkRange(head - WINDOW - 2, head - 1); // spans the window edge
  await checkRange(1, WINDOW); // long gone from the window: read back and formatted
});

test('narrowed by address and topics, and an empty answer', async () => {
  await checkRange(0, head, { address: X }, (l) => l.address === X.toLowerCase());
  await checkRange(0, head, { address: [Y], topics: [topic(0xd)] }, (l) => l.address === Y.toLowerCase() && l.topics[0] === topic(0xd));
  await checkRange(0, head, { address: '0x' + '5a'.repeat(20) }, () => false);
  assert.is(await text('eth_getLogs', [{ fromBlock: hex(head), toBlock: hex(head), topics: [topic(0xee)] }]), '{"jsonrpc":"2.0","id":7,"result":[]}');
});

test('blockHash queries, getFilterLogs and getFilterChanges answer the same bytes', async () => {
  const multi = receiptLogs.find((l) => l.logIndex === '0x3')!; // the block with two transactions
  const block = Number(multi.blockNumber);
  const want = expected(inRange(block, block));
  assert.is(await text('eth_getLogs', [{ blockHash: multi.blockHash }]), want);
  assert.is(await text('eth_getLogs', [{ blockHash: multi.blockHash }]), want);

  const id = await node.rpc('eth_newFilter', [{ fromBlock: hex(block), toBlock: 'latest' }]);
  assert.is(await text('eth_getFilterLogs', [id]), expected(inRange(block, head)));
  const s = new Sender(node, 2);
  const r = await s.call(X, 'pair', [topic(1), topic(2)]);
  assert.is(await text('eth_getFilterChanges', [id]), expected(r.logs));
  assert.is(await text('eth_getFilterChanges', [id]), expected([]));
  receiptLogs.push(...r.logs);
  head = Number(r.blockNumber);
});

test('answers over 64 KiB (assembled in reused memory) stay exact when many are in flight, in a batch and over WebSocket', async () => {
  // three blocks with a 30,000-byte log each (60 KB of hex): ranges of two or more blocks are large
  // enough to be assembled in the reply pool (src/rpc/reply-buffers.ts)
  const s = new Sender(node, 3);
  for (let i = 0; i < 3; i++) receiptLogs.push(...(await s.call(X, 'blob', [30_000 + i])).logs);
  head = Number(receiptLogs.at(-1).blockNumber);
  const ranges = [[head - 2, head], [head - 1, head], [head - 2, head - 1], [0, head]] as const;
  const wants = ranges.map(([from, to]) => expected(inRange(from, to)));
  assert.ok(wants.every((w) => w.length > 64 * 1024), 'every answer is large enough to be pooled');
  // 48 requests at once, the ranges interleaved: an answer's memory reused while another is being
  // written would show up as one answer carrying another's bytes
  const answers = await Promise.all(Array.from({ length: 48 }, (_, i) => text('eth_getLogs', [{ fromBlock: hex(ranges[i % 4]![0]), toBlock: hex(ranges[i % 4]![1]) }])));
  answers.forEach((a, i) => assert.ok(a === wants[i % 4], `answer ${i} (range ${ranges[i % 4]}) is exact`));

  const batch = ranges.map(([from, to], i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getLogs', params: [{ fromBlock: hex(from), toBlock: hex(to) }] }));
  const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
  const batchText = await res.text();
  assert.is(batchText, '[' + ranges.map(([from, to], i) => JSON.stringify({ jsonrpc: '2.0', id: i, result: inRange(from, to) })).join(',') + ']');

  const ws = new WebSocket(node.url.replace(/^http/, 'ws'));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const frames: { text: string; binary: boolean }[] = [];
  const all = new Promise<void>((resolve) =>
    ws.on('message', (data, binary) => {
      frames.push({ text: data.toString(), binary });
      if (frames.length === 8) resolve();
    }),
  );
  for (let i = 0; i < 8; i++) ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_getLogs', params: [{ fromBlock: hex(ranges[i % 4]![0]), toBlock: hex(ranges[i % 4]![1]) }] }));
  await all;
  ws.close();
  frames.forEach((f, i) => {
    assert.is(f.binary, false, 'a text frame');
    assert.ok(f.text === wants[i % 4], `WebSocket answer ${i} is exact`);
  });
});

test('after a restart (cold index, logs read back from the store): the same bytes, cold and warm', async () => {
  const before = await text('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head) }]);
  await node.stop();
  node = await start();
  const cold = await text('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head) }]);
  assert.is(cold, before);
  assert.is(cold, expected(receiptLogs));
  await checkRange(head - WINDOW + 1, head);
  await checkRange(head - WINDOW - 1, head);
});

test.run();
