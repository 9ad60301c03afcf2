// Injected faults between real node processes (`npm run network -- --faults`): a validator told to
// drop everything its follower gossips never hears the follower's transactions, and hears them
// again once the fault file is cleared; a follower deaf to the validator's gossip still learns its
// head and syncs; a partition closes the connection and refuses it (no
// block reaches the follower) until it heals, when the nodes reconnect and the follower catches up.
// Two validators that both must vote: one deaf to the other's consensus messages, no block is made;
// cleared, blocks come again.
// The fault logic itself: test/p2p-faults.test.ts; consensus under faults: test/iris-faults.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fundedKey, fundedSender, head, nextNonce, nodeIdOf, receiptOn, sameHashes, signedTransfer, startLocalNetwork, until, type LocalNetwork, type NetworkNode } from './helpers/network.ts';
import { rpcCall } from './helpers/process.ts';
import { addressOf } from '../src/crypto/secp256k1.ts';
import { bytesToHex } from '../src/util/hex.ts';

const peers = (n: NetworkNode) => rpcCall(n.http, 'net_peerCount').then(Number);

test("drop 1.0 from the follower silences its gossip at the validator, clearing it restores it; a follower deaf to gossip still syncs; a partition cuts the nodes apart until it heals", async () => {
  let net: LocalNetwork | undefined;
  try {
    net = await startLocalNetwork({ validators: 1, observers: 1 });
    const [validator, follower] = net.nodes as [NetworkNode, NetworkNode];
    await until('the two nodes to be peers', async () => (await peers(validator)) >= 1 && (await peers(follower)) >= 1);

    // a second funded sender, so the transaction sent after the drop does not wait on the dropped one's nonce
    const key = await fundedKey(net.dir);
    const second = new Uint8Array(32).fill(7);
    const funding = signedTransfer(key, await nextNonce(validator, key), bytesToHex(addressOf(second)));
    await rpcCall(validator.http, 'eth_sendRawTransaction', [funding.raw]);
    await receiptOn(follower, funding.hash);

    await net.setFaults([validator], { peers: { [nodeIdOf(follower)]: { drop: 1 } } });
    const dropped = signedTransfer(key, await nextNonce(follower, key), validator.address);
    assert.is(await rpcCall(follower.http, 'eth_sendRawTransaction', [dropped.raw]), dropped.hash);
    await new Promise((r) => setTimeout(r, 2000));
    assert.is(await rpcCall(validator.http, 'eth_getTransactionByHash', [dropped.hash]), null, 'the validator never heard of it');
    assert.ok(await rpcCall(follower.http, 'eth_getTransactionByHash', [dropped.hash]), 'the follower holds it');

    await net.setFaults([validator], undefined);
    const heard = signedTransfer(second, 0n, validator.address);
    await rpcCall(follower.http, 'eth_sendRawTransaction', [heard.raw]);
    assert.is((await receiptOn(validator, heard.hash)).status, '0x1', 'mined by the validator once the drop is gone');
    await receiptOn(follower, heard.hash);

    // deaf to the validator's gossip, the follower still learns its head (it asks a peer when its
    // own stands still) and fetches the block by sync
    await net.setFaults([follower], { peers: { [nodeIdOf(validator)]: { drop: 1 } } });
    const unheard = signedTransfer(key, await nextNonce(validator, key), validator.address);
    await rpcCall(validator.http, 'eth_sendRawTransaction', [unheard.raw]);
    await receiptOn(validator, unheard.hash);
    await receiptOn(follower, unheard.hash, 10_000);
    await net.setFaults([follower], undefined);

    // a partition: each node alone in its group; the connection goes and stays gone
    await net.setFaults(net.nodes, { partition: [[nodeIdOf(validator)], [nodeIdOf(follower)]] });
    await until('the partition to close the connection', async () => (await peers(validator)) === 0 && (await peers(follower)) === 0);
    const cut = signedTransfer(key, await nextNonce(validator, key), validator.address);
    await rpcCall(validator.http, 'eth_sendRawTransaction', [cut.raw]);
    const mined = BigInt((await receiptOn(validator, cut.hash)).blockNumber);
    await new Promise((r) => setTimeout(r, 2000));
    assert.ok((await head(follower)) < mined, 'no block crosses the partition');
    assert.is(await peers(validator), 0, 'redials are refused while it lasts');

    await net.setFaults(net.nodes, undefined);
    await until('the follower to reconnect and catch up', async () => (await head(follower)) >= mined);
    await sameHashes(net.nodes);
  } finally {
    await net?.stop();
  }
});

test('2 validators (both needed): drop 1.0 of one\'s gossip at the other stops consensus, clearing it restores it', async () => {
  let net: LocalNetwork | undefined;
  try {
    net = await startLocalNetwork({ validators: 2, timeoutMs: 1000 });
    const [one, two] = net.nodes as [NetworkNode, NetworkNode];
    const send = await fundedSender(net.dir, one);
    await receiptOn(two, await send(one, two), 10_000);

    await net.setFaults([one], { peers: { [nodeIdOf(two)]: { drop: 1 } } });
    const stalled = await sameHashes(net.nodes);
    const waiting = await send(one, two);
    await new Promise((r) => setTimeout(r, 4000));
    assert.equal([await head(one), await head(two)], [stalled, stalled], 'one validator\'s votes alone are no quorum: no block');

    await net.setFaults([one], undefined);
    // the stalled rounds' timers doubled: the next round starts within the current one's (4–8 s here)
    assert.is((await receiptOn(one, waiting, 20_000)).status, '0x1');
    await receiptOn(two, waiting);
    await sameHashes(net.nodes);
  } finally {
    await net?.stop();
  }
});

test.run();
