// eth_getLogs against a real node: every row of the spec's topic-matching table, address arrays,
// blockHash queries, the TAG defaults, block-wide log indexes, and the range / result limits.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestNode, testAddress, type TestNode } from './helpers/node.ts';
import { Sender, emitterAbi, mined, topic } from './helpers/emitter.ts';

const A = topic(0xa);
const B = topic(0xb);
const C = topic(0xc);
const Z = '0x' + '5a'.repeat(20);

let node: TestNode;
let s: Sender;
let X: string;
let Y: string;
/** receipts by block number of the log-emitting blocks */
const r: Record<number, any> = {};

/** Block numbers of the logs a getLogs call returns (one entry per log). */
async function blocks(filter: object, method = 'eth_getLogs'): Promise<number[]> {
  const logs = await node.rpc(method, [filter]);
  return logs.map((l: any) => Number(l.blockNumber));
}

async function error(filter: object) {
  const res = await node.raw('eth_getLogs', [filter]);
  assert.ok(res.error, `expected an error, got ${JSON.stringify(res.result)?.slice(0, 200)}`);
  return res.error!;
}

test.before(async () => {
  node = await startTestNode({ config: { logs: { maxRange: 10, maxResults: 5 } } });
  s = new Sender(node);
  X = await s.deployEmitter(); // block 1
  Y = await s.deployEmitter(); // block 2
  for (let i = 0; i < 3; i++) await s.exec(testAddress(1), '0x'); // blocks 3-5: no logs
  r[6] = await s.call(X, 'pair', [A, B]);
  r[7] = await s.call(X, 'pair', [B, A]);
  r[8] = await s.call(Y, 'pair', [A, B]);
  r[9] = await s.call(X, 'one', [A, 1]);
  // block 10: two transactions in one block (the later nonce goes first, so both become pending together)
  const first = s.nonce;
  s.nonce += 2;
  const later = await node.rpc('eth_sendRawTransaction', [await s.sign(X, emitterAbi.encodeFunctionData('pair', [A, C]), first + 1)]);
  const earlier = await node.rpc('eth_sendRawTransaction', [await s.sign(X, emitterAbi.encodeFunctionData('pair', [C, A]), first)]);
  r[10] = [await mined(node, earlier), await mined(node, later)];
  r[11] = await s.call(X, 'one', [C, 6]); // six logs in one transaction
  r[12] = await s.call(X, 'pair', [C, C]);
  assert.is(await node.rpc('eth_blockNumber'), '0xc');
  assert.is(Number(r[10][0].blockNumber), 10, 'both transactions in block 10');
  assert.is(Number(r[10][1].blockNumber), 10);
});
test.after(() => node.stop());

const range = { fromBlock: '0x6', toBlock: '0x9' }; // L6 X[A,B], L7 X[B,A], L8 Y[A,B], L9 X[A]

test('topic table: [] matches any topics', async () => {
  assert.equal(await blocks({ ...range, topics: [] }), [6, 7, 8, 9]);
  assert.equal(await blocks({ ...range }), [6, 7, 8, 9], 'absent topics');
  assert.equal(await blocks({ ...range, topics: null }), [6, 7, 8, 9], 'null topics');
});

test('topic table: [A] matches A in the first position', async () => {
  assert.equal(await blocks({ ...range, topics: [A] }), [6, 8, 9]);
  assert.equal(await blocks({ ...range, topics: [B] }), [7]);
  assert.equal(await blocks({ ...range, topics: [C] }), []);
});

test('topic table: [null, B] matches anything first and B second', async () => {
  assert.equal(await blocks({ ...range, topics: [null, B] }), [6, 8]);
  assert.equal(await blocks({ ...range, topics: [null, A] }), [7]);
  // a log with fewer topics than the filter's positions never matches (L9 has one topic)
  assert.equal(await blocks({ ...range, topics: [null, null] }), [6, 7, 8]);
});

test('topic table: [A, B] matches A first and B second', async () => {
  assert.equal(await blocks({ ...range, topics: [A, B] }), [6, 8]);
  assert.equal(await blocks({ ...range, topics: [B, A] }), [7]);
  assert.equal(await blocks({ ...range, topics: [A, A] }), []);
});

test('topic table: [[A, B], [A, B]] matches A or B in each position', async () => {
  assert.equal(await blocks({ ...range, topics: [[A, B], [A, B]] }), [6, 7, 8]);
  assert.equal(await blocks({ ...range, topics: [[A, B]] }), [6, 7, 8, 9]);
  assert.equal(await blocks({ ...range, topics: [[B, C], [A, C]] }), [7]);
  assert.equal(await blocks({ ...range, topics: [[], [B]] }), [6, 8], 'an empty alternative list is a wildcard');
});

test('the spec spellings fromblock / toblock / topic give the same answers', async () => {
  assert.equal(await blocks({ fromblock: '0x6', toblock: '0x9', topic: [null, B] }), [6, 8]);
  assert.equal(await blocks({ fromblock: '0x6', toblock: '0x9', topic: [[A, B], [A, B]] }), [6, 7, 8]);
  // camelCase wins when both are given
  assert.equal(await blocks({ fromBlock: '0x6', fromblock: '0x1', toBlock: '0x7', toblock: '0xc', topics: [B], topic: [A] }), [7]);
});

test('address: one address, an array, none matching, and with topics', async () => {
  assert.equal(await blocks({ ...range, address: X }), [6, 7, 9]);
  assert.equal(await blocks({ ...range, address: Y }), [8]);
  assert.equal(await blocks({ ...range, address: [X, Y] }), [6, 7, 8, 9]);
  assert.equal(await blocks({ ...range, address: [Y, Z] }), [8]);
  assert.equal(await blocks({ ...range, address: [Z] }), []);
  assert.equal(await blocks({ ...range, address: [] }), [6, 7, 8, 9], 'an empty list matches any address');
  assert.equal(await blocks({ ...range, address: [X], topics: [A] }), [6, 9]);
  assert.equal(await blocks({ ...range, address: [Y, Z], topics: [null, B] }), [8]);
  assert.equal(await blocks({ ...range, address: X.toUpperCase().replace('0X', '0x'), topics: [A.toUpperCase().replace('0X', '0x')] }), [6, 9], 'any hex case');
});

test('a log carries removed, block-wide logIndex, block and transaction fields', async () => {
  const [log] = await node.rpc('eth_getLogs', [{ fromBlock: '0x6', toBlock: '0x6' }]);
  assert.equal(log, {
    removed: false,
    logIndex: '0x0',
    transactionIndex: '0x0',
    transactionHash: r[6].transactionHash,
    blockHash: r[6].blockHash,
    blockNumber: '0x6',
    address: X,
    data: '0x',
    topics: [A, B],
  });
  assert.equal(log, r[6].logs[0], 'the same object as in the receipt');
  const two = await node.rpc('eth_getLogs', [{ fromBlock: '0xa', toBlock: '0xa' }]);
  assert.equal(two.map((l: any) => [l.logIndex, l.transactionIndex, l.transactionHash, l.topics]), [
    ['0x0', '0x0', r[10][0].transactionHash, [C, A]],
    ['0x1', '0x1', r[10][1].transactionHash, [A, C]],
  ]);
});

test('blockHash selects one block (either spelling)', async () => {
  const hash = r[10][0].blockHash;
  const logs = await node.rpc('eth_getLogs', [{ blockHash: hash }]);
  assert.equal(logs.map((l: any) => l.logIndex), ['0x0', '0x1']);
  assert.ok(logs.every((l: any) => l.blockHash === hash && l.blockNumber === '0xa'));
  assert.equal(await node.rpc('eth_getLogs', [{ blockhash: hash, topics: [A] }]), [logs[1]]);
  assert.equal(await node.rpc('eth_getLogs', [{ blockHash: hash, address: Y }]), []);
  assert.equal(await node.rpc('eth_getLogs', [{ blockHash: r[8].blockHash }]), r[8].logs);
});

test('blockHash errors: combined with a range, unknown, over the result cap', async () => {
  const both = await error({ blockHash: r[8].blockHash, fromBlock: '0x1' });
  assert.is(both.code, -32602);
  assert.match(both.message, /argument 0 \(filter\).*blockHash cannot be combined with fromBlock\/toBlock/);
  const toOnly = await error({ blockhash: r[8].blockHash, toblock: 'latest' });
  assert.is(toOnly.code, -32602);
  const unknown = await error({ blockHash: '0x' + 'ee'.repeat(32) });
  assert.is(unknown.code, -32000);
  assert.match(unknown.message, /unknown block/);
  const many = await error({ blockHash: r[11].blockHash });
  assert.is(many.code, -32000);
  assert.match(many.message, /more than 5 logs.*--rpc\.logs\.maxresults/);
});

test('TAG defaults: fromBlock and toBlock default to latest; pending reads as latest', async () => {
  assert.equal(await blocks({}), [12]);
  assert.equal(await blocks({ fromBlock: 'latest' }), [12]);
  assert.equal(await blocks({ toBlock: 'latest' }), [12]);
  assert.equal(await blocks({ fromBlock: 'pending', toBlock: 'pending' }), [12]);
  assert.equal(await blocks({ fromBlock: '0x6', address: Y }), [8], 'toBlock defaults to latest');
  assert.equal(await blocks({ fromBlock: 'earliest', toBlock: '0x9', address: Y }), [8]);
  assert.equal(await blocks({ fromBlock: 6, toBlock: 9 }), [6, 7, 8, 9], 'plain JSON integers (D9)');
  assert.equal(await blocks({ fromBlock: '0xc', toBlock: '0x100' }), [12], 'toBlock beyond the head reads up to the head');
  assert.equal(await blocks({ fromBlock: '0x100' }), [], 'fromBlock beyond the head: nothing yet');
  assert.equal(await blocks({ toBlock: '0x9' }), [], 'latest..9 is empty');
});

test('range limit (--rpc.logs.maxrange, 10 here) and result cap (--rpc.logs.maxresults, 5 here)', async () => {
  assert.equal(await blocks({ fromBlock: '0x3', toBlock: '0xc', address: Y }), [8], '10 blocks: at the limit');
  const wide = await error({ fromBlock: '0x2', toBlock: '0xc', address: Y });
  assert.is(wide.code, -32000);
  assert.match(wide.message, /block range too large: 11 blocks.*limit is 10 \(--rpc\.logs\.maxrange\)/);
  const earliest = await error({ fromBlock: 'earliest' });
  assert.match(earliest.message, /block range too large: 13 blocks/);
  const many = await error({ fromBlock: '0xb', toBlock: '0xb' });
  assert.is(many.code, -32000);
  assert.match(many.message, /more than 5 logs/);
  assert.equal(await blocks({ fromBlock: '0x7', toBlock: '0xa' }), [7, 8, 9, 10, 10], 'exactly 5 logs: at the cap');
  assert.match((await error({ fromBlock: '0x6', toBlock: '0xa' })).message, /more than 5 logs/, '6 logs');
});

test('bad filters are invalid params naming the field', async () => {
  const reversed = await error({ fromBlock: '0x9', toBlock: '0x6' });
  assert.is(reversed.code, -32602);
  assert.match(reversed.message, /fromBlock \(9\) is after toBlock \(6\)/);
  const badAddress = await error({ address: '0x1234' });
  assert.is(badAddress.code, -32602);
  assert.match(badAddress.message, /argument 0 \(filter\)/);
  const fiveTopics = await error({ topics: [A, A, A, A, A] });
  assert.is(fiveTopics.code, -32602);
  const badTopic = await error({ topics: ['0x12'] });
  assert.is(badTopic.code, -32602);
  const badTag = await error({ fromBlock: 'finalized-ish' });
  assert.is(badTag.code, -32602);
});

test('chain_getLogs is eth_getLogs', async () => {
  const f = { ...range, topics: [[A, B], [A, B]] };
  assert.equal(await node.rpc('chain_getLogs', [f]), await node.rpc('eth_getLogs', [f]));
});

test.run();
