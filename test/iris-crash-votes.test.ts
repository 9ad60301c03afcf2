// Votes survive a crash (I9), on real processes and their datadirs: of four validators, one is
// SIGKILLed right after it sends a PREPARE and one right after it sends a COMMIT (CHAIN_NODE_IRIS_TEST
// crash-after-prepare / crash-after-commit: the engine stops sending and the process kills itself);
// restarted on their datadirs, each reads its consensus log and refuses to sign a vote for another
// block at the view it voted at (the test mode sign-against-log asks it to, and its log says it
// refused), then both rejoin and the chain goes on, one block at every height on every node.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fundedSender, receiptOn, sameHashes, startLocalNetwork, until, type LocalNetwork, type NetworkNode } from './helpers/network.ts';
import { rpcCall } from './helpers/process.ts';

const TIMEOUT_MS = 1000;

/** The view the node's crash cue fired at, from its log. */
function crashView(out: string, code: 'prepare' | 'commit'): { sequence: string; round: string } {
  const m = new RegExp(`crash-after-${code}: sent ${code.toUpperCase()} at block #(\\d+) round (\\d+)`).exec(out);
  assert.ok(m, `no crash-after-${code} line in:\n${out.slice(-3000)}`);
  return { sequence: m[1]!, round: m[2]! };
}

test('validators killed right after PREPARE and right after COMMIT restart refusing to sign another block at that view', async () => {
  let net: LocalNetwork | undefined;
  try {
    net = await startLocalNetwork({ validators: 4, timeoutMs: TIMEOUT_MS });
    const [one, two, three, four] = net.nodes as [NetworkNode, NetworkNode, NetworkNode, NetworkNode];
    const send = await fundedSender(net.dir, one);
    await receiptOn(two, await send(...net.nodes), 10 * TIMEOUT_MS);

    await Promise.all([net.kill(three), net.kill(four)]);
    await Promise.all([net.restart(three, { CHAIN_NODE_IRIS_TEST: 'crash-after-commit' }), net.restart(four, { CHAIN_NODE_IRIS_TEST: 'crash-after-prepare' })]);
    await until('the restarted nodes to see their peers', async () => (await Promise.all([three, four].map((n) => rpcCall(n.http, 'net_peerCount')))).every((c) => Number(c) >= 3));
    const during = await send(one, two, three, four);
    await Promise.all([net.exited(three), net.exited(four)]);
    const committed = crashView(net.output(three), 'commit');
    const prepared = crashView(net.output(four), 'prepare');

    await Promise.all([three, four].map((n) => net!.restart(n, { CHAIN_NODE_IRIS_TEST: 'sign-against-log' })));
    for (const [node, view] of [[three, committed], [four, prepared]] as const) {
      const out = net.output(node);
      assert.match(out, /iris: consensus log: \d+ signed votes and \d+ locks read/);
      const refused = new RegExp(`refused to sign PREPARE for 0x[0-9a-f]{64} at block #${view.sequence} round ${view.round}: this node voted for 0x[0-9a-f]{64} there`);
      assert.match(out, refused, `node ${node.node} refused a vote for another block at block #${view.sequence} round ${view.round}`);
    }

    // both back: the transfer sent during the crashes and one after are mined everywhere, one chain
    await receiptOn(one, during, 30 * TIMEOUT_MS);
    const after = await send(one, two, three, four);
    await Promise.all(net.nodes.map((n) => receiptOn(n, after, 30 * TIMEOUT_MS)));
    await sameHashes(net.nodes);
  } finally {
    await net?.stop();
  }
});

test.run();
