// Four validators running iris and an observer, as processes on loopback (`npm run network --
// --nodes 5 --validators 4`): transactions sent to every node are mined, blocks keep coming, the
// proposer (a block's miner) rotates round robin among the four, every node holds the same block at
// every height, and only the validators take part in the consensus channel.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fundedSender, head, receiptOn, sameHashes, startLocalNetwork, type LocalNetwork } from './helpers/network.ts';
import { rpcCall } from './helpers/process.ts';

const TIMEOUT_MS = 1500;

test('4 validators + 1 observer: transactions sent to any node are mined everywhere, proposers rotate, one chain', async () => {
  let net: LocalNetwork | undefined;
  try {
    net = await startLocalNetwork({ validators: 4, observers: 1, timeoutMs: TIMEOUT_MS });
    const { nodes, validators } = net;
    assert.is(JSON.parse(readFileSync(join(net.dir, 'genesis.json'), 'utf8')).config.istanbul.timeout, TIMEOUT_MS);
    // the registration made the four the set of the block after this one: what follows is iris'
    const start = await head(nodes[0]!);
    const send = await fundedSender(net.dir, nodes[0]!);

    // one transaction at a time, each to the next node: each its own block, so every proposer has a turn
    const hashes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const hash = await send(nodes[i % nodes.length]!);
      hashes.push(hash);
      await receiptOn(nodes[(i + 1) % nodes.length]!, hash, 10 * TIMEOUT_MS);
    }
    const receipts = await Promise.all(nodes.flatMap((n) => hashes.map((h) => receiptOn(n, h))));
    assert.ok(receipts.every((r) => r.status === '0x1'), 'every transfer succeeded on every node');

    const top = await sameHashes(nodes);
    const miners: string[] = [];
    for (let h = start + 1n; h <= top; h++) miners.push((await rpcCall(nodes[0]!.http, 'eth_getBlockByNumber', ['0x' + h.toString(16), false])).miner);
    assert.ok(miners.length >= 12, `${miners.length} iris blocks`);
    const addresses = validators.map((v) => v.address);
    assert.ok(miners.every((m) => addresses.includes(m)), 'every block proposed by a validator');
    // round robin: the next height starts at the proposer after the last one (a round change moves further on, never back to it)
    assert.ok(miners.every((m, i) => i === 0 || m !== miners[i - 1]), `no validator proposes twice in a row: ${miners.join(' ')}`);
    assert.ok(new Set(miners).size === 4, `all four propose: ${miners.join(' ')}`);
    // what each node told of the consensus channel (its log, as a user reads it)
    const joined = nodes.map((n) => readFileSync(join(n.datadir, 'node.log'), 'utf8').includes('a validator: joined the consensus channel'));
    assert.equal(joined, nodes.map((n) => n.validator), 'the validators joined the consensus channel, the observer did not');
  } finally {
    await net?.stop();
  }
});

test.run();
