// Admission through eth_sendRawTransaction: every transaction type the node accepts (legacy with
// and without EIP-155, EIP-2930, EIP-1559) is admitted, mined, and reported with the signer as
// `from` and the hash clients compute (typed transactions were refused as "invalid transaction
// signature" until the recovery function learned that their v is the y parity itself); and a
// refused transaction sent again (kept decoded, RecentlyRefused) is judged afresh. All of it twice:
// senders recovered on the event loop and on a recovery thread (A20).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Wallet, Transaction, getBytes, hexlify, toBeHex, keccak256 } from 'ethers';
import { RLP } from '@ethereumjs/rlp';
import { startTestNode, testKey, type TestNode } from './helpers/node.ts';
import { recoverPublicKey } from '../src/crypto/secp256k1.ts';

const TO = '0x' + '42'.repeat(20);
const wallets = [0, 1, 2, 3].map((i) => new Wallet(testKey(i)));

/** One transaction of each kind the node accepts, with the signer that made it. */
async function samples(nonce: number): Promise<{ kind: string; raw: string; from: string }[]> {
  const [a, b, c, d] = wallets as [Wallet, Wallet, Wallet, Wallet];
  const base = { to: TO, value: 7n, gasLimit: 50_000n, nonce, data: '0x1234' };
  return [
    { kind: 'legacy, unprotected (pre-EIP-155)', raw: await a.signTransaction(Transaction.from({ ...base, type: 0, gasPrice: 1n, chainId: 0 })), from: a.address },
    { kind: 'legacy, EIP-155', raw: await b.signTransaction(Transaction.from({ ...base, type: 0, gasPrice: 1n, chainId: 300 })), from: b.address },
    {
      kind: 'EIP-2930',
      raw: await c.signTransaction(Transaction.from({ ...base, type: 1, gasPrice: 1n, chainId: 300, accessList: [{ address: TO, storageKeys: [toBeHex(1, 32)] }] })),
      from: c.address,
    },
    { kind: 'EIP-1559', raw: await d.signTransaction(Transaction.from({ ...base, type: 2, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, chainId: 300 })), from: d.address },
  ];
}

/** s replaced by n - s: the same signature, malleated; must be refused (EIP-2). */
function highS(raw: string): string {
  const fields = RLP.decode(getBytes(raw)) as Uint8Array[];
  const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  fields[8] = getBytes(toBeHex(N - BigInt(hexlify(fields[8]!))));
  return hexlify(RLP.encode(fields));
}

/** r replaced by the first value from 1 up that is no point's x coordinate: the signature recovers no key. */
function unrecoverable(raw: string): string {
  const fields = RLP.decode(getBytes(raw)) as Uint8Array[];
  const digest = getBytes(Transaction.from(raw).unsignedHash);
  const rs = new Uint8Array(64);
  rs.set(fields[8]!, 64 - fields[8]!.length);
  for (let r = 1; ; r++) {
    rs[31] = r;
    try {
      recoverPublicKey(digest, rs, 0);
      recoverPublicKey(digest, rs, 1);
    } catch {
      fields[7] = Uint8Array.of(r);
      return hexlify(RLP.encode(fields));
    }
  }
}

for (const recoveryThreads of [0, 1]) {
const test = suite(recoveryThreads ? 'senders recovered on a thread' : 'senders recovered on the event loop');
let node: TestNode;
test.before(async () => {
  node = await startTestNode({ config: { recoveryThreads } });
});
test.after(() => node.stop());

test('each type: the right from and hash, mined with status 1', async () => {
  for (const nonce of [0, 1, 2]) {
    const list = await samples(nonce);
    const hashes = await Promise.all(list.map((s) => node.rpc('eth_sendRawTransaction', [s.raw])));
    for (let i = 0; i < list.length; i++) {
      assert.is(hashes[i], keccak256(list[i]!.raw), list[i]!.kind);
      let tx: { from: string; blockNumber: string | null } | null = null;
      for (let k = 0; k < 200 && !tx?.blockNumber; k++) {
        tx = await node.rpc('eth_getTransactionByHash', [hashes[i]]);
        if (!tx?.blockNumber) await new Promise((r) => setTimeout(r, 10));
      }
      assert.is(tx!.from, list[i]!.from.toLowerCase(), `${list[i]!.kind} (nonce ${nonce})`);
      const receipt = await node.rpc('eth_getTransactionReceipt', [hashes[i]]);
      assert.is(receipt.status, '0x1', list[i]!.kind);
    }
  }
  // the EIP-1559 transaction (fee cap 2, tip 1) paid base fee 0 + tip 1 per gas, as geth reports it
  const eip1559 = (await samples(0))[3]!;
  const mined = await node.rpc('eth_getTransactionByHash', [keccak256(eip1559.raw)]);
  const receipt = await node.rpc('eth_getTransactionReceipt', [keccak256(eip1559.raw)]);
  assert.is(mined.gasPrice, '0x1', 'a mined EIP-1559 transaction shows its effective price');
  assert.is(receipt.effectiveGasPrice, '0x1');
  const paid = 10n ** 24n - BigInt(await node.rpc('eth_getBalance', [eip1559.from, 'latest']));
  assert.is(paid, 3n * (7n + BigInt(receipt.gasUsed)), 'three transactions of value 7, each paying gasUsed × 1');
  const r = await node.raw('eth_sendRawTransaction', [highS((await samples(3))[1]!.raw)]);
  assert.match(r.error!.message, /invalid transaction signature/);
});

test('a refused transaction sent again is judged on the state of now', async () => {
  const poor = Wallet.createRandom();
  const raw = await poor.signTransaction(Transaction.from({ to: TO, value: 5n, gasLimit: 21_000n, gasPrice: 0n, chainId: 300, type: 0, nonce: 0 }));
  for (let i = 0; i < 3; i++) {
    const r = await node.raw('eth_sendRawTransaction', [raw]);
    assert.match(r.error!.message, /insufficient funds/, `attempt ${i}`);
  }
  // fund it, then the very same bytes go through
  const funder = wallets[0]!;
  const nonce = Number(await node.rpc('eth_getTransactionCount', [funder.address, 'pending']));
  const fund = await funder.signTransaction(Transaction.from({ to: poor.address, value: 10n ** 18n, gasLimit: 21_000n, gasPrice: 0n, chainId: 300, type: 0, nonce }));
  const fundHash = await node.rpc('eth_sendRawTransaction', [fund]);
  for (let k = 0; k < 200 && !(await node.rpc('eth_getTransactionReceipt', [fundHash])); k++) await new Promise((r) => setTimeout(r, 10));
  const hash = await node.rpc('eth_sendRawTransaction', [raw]);
  assert.is(hash, keccak256(raw));
  let receipt = null;
  for (let k = 0; k < 200 && !receipt; k++) {
    receipt = await node.rpc('eth_getTransactionReceipt', [hash]);
    if (!receipt) await new Promise((r) => setTimeout(r, 10));
  }
  assert.is(receipt.from, poor.address.toLowerCase());
  assert.is(receipt.status, '0x1');
  // and once mined it is known, not refused for funds
  assert.match((await node.raw('eth_sendRawTransaction', [raw])).error!.message, /already known|nonce too low/);
});

test('one batch of 120 transactions from 4 senders, one signature among them recovering no key', async () => {
  const start = await Promise.all(wallets.map(async (w) => Number(await node.rpc('eth_getTransactionCount', [w.address, 'pending']))));
  const txs = await Promise.all(
    Array.from({ length: 120 }, (_, i) => {
      const w = i % 4;
      return wallets[w]!.signTransaction(Transaction.from({ to: TO, value: 1n, gasLimit: 21_000n, gasPrice: 1n, chainId: 300, type: 0, nonce: start[w]! + Math.floor(i / 4) }));
    }),
  );
  // the last transaction of sender 3: nothing depends on it
  const bad = unrecoverable(txs[119]!);
  const body = [...txs.slice(0, 119), bad].map((raw, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] }));
  const res = (await (await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as { id: number; result?: string; error?: { message: string } }[];
  const byId = new Map(res.map((r) => [r.id, r]));
  for (let i = 0; i < 119; i++) assert.is(byId.get(i)?.result, keccak256(txs[i]!), `transaction ${i}`);
  assert.match(byId.get(119)!.error!.message, /invalid transaction signature/);
  for (let w = 0; w < 4; w++) {
    const want = start[w]! + (w === 3 ? 29 : 30);
    let nonce = 0;
    for (let k = 0; k < 500 && nonce < want; k++) {
      nonce = Number(await node.rpc('eth_getTransactionCount', [wallets[w]!.address, 'latest']));
      if (nonce < want) await new Promise((r) => setTimeout(r, 10));
    }
    assert.is(nonce, want, `sender ${w}: every transaction mined, as its own`);
  }
  const last = await node.rpc('eth_getTransactionByHash', [keccak256(txs[118]!)]);
  assert.is(last.from, wallets[2]!.address.toLowerCase());
});

test.run();
}
