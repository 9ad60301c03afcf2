// `network ready` means in step (src/network/readiness.ts): a re-run of `npm run network` that adds
// a follower to a chain prints it only once every node has a peer and the validator's head, so a
// script may use the follower at once: the account the validator funded has its balance there, and
// a transfer from it sent to the follower is admitted (not refused for insufficient funds).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { addressOf } from '../src/crypto/secp256k1.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { cleanUp, fundedKey, hashAt, head, networkDir, receiptOn, runNetwork, signedTransfer, type NetworkRun } from './helpers/network.ts';
import { rpcCall } from './helpers/process.ts';

test('1 validator + 1 new follower: right after `network ready` both are peered, the follower has the validator\'s head and the state it funded', async () => {
  const dir = networkDir();
  let run: NetworkRun | undefined;
  try {
    run = await runNetwork(dir, ['--nodes', '1']);
    const [validator] = run.nodes;
    const key = await fundedKey(dir);
    const fresh = new Uint8Array(randomBytes(32));
    const account = bytesToHex(addressOf(fresh));
    const nonce = BigInt(await rpcCall(validator!.http, 'eth_getTransactionCount', [bytesToHex(addressOf(key)), 'pending']));
    const funding = signedTransfer(key, nonce, account);
    await rpcCall(validator!.http, 'eth_sendRawTransaction', [funding.raw]);
    await receiptOn(validator!, funding.hash);
    assert.is(await run.stop(), 0);

    run = await runNetwork(dir, ['--nodes', '2']);
    const [one, two] = run.nodes;
    // asked at once, before anything else
    const [peers1, peers2, balance, followerHead] = await Promise.all([
      rpcCall(one!.http, 'net_peerCount'),
      rpcCall(two!.http, 'net_peerCount'),
      rpcCall(two!.http, 'eth_getBalance', [account, 'latest']),
      head(two!),
    ]);
    const validatorHead = await head(one!);
    assert.ok(Number(peers1) >= 1 && Number(peers2) >= 1, `net_peerCount ${peers1} and ${peers2} at "network ready"`);
    assert.is(balance, '0x1', 'the follower has the funded balance');
    // at 1 s blocks, at most the block sealed since `network ready` may still be on its way
    assert.ok(followerHead >= validatorHead - 1n, `the follower's head #${followerHead}, the validator's #${validatorHead}`);
    assert.is(await hashAt(two!, followerHead), await hashAt(one!, followerHead));
    const spend = signedTransfer(fresh, 0n, '0x' + '5e'.repeat(20));
    assert.is(await rpcCall(two!.http, 'eth_sendRawTransaction', [spend.raw]), spend.hash, 'a transfer from the funded account is admitted by the follower');
    assert.is((await receiptOn(one!, spend.hash)).status, '0x1');
    assert.is(await run.stop(), 0);
  } finally {
    await cleanUp(run, dir);
  }
});

test.run();
