// personal_ and the eth_/chain_ signing methods against a real node: every method, success and
// failure (wrong password, locked, unknown account, expired unlock, lock of a locked account), the
// spec's signature rules checked against @noble/curves, the insecure-unlock rule, and a grep of
// everything the node logged and answered for the passwords and keys the test used.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Transaction } from 'ethers';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { importKey, mined as minedOn } from './helpers/accounts.ts';
import { ALL_NAMESPACES } from '../src/node/config.ts';

const PW = 'correct horse battery staple';
const NEW_PW = 'a brand new password';
const SECRETS = [PW, NEW_PW, testKey(0).slice(2)];

let node: TestNode;
let A: string; // testKey(0), funded, imported with PW
let B: string; // made by personal_newAccount with NEW_PW, empty
const logLines: string[] = [];
const answers: string[] = [];
const OTHER = '0x' + '42'.repeat(20);

/** JSON-RPC over HTTP, keeping every answer for the secrets check at the end. */
async function call(method: string, params: unknown[] = [], url = node.url): Promise<{ result?: any; error?: { code: number; message: string } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const text = await res.text();
  answers.push(text);
  return JSON.parse(text);
}

async function ok(method: string, params: unknown[] = []): Promise<any> {
  const r = await call(method, params);
  if (r.error) throw new Error(`${method}: ${r.error.message}`);
  return r.result;
}

async function fails(method: string, params: unknown[], code: number, pattern: RegExp): Promise<string> {
  const r = await call(method, params);
  assert.ok(r.error, `${method} should fail, got ${JSON.stringify(r.result)}`);
  assert.is(r.error!.code, code, r.error!.message);
  assert.match(r.error!.message, pattern);
  return r.error!.message;
}

const mined = (hash: string) => minedOn(node, hash);
const status = async (address: string) => ((await ok('personal_listWallets')) as { status: string; accounts: { address: string }[] }[]).find((w) => w.accounts[0]?.address === address)?.status;

/** The spec's rule, computed independently: keccak256("\x19Chain Signed Message:\n" ‖ len ‖ msg). */
function digest(message: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode(`\x19Chain Signed Message:\n${message.length}`);
  const all = new Uint8Array(prefix.length + message.length);
  all.set(prefix);
  all.set(message, prefix.length);
  return keccak_256(all);
}

const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');

/** R ‖ S ‖ V (27/28) made by @noble/curves over the digest. */
function nobleSign(message: Uint8Array, keyHex: string): string {
  const sig = secp256k1.sign(digest(message), Buffer.from(keyHex.slice(2), 'hex'), { prehash: false, format: 'recovered' } as never) as Uint8Array;
  return hex(new Uint8Array([...sig.subarray(1), 27 + sig[0]!]));
}

test.before(async () => {
  node = await startTestNode({ config: { verbosity: 4 }, logWrite: (l) => logLines.push(l) });
  A = await importKey(node, testKey(0), PW);
  B = await ok('personal_newAccount', [NEW_PW]);
});
test.after(() => node.stop());

test('listAccounts / eth_accounts / chain_accounts / listWallets: the keystore, no hardware wallets without USB', async () => {
  for (const m of ['personal_listAccounts', 'eth_accounts', 'chain_accounts']) {
    const list: string[] = await ok(m);
    assert.ok(list.includes(A) && list.includes(B), `${m}: ${list}`);
  }
  const wallets: { url: string; status: string }[] = await ok('personal_listWallets');
  assert.is(wallets.length, 2);
  assert.ok(wallets.every((w) => w.url.startsWith('keystore:///') && w.status === 'Locked'));
  assert.is(await ok('eth_blockNumber'), '0x0'); // and the node keeps serving
});

test('newAccount: a fresh locked account, usable with its password', async () => {
  assert.match(B, /^0x[0-9a-f]{40}$/);
  assert.is(await status(B), 'Locked');
  const sig = await ok('personal_sign', ['0xabcd', B, NEW_PW]);
  assert.is(await ok('personal_ecRecover', ['0xabcd', sig]), B);
});

test('unlockAccount: unknown account, wrong password (false, nothing kept), right password, 0 → 300 s', async () => {
  await fails('personal_unlockAccount', [OTHER, PW, 0], -32000, /unknown account/);
  assert.is(await ok('personal_unlockAccount', [A, 'wrong password', 0]), false);
  assert.is(await status(A), 'Locked');
  await fails('eth_sign', [A, '0x01'], -32000, /authentication needed.*locked/);
  assert.is(await ok('personal_unlockAccount', [A, PW, 0]), true);
  assert.is(await status(A), 'Unlocked');
  const until = node.core.keystore.unlockedUntil(A)!;
  assert.ok(Math.abs(until - Date.now() - 300_000) < 5_000, `unlocked until ${until - Date.now()} ms from now`);
  assert.is(await ok('personal_unlockAccount', [A, PW]), true); // duration absent: 300 s too
  assert.ok(Math.abs(node.core.keystore.unlockedUntil(A)! - Date.now() - 300_000) < 5_000);
  // a wrong password on an unlocked account: false, and the earlier unlock stays
  assert.is(await ok('personal_unlockAccount', [A, 'wrong password', 0]), false);
  assert.is(await status(A), 'Unlocked');
});

test('lockAccount: true once, then false; unknown account false; signing needs a new unlock', async () => {
  assert.is(await ok('personal_lockAccount', [A]), true);
  assert.is(await ok('personal_lockAccount', [A]), false);
  assert.is(await ok('personal_lockAccount', [OTHER]), false);
  assert.is(await status(A), 'Locked');
  await fails('eth_signTransaction', [{ from: A, to: OTHER }], -32000, /authentication needed: account 0x[0-9a-f]{40} is locked \(unlock it with personal_unlockAccount\)/);
});

test('an unlock expires after its duration', async () => {
  assert.is(await ok('personal_unlockAccount', [B, NEW_PW, 1]), true);
  assert.match(await ok('eth_sign', [B, '0x01']), /^0x[0-9a-f]{130}$/);
  await new Promise((res) => setTimeout(res, 1100));
  assert.is(await status(B), 'Locked');
  await fails('eth_sign', [B, '0x01'], -32000, /locked/);
});

test('eth_sign / chain_sign: locked and unknown accounts fail; signatures follow the spec and match @noble/curves', async () => {
  const msg = new TextEncoder().encode('hello chain');
  await fails('eth_sign', [A, hex(msg)], -32000, /locked/);
  await fails('chain_sign', [OTHER, hex(msg)], -32000, /unknown account/);
  assert.is(await ok('personal_unlockAccount', [A, PW, 60]), true);
  const sig: string = await ok('eth_sign', [A, hex(msg)]);
  assert.is(await ok('chain_sign', [A, hex(msg)]), sig);
  assert.ok(['1b', '1c'].includes(sig.slice(-2)), `V of ${sig}`);
  // RFC 6979 signatures are deterministic: the node's equals noble's over the spec's digest
  assert.is(sig, nobleSign(msg, testKey(0)));
  assert.is(await ok('personal_ecRecover', [hex(msg), sig]), A);
  assert.is(await ok('personal_lockAccount', [A]), true);
});

test('personal_sign: works locked with the right password, fails with a wrong one or an unknown account', async () => {
  const msg = '0x' + Buffer.from('sign me').toString('hex');
  const sig: string = await ok('personal_sign', [msg, A, PW]);
  assert.is(await ok('personal_ecRecover', [msg, sig]), A);
  assert.is(await status(A), 'Locked'); // signing with a password does not unlock
  await fails('personal_sign', [msg, A, 'wrong password'], -32000, /could not decrypt key for 0x[0-9a-f]{40} with given password/);
  await fails('personal_sign', [msg, OTHER, PW], -32000, /unknown account/);
  // and with a right password, whatever the lock state: unlocked + wrong password still fails
  assert.is(await ok('personal_unlockAccount', [A, PW, 60]), true);
  await fails('personal_sign', [msg, A, 'wrong password'], -32000, /could not decrypt/);
  assert.is(await ok('personal_lockAccount', [A]), true);
});

test('personal_ecRecover: a @noble/curves signature recovers its signer; malformed ones are invalid params', async () => {
  const msg = new Uint8Array([0, 1, 2, 250, 255]);
  const key = '0x' + '7'.repeat(64);
  const signer = hex(keccak_256(secp256k1.getPublicKey(Buffer.from(key.slice(2), 'hex'), false).subarray(1)).subarray(12));
  assert.is(await ok('personal_ecRecover', [hex(msg), nobleSign(msg, key)]), signer);
  const bad = nobleSign(msg, key).slice(0, -2) + '1d'; // V 29
  await fails('personal_ecRecover', [hex(msg), bad], -32602, /signature.*V must be 27 or 28/);
  await fails('personal_ecRecover', [hex(msg), '0x1234'], -32602, /signature/);
  // a signature over another message recovers another address
  assert.is.not(await ok('personal_ecRecover', ['0x00', nobleSign(msg, key)]), signer);
});

test('eth_signTransaction: fills nonce, gasPrice and gas like geth; raw decodes to the same transaction', async () => {
  await fails('eth_signTransaction', [{ from: A, to: OTHER }], -32000, /locked/);
  await fails('chain_signTransaction', [{ from: OTHER, to: A }], -32000, /unknown account/);
  assert.is(await ok('personal_unlockAccount', [A, PW, 60]), true);
  const nonce = await ok('eth_getTransactionCount', [A, 'pending']);
  const { raw, tx } = await ok('eth_signTransaction', [{ from: A, to: OTHER, value: '0x10', data: '0xc0ffee' }]);
  assert.equal(
    { nonce: tx.nonce, gasPrice: tx.gasPrice, gas: tx.gas, to: tx.to, value: tx.value, input: tx.input, chainId: tx.chainId, type: tx.type },
    { nonce, gasPrice: await ok('eth_gasPrice'), gas: '0x3938700' /* the block gas bound (S13) caps the chain's per-transaction limit */, to: OTHER, value: '0x10', input: '0xc0ffee', chainId: '0x12c', type: '0x0' },
  );
  const decoded = Transaction.from(raw);
  assert.is(decoded.from!.toLowerCase(), A);
  assert.is(decoded.hash, tx.hash);
  assert.is(decoded.chainId, 300n);
  assert.is(BigInt(tx.v), 300n * 2n + 35n + BigInt(decoded.signature!.yParity));
  await fails('eth_signTransaction', [{ from: A, to: OTHER, data: '0x01', input: '0x02' }], -32602, /"data" and "input" are set and not equal/);
});

test('eth_sendTransaction / chain_sendTransaction: need the unlock; mined from the right sender', async () => {
  await fails('eth_sendTransaction', [{ from: B, to: OTHER }], -32000, /locked/);
  await fails('eth_sendTransaction', [{ from: OTHER, to: A }], -32000, /unknown account/);
  const hash = await ok('eth_sendTransaction', [{ from: A, to: OTHER, value: '0x5', data: '0x' }]);
  const receipt = await mined(hash);
  assert.is(receipt.from, A);
  assert.is(receipt.status, '0x1');
  assert.is(BigInt(receipt.gasUsed), 21000n); // the 1.5e9 default gas is refunded
  const hash2 = await ok('chain_sendTransaction', [{ from: A, to: OTHER, value: '0x6' }]);
  assert.is((await mined(hash2)).from, A);
  assert.is(await ok('personal_lockAccount', [A]), true);
  await fails('eth_sendTransaction', [{ from: A, to: OTHER }], -32000, /locked/);
});

test('personal_sendTransaction / signAndSendTransaction: payload `input`, wrong password sends nothing', async () => {
  const before = await ok('eth_getTransactionCount', [A, 'pending']);
  await fails('personal_sendTransaction', [{ from: A, to: OTHER, value: '0x1' }, 'wrong password'], -32000, /could not decrypt/);
  await fails('personal_signAndSendTransaction', [{ from: A, to: OTHER }, 'wrong password'], -32000, /could not decrypt/);
  await fails('personal_sendTransaction', [{ from: OTHER, to: A }, PW], -32000, /unknown account/);
  assert.is(await ok('eth_getTransactionCount', [A, 'pending']), before);
  const hash = await ok('personal_sendTransaction', [{ from: A, to: OTHER, value: '0x1', input: '0x1234' }, PW]);
  assert.is((await mined(hash)).from, A);
  assert.is((await ok('eth_getTransactionByHash', [hash])).input, '0x1234');
  const hash2 = await ok('personal_signAndSendTransaction', [{ from: A, to: OTHER, value: '0x2' }, PW]);
  assert.is((await mined(hash2)).from, A);
  assert.is(await status(A), 'Locked');
});

test('personal_signTransaction: raw goes through eth_sendRawTransaction and is mined from the right sender', async () => {
  await fails('personal_signTransaction', [{ from: A, to: OTHER }, 'wrong password'], -32000, /could not decrypt/);
  await fails('personal_signTransaction', [{ from: OTHER, to: A }, PW], -32000, /unknown account/);
  const { raw, tx } = await ok('personal_signTransaction', [{ from: A, to: OTHER, value: '0x3', gas: '0x5208', input: '0x' }, PW]);
  assert.is(tx.gas, '0x5208');
  assert.is(await ok('eth_sendRawTransaction', [raw]), tx.hash);
  const receipt = await mined(tx.hash);
  assert.is(receipt.from, A);
  assert.is(receipt.to, OTHER);
});

test('personal_openWallet: unknown URLs fail; a key file wallet needs no opening', async () => {
  await fails('personal_openWallet', ['ledger://nothing-here', ''], -32000, /unknown wallet ledger:\/\/nothing-here/);
  const wallets: { url: string }[] = await ok('personal_listWallets');
  assert.is(await ok('personal_openWallet', [wallets[0]!.url, PW]), null);
});

test('unlock and password signing over a non-loopback HTTP listener are refused unless --allow-insecure-unlock', async () => {
  const http = (allow: boolean) => ({ config: { http: { addr: '0.0.0.0', port: 0, api: [...ALL_NAMESPACES], corsDomains: [], maxBodyBytes: 1 << 20, maxBatch: 100 }, allowInsecureUnlock: allow } });
  for (const allow of [false, true]) {
    const n = await startTestNode(http(allow));
    try {
      const url = `http://127.0.0.1:${n.port}/`;
      const address = await importKey(n, testKey(1), PW);
      const r = await call('personal_unlockAccount', [address, PW, 0], url);
      if (allow) {
        assert.is(r.result, true);
      } else {
        assert.is(r.error?.code, -32000);
        assert.match(r.error!.message, /account unlock with HTTP access is forbidden.*--allow-insecure-unlock/);
        assert.ok(!n.core.keystore.isUnlocked(address));
        // signing with a password is refused alike: the password crossed the network to get here
        const s = await call('personal_sign', ['0x01', address, PW], url);
        assert.is(s.error?.code, -32000);
        assert.match(s.error!.message, /signing with a password over HTTP access is forbidden.*--allow-insecure-unlock/);
      }
    } finally {
      await n.stop();
    }
  }
});

test('no log line and no answer contains a password or a private key', async () => {
  assert.ok(logLines.length > 0, 'the node logged nothing: the check would be empty');
  assert.ok(answers.length > 50);
  const everything = (logLines.join('') + answers.join('')).toLowerCase();
  for (const s of SECRETS) assert.not.ok(everything.includes(s.toLowerCase()), `found a secret in the node's output`);
});

test.run();
