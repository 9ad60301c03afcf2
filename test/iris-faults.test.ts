// Four iris validators (processes on loopback) under injected faults (src/p2p/faults.ts), with a
// trickle of transfers all along: first a stretch without faults (the loss-free block rate), then
// the same stretch with every node dropping 20 % of what its peers send and delaying the rest
// 0–300 ms, out of order (blocks must keep coming at a third of that rate at least); the loss
// ends; then a 2 + 2 partition with a transfer waiting in every pool, which heals. After the loss
// and after the heal the waiting transfer is mined within about 2 round timeouts (I19). Every
// node's blocks are watched all along: never two different blocks at one height. The stretches
// are 12 s, a minute each with CHAIN_NODE_LONG_TESTS=1.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { paced, slowdown } from './helpers/pace.ts';
import { forkWatch, fundedSender, head, nodeIdOf, receiptOn, sameHashes, startLocalNetwork, untilHeight, type LocalNetwork, type NetworkNode } from './helpers/network.ts';

const TIMEOUT_MS = 1000;
const STRETCH_MS = process.env.CHAIN_NODE_LONG_TESTS === '1' ? 60_000 : 12_000;
const PARTITION_MS = 4000;
/** what a node's log says when it leaves a round */
const ROUND_CHANGE = /iris: block #\d+ round change /g;

test(`4 validators: ${STRETCH_MS / 1000} s without faults, ${STRETCH_MS / 1000} s of 20 % drop and 0–300 ms delay, then a 2 + 2 partition that heals: blocks through the loss, the waiting transfer mined soon after each, no fork`, async () => {
  let net: LocalNetwork | undefined;
  let watch: ReturnType<typeof forkWatch> | undefined;
  try {
    const before = await slowdown();
    net = await startLocalNetwork({ validators: 4, timeoutMs: TIMEOUT_MS });
    const nodes = net.nodes;
    const send = await fundedSender(net.dir, nodes[0]!);
    await receiptOn(nodes[1]!, await send(...nodes), 10 * TIMEOUT_MS);
    watch = forkWatch(nodes);

    // a transfer every 250 ms, to every node: the faults drop transactions too, and a nonce missing
    // from a proposer's pool would hold up its blocks
    const trickle = async (ms: number): Promise<bigint> => {
      const from = await head(nodes[0]!);
      for (let end = Date.now() + ms; Date.now() < end; ) {
        await send(...nodes);
        await new Promise((r) => setTimeout(r, 250));
      }
      return (await head(nodes[0]!)) - from;
    };
    const free = await trickle(STRETCH_MS);
    await net.setFaults(nodes, { seed: 22, peers: { '*': { drop: 0.2, delayMs: [0, 300], reorder: true } } });
    const lossy = await trickle(STRETCH_MS);
    console.log(`blocks in ${STRETCH_MS / 1000} s: ${free} without faults, ${lossy} under 20 % loss and 0–300 ms delay`);
    assert.ok(lossy * 3n >= free, `${lossy} blocks under loss, ${free} without: less than a third`);

    // a transfer waits as the loss ends: a round stuck in it changes within 1.5 timeouts and the
    // next one carries it (unless the lossy round made it first)
    const waitingAfterLoss = await send(...nodes);
    const lossEnd = Date.now();
    await net.setFaults(nodes, undefined);
    await receiptOn(nodes[3]!, waitingAfterLoss, 30 * TIMEOUT_MS);
    const afterLoss = Date.now() - lossEnd;

    const [a, b, c, d] = nodes as [NetworkNode, NetworkNode, NetworkNode, NetworkNode];
    await net.setFaults(nodes, { partition: [[nodeIdOf(a), nodeIdOf(b)], [nodeIdOf(c), nodeIdOf(d)]] });
    const highest = async () => (await Promise.all(nodes.map(head))).reduce((x, y) => (x > y ? x : y));
    const cut = await highest();
    // in every pool: neither side alone has a quorum, so it waits
    const waiting = await send(a, b, c, d);
    await new Promise((r) => setTimeout(r, PARTITION_MS));
    // a node a block behind may fetch it from its side; no side makes a new one
    assert.is(await highest(), cut, 'no block during the partition');
    const logged = nodes.map((n) => net!.output(n).length);
    const healedAt = Date.now();
    await net.setFaults(nodes, undefined);
    const mined = BigInt((await receiptOn(c, waiting, 30 * TIMEOUT_MS)).blockNumber);
    const afterHeal = Date.now() - healedAt;
    // counted, not timed: every validator was waiting in the round the partition left it in; the
    // heal lets their ROUND_CHANGEs meet there (a round more when one starts before its peers reconnect)
    const changes = nodes.map((n, i) => net!.output(n).slice(logged[i]).match(ROUND_CHANGE)?.length ?? 0);
    console.log(`first waiting transfer mined ${afterLoss} ms after the loss ended, ${afterHeal} ms after the heal (round changes after it: ${changes.join(', ')})`);
    assert.ok(changes.every((x) => x <= 2), `round changes per validator after the heal: ${changes.join(', ')}`);
    // timed with a margin: 1.5 timeouts for a stuck round, then one round's work, the fault files'
    // polling and the receipt's, at this machine's pace
    const bound = 1.5 * TIMEOUT_MS + (await paced(2000, before));
    assert.ok(afterLoss <= bound, `mined ${afterLoss} ms after the loss ended (bound ${bound} ms)`);
    assert.ok(afterHeal <= bound, `mined ${afterHeal} ms after the heal (bound ${bound} ms)`);

    await untilHeight(nodes, mined, 10 * TIMEOUT_MS);
    await watch.stop();
    assert.equal(watch.conflicts(), [], 'never two blocks at one height');
    await sameHashes(nodes);
  } finally {
    await watch?.stop();
    await net?.stop();
  }
});

test.run();
