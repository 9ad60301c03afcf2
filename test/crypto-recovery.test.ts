// Sender-recovery threads (A20) as the admission path uses them: every answer is the key the
// event loop would have recovered, in whatever order and batch size signatures arrive; a signature
// that recovers no key is an InvalidSignature; work in flight when the threads close is finished on
// the event loop. And the flag that sets how many there are.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startRecoveryThreads } from '../src/tx/signature-recovery.ts';
import { InvalidSignature } from '../src/crypto/secp256k1.ts';
import { recoverPublicKey, signHash, publicKeyOf } from '../src/crypto/secp256k1.ts';
import { keccak256 } from '../src/crypto/keccak.ts';
import { parseFlags, ConfigError, type NodeConfig } from '../src/node/config.ts';
import { prng } from './helpers/prng.ts';
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { makeTxCommon } from '../src/tx/common.ts';
import { decodePooledTx, pooledFromFacts, type PooledTx, type TxFacts } from '../src/tx/pooled-tx.ts';

const quiet = { warn: (m: string) => assert.unreachable(`unexpected warning: ${m}`) };

/** n signatures by distinct keys over distinct digests; every 7th has an r that is no point's x coordinate. */
function signatures(n: number, seed: number) {
  const rand = prng(seed);
  return Array.from({ length: n }, (_, i) => {
    const key = keccak256(Uint8Array.of(seed, i >> 8, i & 255));
    const digest = keccak256(Uint8Array.of(i & 255, seed, Math.floor(rand() * 256)));
    const { rs, recid } = signHash(digest, key);
    if (i % 7 === 3) {
      const bad = new Uint8Array(rs);
      for (let r = 1; ; r++) {
        bad.fill(0, 0, 32);
        bad[31] = r;
        try {
          recoverPublicKey(digest, bad, recid);
        } catch {
          return { digest, rs: bad, recid, key: undefined };
        }
      }
    }
    return { digest, rs, recid, key: publicKeyOf(key) };
  });
}

async function outcome(p: Promise<Uint8Array>): Promise<Uint8Array | 'invalid'> {
  try {
    return await p;
  } catch (e) {
    assert.instance(e, InvalidSignature);
    return 'invalid';
  }
}

test('two threads: 300 signatures at once and 40 one turn at a time, each the key of its signer', async () => {
  const recovery = startRecoveryThreads(2, quiet);
  try {
    assert.is(recovery.threads, 2);
    const all = signatures(300, 1);
    const got = await Promise.all(all.map((s) => outcome(recovery.recover(s.digest, s.rs, s.recid))));
    got.forEach((k, i) => assert.equal(k, all[i]!.key ?? 'invalid', `signature ${i}`));
    for (const s of signatures(40, 2)) assert.equal(await outcome(recovery.recover(s.digest, s.rs, s.recid)), s.key ?? 'invalid');
  } finally {
    await recovery.close();
  }
});

test('closing with signatures in flight: they are recovered on the event loop, and so is what comes after', async () => {
  const recovery = startRecoveryThreads(1, quiet);
  const all = signatures(100, 3);
  const pending = all.map((s) => outcome(recovery.recover(s.digest, s.rs, s.recid)));
  // the batch is handed to the thread at the end of this turn; close while it works on it
  await new Promise((r) => setImmediate(r));
  await recovery.close();
  const got = await Promise.all(pending);
  got.forEach((k, i) => assert.equal(k, all[i]!.key ?? 'invalid', `signature ${i}`));
  const late = all[0]!;
  assert.equal(await recovery.recover(late.digest, late.rs, late.recid), late.key);
});

// ---------------------------------------------------------------- a block's transactions (N9)

const CHAIN_ID = 1337n;
const txCommon = makeTxCommon(CHAIN_ID);

/** signed transactions of every kind a block may hold, and some no block may */
function transactions(): Uint8Array[] {
  const signed = (tx: TypedTransaction, i: number) => {
    const { rs, recid } = signHash(tx.getHashedMessageToSign(), keccak256(Uint8Array.of(9, i)));
    return tx.addSignature(BigInt(recid), rs.slice(0, 32), rs.slice(32), true).serialize();
  };
  const to = new Uint8Array(20).fill(0x42);
  const opts = { common: txCommon };
  const txs = [
    signed(createLegacyTx({ nonce: 0n, gasPrice: 7n, gasLimit: 21_000n, to, value: 5n }, opts), 1), // EIP-155
    signed(createLegacyTx({ nonce: 3n, gasPrice: 1n, gasLimit: 90_000n, to, value: 0n, data: Uint8Array.of(1, 2) }, opts), 2),
    signed(createLegacyTx({ nonce: 1n, gasPrice: 0n, gasLimit: 200_000n, data: Uint8Array.of(0x60, 0) }, opts), 3), // a creation
    signed(createAccessList2930Tx({ chainId: CHAIN_ID, nonce: 2n, gasPrice: 3n, gasLimit: 30_000n, to, value: 1n, accessList: [] }, opts), 4),
    signed(createAccessList2930Tx({ chainId: CHAIN_ID, nonce: 2n, gasPrice: 3n, gasLimit: 30_000n, to, value: 1n, accessList: [[new Uint8Array(20).fill(0x11), []]] }, opts), 5),
    signed(createFeeMarket1559Tx({ chainId: CHAIN_ID, nonce: 9n, maxFeePerGas: 10n, maxPriorityFeePerGas: 2n, gasLimit: 21_000n, to, value: 123n }, opts), 6),
  ];
  // an r that is no point's x coordinate: well formed, but no sender
  let noSender = new Uint8Array(txs[0]!);
  for (let r = 1; typeof onMainThread(noSender) !== 'string'; r++) {
    noSender = new Uint8Array(txs[0]!);
    noSender.fill(0, noSender.length - 65, noSender.length - 33); // r's 32 bytes: 0x01 00…00 <r>
    noSender[noSender.length - 65] = 1;
    noSender[noSender.length - 34] = r;
  }
  return [...txs, Uint8Array.of(0xc0), Uint8Array.of(1, 2, 3), noSender, txs[5]!.subarray(0, 20)];
}

/** what the main thread makes of `raw`: its pooled form, or the refusal's words */
function onMainThread(raw: Uint8Array): PooledTx | string {
  try {
    return decodePooledTx(raw, txCommon);
  } catch (e) {
    return (e as Error).message;
  }
}

/** the facts of a pooled transaction, as comparable values */
function facts(p: PooledTx) {
  return { hash: p.hashHex, sender: p.senderHex, nonce: p.nonce, gasLimit: p.gasLimit, gasPrice: p.gasPrice, tipCap: p.tipCap, cost: p.cost, value: p.value, to: p.to?.toString(), type: p.type, plain: p.plain };
}

function sameAsMainThread(raws: Uint8Array[], got: (TxFacts | string)[]): void {
  assert.is(got.length, raws.length);
  raws.forEach((raw, i) => {
    const want = onMainThread(raw);
    const g = got[i]!;
    if (typeof want === 'string') return assert.is(g, want, `transaction ${i} refused in the same words`);
    assert.type(g, 'object', `transaction ${i} decoded`);
    const p = pooledFromFacts(raw, g as TxFacts, txCommon);
    assert.equal(facts(p), facts(want), `transaction ${i}`);
    // the @ethereumjs object, made when asked for, is the same transaction with the sender pinned
    assert.is(Buffer.from(p.tx.serialize()).toString('hex'), Buffer.from(raw).toString('hex'));
    assert.is(p.tx.getSenderAddress().toString(), p.senderHex);
    assert.is(Buffer.from(p.tx.hash()).toString('hex'), p.hashHex.slice(2));
  });
}

test("a block's transactions decoded on a thread: what the main thread decodes, and its refusals in its words", async () => {
  const recovery = startRecoveryThreads(1, quiet);
  try {
    const raws = transactions();
    const want = raws.map(onMainThread);
    assert.ok(want.filter((w) => typeof w === 'string').length === 4 && want.filter((w) => typeof w !== 'string' && w.plain).length === 3, 'the cases are what they claim');
    assert.ok(want.includes('invalid transaction signature'));
    // several blocks in one turn go as one message, each answered with its own
    const got = await Promise.all([recovery.decodeTxs(raws, CHAIN_ID), recovery.decodeTxs(raws.slice(0, 3), CHAIN_ID), recovery.decodeTxs([], CHAIN_ID)]);
    sameAsMainThread(raws, got[0]);
    sameAsMainThread(raws.slice(0, 3), got[1]);
    assert.equal(got[2], []);
    // another chain id: the EIP-155 signatures of this one are not its
    const other = await recovery.decodeTxs(raws.slice(0, 1), 1n);
    assert.type(other[0], 'string');
  } finally {
    await recovery.close();
  }
});

test('closing with transactions in flight: they are decoded on the event loop', async () => {
  const recovery = startRecoveryThreads(1, quiet);
  const raws = Array.from({ length: 30 }, () => transactions()).flat();
  const pending = recovery.decodeTxs(raws, CHAIN_ID);
  await new Promise((r) => setImmediate(r));
  await recovery.close();
  sameAsMainThread(raws, await pending);
  sameAsMainThread(raws.slice(0, 5), await recovery.decodeTxs(raws.slice(0, 5), CHAIN_ID));
});

test('--txpool.recoverythreads: a count, absent by default (then set by the chain and the cores), anything else refused', () => {
  const threads = (argv: string[]) => (parseFlags(argv) as NodeConfig).recoveryThreads;
  assert.is(threads([]), undefined);
  assert.is(threads(['--txpool.recoverythreads', '0']), 0);
  assert.is(threads(['--txpool.recoverythreads', '2']), 2);
  assert.throws(() => parseFlags(['--txpool.recoverythreads', 'one']), (e: Error) => e instanceof ConfigError && /--txpool\.recoverythreads must be an integer/.test(e.message));
});

test.run();
