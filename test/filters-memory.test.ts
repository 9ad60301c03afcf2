// The memory rule for filters nobody polls: 10,000 installed filters (the default --rpc.filter.max)
// and blocks full of logs keep memory flat (each filter keeps only its newest items), the
// filter count is capped, and the filters expire. Also the node-wide buffer budget, which
// removes the filter polled longest ago.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { batch, startTestNode, testAddress, type TestNode } from './helpers/node.ts';
import { Sender, topic } from './helpers/emitter.ts';
import { paced } from './helpers/pace.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

/** --rpc.filter.timeout on a quiet machine: installing 10,000 filters and sealing 20 blocks take ~2 s of it */
const QUIET_TIMEOUT_MS = 6000;
const PER_FILTER = 16;
const LOGS_PER_BLOCK = 40;

/** Installs n filters (80% log filters matching everything, 10% block, 10% pending-transaction). */
async function installMany(node: TestNode, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < n; start += 1000) {
    const calls: [string, unknown[]][] = [];
    for (let i = start; i < Math.min(n, start + 1000); i++) {
      calls.push(i % 10 === 8 ? ['eth_newBlockFilter', []] : i % 10 === 9 ? ['eth_newPendingTransactionFilter', []] : ['eth_newFilter', [{}]]);
    }
    for (const r of await batch(node, calls)) {
      assert.ok(r.result, `install failed: ${JSON.stringify(r.error)}`);
      ids.push(r.result);
    }
  }
  return ids;
}

function heapMiB(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

test('10,000 never-polled filters: memory stays flat, the count is capped, and they expire', async () => {
  // every filter comes from this one (loopback) client: its address's quota is raised to the node's cap
  const TIMEOUT_MS = Math.round(await paced(QUIET_TIMEOUT_MS));
  const node = await startTestNode({ config: { logs: { filterTimeoutMs: TIMEOUT_MS, maxBufferedPerFilter: PER_FILTER, maxFiltersPerAddress: 10_000 } } });
  try {
    const s = new Sender(node);
    const X = await s.deployEmitter();
    const ids = await installMany(node, 10_000);
    const over = await node.raw('eth_newFilter', [{}]);
    assert.match(over.error?.message ?? '', /too many filters installed \(limit 10000/, 'the 10,001st is refused');

    const seal = async (blocks: number) => {
      for (let i = 0; i < blocks; i++) await s.call(X, 'one', [topic(i + 1), LOGS_PER_BLOCK]);
    };
    await seal(5);
    const before = heapMiB();
    await seal(15);
    const after = heapMiB();
    // Unbounded, 8,000 log filters would now hold 15 × 40 more logs each (4.8 million entries,
    // ~40 MiB of references alone); bounded, each holds its newest 16 items from the first block on.
    assert.ok(after - before < 8, `heap grew ${(after - before).toFixed(1)} MiB over 15 blocks (${before.toFixed(1)} → ${after.toFixed(1)} MiB)`);

    // The filters were alive all along (polling one works), and a log filter keeps its newest
    // items only: the last 16 logs of the last block.
    const changes = await node.rpc('eth_getFilterChanges', [ids[0]]);
    assert.is(changes.length, PER_FILTER);
    const lastBlock = await node.rpc('eth_blockNumber');
    assert.ok(changes.every((l: any) => l.blockNumber === lastBlock));
    assert.equal(changes.map((l: any) => Number(l.logIndex)), Array.from({ length: PER_FILTER }, (_, i) => LOGS_PER_BLOCK - PER_FILTER + i));
    const blockChanges = await node.rpc('eth_getFilterChanges', [ids[8]]);
    assert.is(blockChanges.length, PER_FILTER, 'a block filter too');

    // Past the timeout every never-polled filter is gone and the full quota is free again.
    await sleep(TIMEOUT_MS + 200);
    const gone = await node.raw('eth_getFilterChanges', [ids[1]]);
    assert.match(gone.error?.message ?? '', /^filter not found/);
    await s.exec(testAddress(1), '0x'); // a block while no old filter is left to feed
    const freed = heapMiB();
    assert.ok(freed <= after + 2, `heap after expiry ${freed.toFixed(1)} MiB, with the filters ${after.toFixed(1)} MiB`);
    assert.is((await installMany(node, 10_000)).length, 10_000);
  } finally {
    await node.stop();
  }
});

test('node-wide budget: past maxBufferedTotal items the filter polled longest ago is removed', async () => {
  const node = await startTestNode({ config: { logs: { maxBufferedPerFilter: 4, maxBufferedTotal: 10 } } });
  try {
    const s = new Sender(node);
    const [f1, f2, f3] = [await node.rpc('eth_newBlockFilter'), await node.rpc('eth_newBlockFilter'), await node.rpc('eth_newBlockFilter')];
    assert.equal(await node.rpc('eth_getFilterChanges', [f1]), []); // f1 is now the most recently polled
    const hashes: string[] = [];
    for (let i = 0; i < 4; i++) hashes.push((await s.exec(testAddress(1), '0x')).blockHash);
    // 3 items per block: the 11th item (block 4) is over the budget of 10, so f2 (polled longest ago) goes
    assert.match((await node.raw('eth_getFilterChanges', [f2])).error?.message ?? '', /^filter not found/);
    assert.equal(await node.rpc('eth_getFilterChanges', [f3]), hashes);
    assert.equal(await node.rpc('eth_getFilterChanges', [f1]), hashes);
    // and each filter keeps at most 4 items, the newest
    for (let i = 0; i < 6; i++) hashes.push((await s.exec(testAddress(1), '0x')).blockHash);
    assert.equal(await node.rpc('eth_getFilterChanges', [f3]), hashes.slice(6));
  } finally {
    await node.stop();
  }
});

test.run();
