// The keystore folder: key files the node writes (geth's name, mode 0600, atomic, readable by
// ethers) and key files others write into it while the node runs (ethers' Wallet.encrypt, a file
// written in place in two steps, files that are not key files).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { cheapKeyFile, importKey, mined as minedOn } from './helpers/accounts.ts';

let node: TestNode;

let keystoreDir: string;

const mined = (hash: string) => minedOn(node, hash);

/** Funds `to` from the (unlocked) account 0 of the genesis, through the node's own signing. */
async function fund(to: string) {
  const from = testAddress(0);
  await mined(await node.rpc('personal_sendTransaction', [{ from, to, value: '0xde0b6b3a7640000' }, 'genesis-pw']));
}

test.before(async () => {
  node = await startTestNode();
  keystoreDir = join(node.dir, 'keystore');
  // the genesis account 0, imported as a key file so the node can sign for it
  await importKey(node, testKey(0), 'genesis-pw');
});
test.after(() => node.stop());

test('personal_newAccount writes one key file: geth name, mode 0600, no temp file left, readable by ethers', async () => {
  const address: string = await node.rpc('personal_newAccount', ['new-account-pw']);
  const files = readdirSync(keystoreDir);
  const name = files.find((f) => f.endsWith(address.slice(2)));
  assert.ok(name, `no key file for ${address} in ${files.join(', ')}`);
  assert.match(name!, /^UTC--\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z--[0-9a-f]{40}$/);
  assert.is(statSync(join(keystoreDir, name!)).mode & 0o777, 0o600);
  assert.not.ok(files.some((f) => f.endsWith('.tmp')), 'a temp file was left behind');
  const json = readFileSync(join(keystoreDir, name!), 'utf8');
  assert.not.match(json, /new-account-pw/);
  const parsed = JSON.parse(json);
  assert.is(parsed.version, 3);
  assert.is(parsed.crypto.kdf, 'scrypt');
  assert.is(parsed.crypto.cipher, 'aes-128-ctr');
  const wallet = await Wallet.fromEncryptedJson(json, 'new-account-pw');
  assert.is(wallet.address.toLowerCase(), address);
  // the account starts locked, and its wallet URL is the key file
  const wallets: { url: string; status: string; accounts: { address: string }[] }[] = await node.rpc('personal_listWallets');
  const mine = wallets.find((w) => w.accounts[0]!.address === address)!;
  assert.is(mine.status, 'Locked');
  assert.is(mine.url, `keystore://${join(keystoreDir, name!)}`);
});

test("a key file made by ethers' Wallet.encrypt, dropped in while the node runs, is listed, unlocks and sends", async () => {
  const wallet = Wallet.createRandom();
  const address = wallet.address.toLowerCase();
  assert.not.ok((await node.rpc('eth_accounts')).includes(address));
  writeFileSync(join(keystoreDir, `UTC--ethers--${address.slice(2)}`), await wallet.encrypt('ethers-pw'));
  assert.ok((await node.rpc('eth_accounts')).includes(address));
  assert.ok((await node.rpc('personal_listAccounts')).includes(address));
  assert.is(await node.rpc('personal_unlockAccount', [address, 'wrong', 0]), false);
  assert.is(await node.rpc('personal_unlockAccount', [address, 'ethers-pw', 0]), true);
  await fund(address);
  const hash = await node.rpc('eth_sendTransaction', [{ from: address, to: testAddress(3), value: '0x7', gas: '0x5208' }]);
  const receipt = await mined(hash);
  assert.is(receipt.from, address);
  assert.is(receipt.status, '0x1');
});

test('a key file written in place in two steps is picked up once its content is complete', async () => {
  const wallet = Wallet.createRandom();
  const address = wallet.address.toLowerCase();
  const json = await cheapKeyFile(wallet, 'in-place-pw');
  const path = join(keystoreDir, `in-place-${address.slice(2)}.json`);
  writeFileSync(path, json.slice(0, 40)); // the folder changes now, the content is not there yet
  assert.not.ok((await node.rpc('eth_accounts')).includes(address));
  await new Promise((res) => setTimeout(res, 5)); // a later mtime
  appendFileSync(path, json.slice(40)); // same folder, complete file
  assert.ok((await node.rpc('eth_accounts')).includes(address));
  assert.is(await node.rpc('personal_unlockAccount', [address, 'in-place-pw', 1]), true);
});

test('files that are not key files are ignored, and a removed key file disappears', async () => {
  const before: string[] = await node.rpc('eth_accounts');
  writeFileSync(join(keystoreDir, 'README'), 'not a key file');
  writeFileSync(join(keystoreDir, 'other.json'), JSON.stringify({ address: 'zz', hello: 1 }));
  assert.equal(await node.rpc('eth_accounts'), before);
  const address: string = await node.rpc('personal_newAccount', ['short-lived']);
  assert.ok((await node.rpc('eth_accounts')).includes(address));
  unlinkSync(join(keystoreDir, readdirSync(keystoreDir).find((f) => f.endsWith(address.slice(2)))!));
  assert.not.ok((await node.rpc('eth_accounts')).includes(address));
});

test('a key file whose key belongs to another address than it names is refused, nothing unlocked', async () => {
  const a = Wallet.createRandom();
  const forged = JSON.parse(await cheapKeyFile(a, 'forged-pw'));
  const victim = testAddress(2).slice(2);
  forged.address = victim;
  writeFileSync(join(keystoreDir, `forged-${victim}`), JSON.stringify(forged));
  const r = await node.raw('personal_unlockAccount', ['0x' + victim, 'forged-pw', 0]);
  assert.is(r.error?.code, -32000);
  assert.match(r.error!.message, /key file content mismatch/);
  const wallets: { status: string; accounts: { address: string }[] }[] = await node.rpc('personal_listWallets');
  assert.is(wallets.find((w) => w.accounts[0]!.address === '0x' + victim)!.status, 'Locked');
});

test('a key file with a cipher iv that is not 16 bytes is refused with the reason', async () => {
  const a = Wallet.createRandom();
  const file = JSON.parse(await cheapKeyFile(a, 'short-iv'));
  const c = file.crypto ?? file.Crypto; // ethers writes `Crypto`
  c.cipherparams.iv = c.cipherparams.iv.slice(0, 24);
  writeFileSync(join(keystoreDir, `short-iv-${a.address.slice(2).toLowerCase()}`), JSON.stringify(file));
  const r = await node.raw('personal_unlockAccount', [a.address, 'short-iv', 0]);
  assert.is(r.error?.code, -32000);
  assert.match(r.error!.message, /iv is 12 bytes, not 16/);
});

test.run();
