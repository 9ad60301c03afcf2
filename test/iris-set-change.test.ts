// A validator set changed through NodeManagement on a running iris network (processes on
// loopback): an observer promoted to consensus validates from the block after the one that promoted
// it (5 validators: it proposes, and joins the consensus channel), and deleted again the set is back
// to the first 4 from the next block on; the chain stays live throughout.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fundedSender, receiptOn, sameHashes, startLocalNetwork, type LocalNetwork, type NetworkNode } from './helpers/network.ts';
import { rpcCall, runCli } from './helpers/process.ts';
import { decodeExtra } from '../src/chain/istanbul-extra.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

const TIMEOUT_MS = 1000;

const block = (n: NetworkNode, h: bigint) => rpcCall(n.http, 'eth_getBlockByNumber', ['0x' + h.toString(16), false]);
/** The validators a block's istanbul extra names, once `n` has the block (a receipt read on another node may be ahead of it). */
async function setOf(n: NetworkNode, h: bigint): Promise<string[]> {
  for (let waited = 0; ; waited += 100) {
    const b = await block(n, h);
    if (b) return decodeExtra(hexToBytes(b.extraData)).validators.map(bytesToHex).sort();
    assert.ok(waited < 30 * TIMEOUT_MS, `node ${n.http} has no block ${h} after ${waited} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `chain-node admin node …` against node 1 (the funded chain admin's account is unlocked there): the block it was mined in. */
async function admin(one: NetworkNode, ...args: string[]): Promise<bigint> {
  const run = await runCli(['admin', 'node', ...args, '--json', '--rpc', one.http]);
  assert.is(run.exit, 0, run.output);
  return BigInt(/"block": "?(\w+)/.exec(run.output)![1]!);
}

test('4 validators: an observer promoted validates from the next block, deleted it leaves; the chain stays live', async () => {
  let net: LocalNetwork | undefined;
  try {
    net = await startLocalNetwork({ validators: 4, observers: 1, timeoutMs: TIMEOUT_MS });
    const { nodes, validators } = net;
    const fifth = nodes[4]!;
    const four = validators.map((v) => v.address).sort();
    const five = [...four, fifth.address].sort();

    const promotedIn = await admin(nodes[0]!, 'update', 'node5', '--type', 'consensus');
    let send = await fundedSender(net.dir, nodes[0]!);
    // blocks enough for the five to take turns: the new validator proposes one of them
    const miners = new Set<string>();
    for (let i = 0; i < 8 && !miners.has(fifth.address); i++) {
      // the block from the node that answered the receipt: another may not have committed it yet
      const r = await receiptOn(nodes[i % 5]!, await send(...nodes), 30 * TIMEOUT_MS);
      miners.add((await block(nodes[i % 5]!, BigInt(r.blockNumber))).miner);
    }
    assert.equal(await setOf(nodes[0]!, promotedIn), four, 'the promoting block is decided by the four');
    assert.equal(await setOf(nodes[0]!, promotedIn + 1n), five, 'the next by the five');
    assert.ok(miners.has(fifth.address), `the promoted node proposes: ${[...miners].join(' ')}`);
    assert.match(readFileSync(join(fifth.datadir, 'node.log'), 'utf8'), /a validator: joined the consensus channel/);

    const deletedIn = await admin(nodes[0]!, 'delete', 'node5');
    send = await fundedSender(net.dir, nodes[0]!);
    const after = await receiptOn(nodes[1]!, await send(...validators), 30 * TIMEOUT_MS);
    assert.ok(BigInt(after.blockNumber) > deletedIn);
    assert.equal(await setOf(nodes[0]!, deletedIn), five);
    assert.equal(await setOf(nodes[0]!, deletedIn + 1n), four, 'back to the four from the block after the deletion');
    await sameHashes(validators);
  } finally {
    await net?.stop();
  }
});

test.run();
