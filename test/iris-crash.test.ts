// Crashes among four iris validators (processes on loopback, SIGKILL): with one down (F = 1) the
// chain goes on within a few round timeouts; with two down no block is made and no node forks;
// both restarted on their datadirs, they catch up, rejoin, and blocks come again on every node.
// Seven validators keep mining transfers with two of them killed (longer with CHAIN_NODE_LONG_TESTS=1).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fundedSender, head, receiptOn, sameHashes, startLocalNetwork, untilHeight, type LocalNetwork, type NetworkNode } from './helpers/network.ts';

const TIMEOUT_MS = 1000;
const long = process.env.CHAIN_NODE_LONG_TESTS === '1';

test('4 validators: one killed, the chain goes on; two killed, it stops without a fork; both restarted, it resumes', async () => {
  let net: LocalNetwork | undefined;
  try {
    net = await startLocalNetwork({ validators: 4, timeoutMs: TIMEOUT_MS });
    const [one, two, three, four] = net.nodes as [NetworkNode, NetworkNode, NetworkNode, NetworkNode];
    const send = await fundedSender(net.dir, one);
    await receiptOn(two, await send(...net.nodes), 10 * TIMEOUT_MS);

    await net.kill(four);
    const afterOne = await send(two);
    // a few timeouts: the dead validator's turn to propose costs a round change
    await receiptOn(one, afterOne, 8 * TIMEOUT_MS);
    await sameHashes([one, two, three]);

    await net.kill(three);
    const stalled = await sameHashes([one, two]);
    const waiting = await send(one);
    await new Promise((r) => setTimeout(r, 4 * TIMEOUT_MS));
    assert.equal([await head(one), await head(two)], [stalled, stalled], 'two of four cannot make a quorum: no block');
    await sameHashes([one, two]);

    await net.restart(three);
    await net.restart(four);
    // the stalled rounds' timers doubled meanwhile: a restart may wait out one of them
    const mined = BigInt((await receiptOn(three, waiting, 40 * TIMEOUT_MS)).blockNumber);
    assert.ok(mined > stalled);
    await untilHeight(net.nodes, mined, 20 * TIMEOUT_MS);
    await receiptOn(four, await send(four), 20 * TIMEOUT_MS);
    await sameHashes(net.nodes);
  } finally {
    await net?.stop();
  }
});

// six transfers one after another: each is its own block, so the proposer turn passes every
// validator, both dead ones too (each costs a round change); the long run keeps going for 20
test(`7 validators: two killed, ${long ? 20 : 6} transfers mined one after another`, async () => {
  let net: LocalNetwork | undefined;
  try {
    net = await startLocalNetwork({ validators: 7, timeoutMs: TIMEOUT_MS });
    const nodes = net.nodes;
    const send = await fundedSender(net.dir, nodes[0]!);
    await receiptOn(nodes[1]!, await send(...nodes), 10 * TIMEOUT_MS);
    await net.kill(nodes[5]!);
    await net.kill(nodes[6]!);
    const alive = nodes.slice(0, 5);
    const from = await head(alive[0]!);
    const transfers = long ? 20 : 6;
    let last = from;
    for (let i = 0; i < transfers; i++) {
      const mined = BigInt((await receiptOn(alive[(i + 1) % 5]!, await send(...alive), 10 * TIMEOUT_MS)).blockNumber);
      assert.ok(mined > last, `transfer ${i + 1} in a block of its own (#${mined} after #${last})`);
      last = mined;
    }
    // both dead validators' turns came and passed
    const log = alive.map((n) => net!.output(n)).join('\n').toLowerCase();
    for (const dead of nodes.slice(5)) assert.ok(log.includes(`no proposal from ${dead.address.toLowerCase()}`), `node ${dead.node}'s turn passed`);
    await sameHashes(alive);
  } finally {
    await net?.stop();
  }
});

test.run();
