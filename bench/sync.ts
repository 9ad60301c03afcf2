// Sync bench (issue 21): a validator's chain of BLOCKS blocks holding TXS transfers each is made
// in-process (the validator seals them as it would any transactions), then a follower on the same
// genesis imports all of it, and the rate is blocks and transactions per second:
//   - `door`: in this process, the follower's ChainDoor.importBlocks fed with the validator's
//     ChainDoor.blocks in chunks of CHUNK_BLOCKS (the chain side alone: decoding, seal and sender
//     recovery, execution, commits; no network).
//
//   node --import tsx bench/sync.ts [--blocks N] [--txs N]
//
// `syncBench()` returns the rows for `npm run bench`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestNode, testGenesis, NODE_KEY, type TestNode } from '../test/helpers/node.ts';
import { sealTransferBlocks } from '../test/helpers/blocks.ts';
import { CoreChainDoor } from '../src/node/chain-door.ts';
import { CHUNK_BLOCKS } from '../src/p2p/sync.ts';

export interface SyncResult {
  blocks: number;
  txs: number;
  seconds: number;
}

/** A validator node (in-process) whose chain holds `blocks` blocks of `txs` transfers each (one from each of `txs` senders). */
export async function makeChain(blocks: number, txs: number, dir: string): Promise<TestNode> {
  const a = await startTestNode({ dir, genesis: testGenesis(NODE_KEY, txs, 0), config: { directTransfers: true } });
  await sealTransferBlocks(a, blocks, txs);
  return a;
}

/** The follower imports the validator's chain door to door, one chunk at a time, the next one read while the previous imports. */
export async function importDoorToDoor(a: TestNode, dir: string): Promise<SyncResult> {
  // the validator's genesis as it stored it, and a key of its own: a follower
  const b = await startTestNode({ dir, genesis: JSON.parse(a.core.store.meta.get('genesisJson') as string), nodeKey: '77'.repeat(32) });
  try {
    const from = new CoreChainDoor(a.core);
    const to = new CoreChainDoor(b.core);
    const target = from.head().number;
    let txs = 0;
    const t0 = performance.now();
    let next = 1n;
    while (next <= target) {
      const outcome = await to.importBlocks(from.blocks(next, CHUNK_BLOCKS, 16 << 20));
      if (outcome.refused) throw new Error(`block #${next + BigInt(outcome.refused.index)} refused: ${outcome.refused.reason}`);
      txs += outcome.transactions;
      next = to.head().number + 1n;
    }
    return { blocks: Number(target), txs, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await b.stop();
  }
}

export async function syncBench(blocks = 10_000, txs = 10): Promise<SyncResult> {
  const dirA = mkdtempSync(join(tmpdir(), 'chain-node-sync-a-'));
  const dirB = mkdtempSync(join(tmpdir(), 'chain-node-sync-b-'));
  const a = await makeChain(blocks, txs, dirA);
  try {
    return await importDoorToDoor(a, dirB);
  } finally {
    await a.stop();
    rmSync(dirA, { recursive: true, force: true });
    rmSync(dirB, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { blocks: { type: 'string', default: '10000' }, txs: { type: 'string', default: '10' } } });
  const t0 = performance.now();
  const r = await syncBench(Number(values.blocks), Number(values.txs));
  console.log(`door to door: ${r.blocks} blocks, ${r.txs} txs in ${r.seconds.toFixed(2)} s: ${(r.blocks / r.seconds).toFixed(0)} blocks/s, ${(r.txs / r.seconds).toFixed(0)} tx/s (whole run ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}
