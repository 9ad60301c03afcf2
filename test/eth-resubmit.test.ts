// Sending a transaction again: geth's answers, which libraries map to their own errors. One still in
// the pool is `already known`; one already mined is `nonce too low` (ethers: NONCE_EXPIRED), since
// for its sender that nonce is spent.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonRpcProvider, Transaction, Wallet, isError } from 'ethers';
import { startTestNode, testKey, testAddress, mined, type TestNode } from './helpers/node.ts';

let node: TestNode;
test.before(async () => {
  node = await startTestNode();
});
test.after(async () => {
  await node.stop();
});

test('a mined transaction sent again: nonce too low, and ethers reads NONCE_EXPIRED', async () => {
  const wallet = new Wallet(testKey(0));
  const raw = await wallet.signTransaction(Transaction.from({ type: 0, to: testAddress(1), value: 1n, gasLimit: 21_000n, gasPrice: 0n, chainId: 300, nonce: 0 }));
  const hash = await node.rpc('eth_sendRawTransaction', [raw]);
  await mined(node, hash);
  const again = await node.raw('eth_sendRawTransaction', [raw]);
  assert.is(again.error?.code, -32000);
  assert.is(again.error?.message, `nonce too low: ${hash} is already mined`);

  const provider = new JsonRpcProvider(node.url, 300, { staticNetwork: true });
  try {
    await provider.broadcastTransaction(raw);
    assert.unreachable('a mined transaction was taken again');
  } catch (e) {
    assert.ok(isError(e, 'NONCE_EXPIRED'), `ethers' code: ${(e as { code?: string }).code}`);
  } finally {
    provider.destroy();
  }
});

test('a pending transaction sent again: already known', async () => {
  // a nonce gap keeps it queued in the pool, unmined
  const wallet = new Wallet(testKey(2));
  const raw = await wallet.signTransaction(Transaction.from({ type: 0, to: testAddress(1), value: 1n, gasLimit: 21_000n, gasPrice: 0n, chainId: 300, nonce: 5 }));
  const hash = await node.rpc('eth_sendRawTransaction', [raw]);
  assert.is((await node.raw('eth_sendRawTransaction', [raw])).error?.message, `already known: ${hash}`);
});

test.run();
