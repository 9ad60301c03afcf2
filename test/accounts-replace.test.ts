// The spec's "reusing a nonce rewrites a pending transaction", through node-side signing: a send
// that names the nonce of a pending transaction of the same sender replaces it when it pays the
// pool's price bump (10%). Blocks are an hour apart here, so transactions stay pending.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NODE_KEY, startTestNode, testGenesis, testKey, type TestNode } from './helpers/node.ts';
import { importKey } from './helpers/accounts.ts';

const PW = 'replace-pw';
const OTHER = '0x' + '42'.repeat(20);
let node: TestNode;
let A: string;

test.before(async () => {
  const genesis = { ...testGenesis(NODE_KEY, 4, 3600), timestamp: '0x' + Math.floor(Date.now() / 1000).toString(16) };
  node = await startTestNode({ genesis });
  A = await importKey(node, testKey(0), PW);
  assert.is(await node.rpc('personal_unlockAccount', [A, PW, 0]), true);
});
test.after(() => node.stop());

const pendingOfA = async () => Object.values(((await node.rpc('txpool_content')).pending[A] ?? {}) as Record<string, { hash: string; value: string }>);

test('sending with the nonce of a pending transaction and a higher price replaces it', async () => {
  const first = await node.rpc('eth_sendTransaction', [{ from: A, to: OTHER, value: '0x1', gasPrice: '0x64' }]);
  assert.equal((await pendingOfA()).map((t) => t.hash), [first]);
  assert.is(await node.rpc('eth_getTransactionCount', [A, 'pending']), '0x1');

  const second = await node.rpc('eth_sendTransaction', [{ from: A, to: OTHER, value: '0x2', gasPrice: '0x6e', nonce: '0x0' }]);
  assert.is.not(second, first);
  assert.equal((await pendingOfA()).map((t) => [t.hash, t.value]), [[second, '0x2']]);
  assert.is(await node.rpc('eth_getTransactionByHash', [first]), null);
  assert.is(await node.rpc('eth_getTransactionCount', [A, 'pending']), '0x1');

  // personal_ too, with the payload named `input`
  const third = await node.rpc('personal_sendTransaction', [{ from: A, to: OTHER, value: '0x3', gasPrice: '0x79', nonce: '0x0', input: '0x01' }, PW]);
  assert.equal((await pendingOfA()).map((t) => [t.hash, t.value]), [[third, '0x3']]);
});

test('a replacement that does not pay the price bump is refused and the pending one stays', async () => {
  const [before] = await pendingOfA();
  const r = await node.raw('eth_sendTransaction', [{ from: A, to: OTHER, value: '0x9', gasPrice: '0x79', nonce: '0x0' }]);
  assert.is(r.error?.code, -32000);
  assert.match(r.error!.message, /replacement transaction underpriced/);
  assert.equal(await pendingOfA(), [before]);
});

test.run();
