// The log index's memory bound holds for what its logs really keep: each log's objects and the
// JSON the API makes of it, not only its payload. Counting payload alone, the soak's logs (two
// topics, no data: 84 bytes) held ~2.8 KiB each, so 50,000 of them held ~140 MiB
// under a 32 MiB bound, and the node grew for the ~45 minutes the index took to fill.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import WebSocket from 'ws';
import { startTestNode, type TestNode } from './helpers/node.ts';
import { Sender, topic } from './helpers/emitter.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const BUDGET = 2 * 1024 * 1024;
/** blocks of LOGS_PER_BLOCK logs each (one topic, no data): an answer per block stays under 64 KiB */
const BLOCKS = 100;
const LOGS_PER_BLOCK = 40;
/** blocks sealed and read before the baseline */
const WARM_BLOCKS = 30;
/** the newest blocks, whose logs are read before memory is measured */
const READ_BLOCKS = 30;

function heldMiB(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return (m.heapUsed + m.external) / 2 ** 20;
}

async function indexLevels(node: TestNode): Promise<{ logs: number; bytes: number }> {
  const text = await (await fetch(node.metricsUrl!)).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return { logs: read('chain_log_index_logs'), bytes: read('chain_log_index_bytes') };
}

test('logs past the index budget leave memory at the budget; answers stay whole', async () => {
  const node = await startTestNode({ config: { logs: { indexBytes: BUDGET }, metrics: { addr: '127.0.0.1', port: 0 } } });
  try {
    const s = new Sender(node);
    const emitter = await s.deployEmitter();
    // a logs subscription, so each log's text is made for the pushes as well as its bytes for eth_getLogs
    const ws = new WebSocket(node.wsUrl);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    let pushed = 0;
    ws.on('message', () => pushed++); // counted, not kept: this process's memory is measured
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['logs', { address: emitter }] }));
    const getLogs = (n: number) => node.rpc<unknown[]>('eth_getLogs', [{ address: emitter, fromBlock: '0x' + n.toString(16), toBlock: '0x' + n.toString(16) }]);
    // the same work first, so that what it allocates once (optimised code, pools) is in the baseline
    for (let i = 0; i < WARM_BLOCKS; i++) await getLogs(Number((await s.call(emitter, 'one', [topic(i), LOGS_PER_BLOCK])).blockNumber));
    const before = heldMiB();
    let head = 0;
    for (let i = WARM_BLOCKS; i < WARM_BLOCKS + BLOCKS; i++) head = Number((await s.call(emitter, 'one', [topic(i), LOGS_PER_BLOCK])).blockNumber);
    // the newest blocks' logs read, so their JSON is made and kept as long as they are indexed (the
    // older ones are not: reading them again from the chain would fill the chain's receipt cache)
    for (let n = head - READ_BLOCKS + 1; n <= head; n++) await getLogs(n);
    const grown = heldMiB() - before;
    const levels = await indexLevels(node);
    assert.ok(levels.bytes <= BUDGET, `the index counts ${levels.bytes} bytes, over its ${BUDGET}`);
    // counting payload only, all 4,000 new logs stayed: ~7 MiB
    assert.ok(grown < (BUDGET / 2 ** 20) * 1.5, `heap + external grew ${grown.toFixed(1)} MiB with ${levels.logs} logs indexed; the budget is ${BUDGET / 2 ** 20} MiB`);
    assert.ok(levels.logs < (BLOCKS * LOGS_PER_BLOCK) / 2, `the index keeps ${levels.logs} of ${BLOCKS * LOGS_PER_BLOCK} logs`);
    // every log is still answered, the evicted ones read again from the chain
    let logs = 0;
    for (let n = 0; n <= head; n++) logs += (await getLogs(n)).length;
    assert.is(logs, (WARM_BLOCKS + BLOCKS) * LOGS_PER_BLOCK);
    assert.is(pushed, 1 + (WARM_BLOCKS + BLOCKS) * LOGS_PER_BLOCK, 'the subscription answer and every log pushed');
    ws.close();
  } finally {
    await node.stop();
  }
});

test.run();
