// A network of real processes on loopback, made by `npm run network` (test/helpers/network.ts):
// 1 validator + 3 followers connect, a transaction sent to a follower is mined and its receipt is on
// every node, every node has the same block at every height, a follower SIGKILLed and restarted
// catches up, and a 5th node added by a re-run with --nodes 5 syncs and then follows.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanUp, fundedKey, hashAt, head, networkDir, nextNonce, receiptOn, restartNode, runNetwork, sameHashes, signedTransfer, until, type NetworkNode, type NetworkRun, type RestartedNode } from './helpers/network.ts';
import { rpcCall } from './helpers/process.ts';

const SINK = '0x' + '5e'.repeat(20);



/** Resolves once `node` has `other`'s head block (same number, same hash). */
async function caughtUp(node: NetworkNode, other: NetworkNode, timeoutMs = 20_000): Promise<void> {
  await until(
    `node ${node.node} to reach node ${other.node}'s head`,
    async () => {
      const target = await head(other);
      return (await head(node)) >= target && (await hashAt(node, target)) === (await hashAt(other, target));
    },
    timeoutMs,
  );
}

test('1 validator + 3 followers: connected, a follower\'s transaction mined everywhere, one chain, a killed follower catches up, a 5th node syncs and follows', async () => {
  const dir = networkDir();
  let run: NetworkRun | undefined;
  let restarted: RestartedNode | undefined;
  try {
    run = await runNetwork(dir, ['--nodes', '4']);
    const nodes = run.nodes;
    const [validator, f1, f2, f3] = nodes as [NetworkNode, NetworkNode, NetworkNode, NetworkNode];
    await until('the validator to have 3 peers and each follower one', async () => {
      const counts = await Promise.all(nodes.map(async (n) => Number(await rpcCall(n.http, 'net_peerCount'))));
      return counts[0]! >= 3 && counts.every((c) => c >= 1);
    });

    const key = await fundedKey(dir);
    let nonce = await nextNonce(validator, key);
    const send = async (to: NetworkNode) => {
      const tx = signedTransfer(key, nonce++, SINK);
      assert.is(await rpcCall(to.http, 'eth_sendRawTransaction', [tx.raw]), tx.hash);
      return tx.hash;
    };
    const hash = await send(f2);
    const receipts = await Promise.all(nodes.map((n) => receiptOn(n, hash)));
    assert.is(receipts[0].status, '0x1');
    assert.equal(receipts.map((r) => r.blockHash), nodes.map(() => receipts[0].blockHash), 'one block holds it on every node');
    assert.ok((await sameHashes(nodes)) >= BigInt(receipts[0].blockNumber));

    // a follower killed outright misses blocks, then catches up from its datadir
    process.kill(f1.pid, 'SIGKILL');
    await until('node 2 to be gone', async () => (await rpcCall(f1.http, 'eth_blockNumber').then(() => false, () => true)));
    const missed = [await send(f3), await send(validator)];
    await Promise.all(missed.map((h) => receiptOn(validator, h)));
    restarted = await restartNode(f1);
    await caughtUp(f1, validator);
    for (const h of missed) assert.ok(await rpcCall(f1.http, 'eth_getTransactionReceipt', [h]), 'the restarted follower has the blocks it missed');
    await restarted.stop();
    restarted = undefined;
    assert.is(await run.stop(), 0);

    // a re-run with one more node: registered, it syncs the chain, then follows new blocks
    run = await runNetwork(dir, ['--nodes', '5']);
    const fifth = run.nodes[4]!;
    assert.is(run.nodes.length, 5);
    await caughtUp(fifth, run.nodes[0]!);
    nonce = await nextNonce(run.nodes[0]!, key); // node 5's registration came from the same account
    const late = await send(fifth);
    const onFifth = await receiptOn(fifth, late);
    assert.is(onFifth.blockHash, (await receiptOn(run.nodes[0]!, late)).blockHash);
    await sameHashes(run.nodes);
  } finally {
    await restarted?.stop();
    await cleanUp(run, dir);
  }
});

test.run();
