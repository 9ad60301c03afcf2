// What Venachain's console (`venachain attach`) asks a node before anything else, on real nodes:
// rpc_modules in geth's shape for the namespaces the listener serves (--http.api respected, rpc
// always), the calls of its welcome lines, and personal_importRawKey.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { startTestNode, type TestNode } from './helpers/node.ts';
import { ALL_NAMESPACES } from '../src/node/config.ts';

let node: TestNode;
test.before(async () => {
  node = await startTestNode();
});
test.after(() => node.stop());

test('rpc_modules: every namespace the listener serves at "1.0", and rpc itself', async () => {
  const modules = await node.rpc('rpc_modules');
  assert.equal(Object.keys(modules), [...ALL_NAMESPACES, 'rpc'].sort());
  for (const v of Object.values(modules)) assert.is(v, '1.0');
  const bad = await node.raw('rpc_modules', [1]);
  assert.is(bad.error?.code, -32602);
});

test('rpc_modules follows --http.api, and stays served when rpc is not listed', async () => {
  const narrow = await startTestNode({ config: { http: { addr: '127.0.0.1', port: 0, api: ['eth', 'net'], corsDomains: [], maxBodyBytes: 5 * 1024 * 1024, maxBatch: 1000 } } });
  try {
    assert.equal(await narrow.rpc('rpc_modules'), { eth: '1.0', net: '1.0', rpc: '1.0' });
    assert.is((await narrow.raw('personal_listAccounts')).error?.code, -32601, 'what it does not list is not served');
  } finally {
    await narrow.stop();
  }
});

test("the console's welcome calls are answered: web3_clientVersion, eth_coinbase, eth_blockNumber, eth_getBlockByNumber, admin_datadir", async () => {
  assert.match(await node.rpc('web3_clientVersion'), /^chain-node\//);
  assert.match(await node.rpc('eth_coinbase'), /^0x[0-9a-f]{40}$/);
  const number = await node.rpc('eth_blockNumber');
  assert.match((await node.rpc('eth_getBlockByNumber', [number, false])).timestamp, /^0x/);
  assert.is(await node.rpc('admin_datadir'), node.dir);
});

test('personal_importRawKey: a key file the node signs with; a held account, a bad key and a bad argument refused, nothing written', async () => {
  const wallet = Wallet.createRandom();
  const keystore = join(node.dir, 'keystore');
  const before = readdirSync(keystore).length;
  const address = await node.rpc('personal_importRawKey', [wallet.privateKey.slice(2), 'pw']);
  assert.is(address, wallet.address.toLowerCase());
  assert.is(readdirSync(keystore).length, before + 1);
  assert.ok((await node.rpc('personal_listAccounts')).includes(address));
  const signature = await node.rpc('personal_sign', ['0x68656c6c6f', address, 'pw']);
  assert.is(await node.rpc('personal_ecRecover', ['0x68656c6c6f', signature]), address, 'signed with the imported key');

  const again = await node.raw('personal_importRawKey', [wallet.privateKey, 'pw']);
  assert.match(again.error!.message, /account already exists/);
  const zero = await node.raw('personal_importRawKey', ['00'.repeat(32), 'pw']);
  assert.is(zero.error?.code, -32602);
  assert.match(zero.error!.message, /privateKey/);
  const short = await node.raw('personal_importRawKey', ['abcd', 'pw']);
  assert.is(short.error?.code, -32602);
  assert.match(short.error!.message, /privateKey/);
  assert.is(readdirSync(keystore).length, before + 1);
});

test.run();
