// Sender-recovery threads (A20) as the admission path uses them: every answer is the key the
// event loop would have recovered, in whatever order and batch size signatures arrive; a signature
// that recovers no key is an InvalidSignature; work in flight when the threads close is finished on
// the event loop. And the flag that sets how many there are.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startRecoveryThreads, InvalidSignature } from '../src/crypto/signature-recovery.ts';
import { recoverPublicKey, signHash, publicKeyOf } from '../src/crypto/secp256k1.ts';
import { keccak256 } from '../src/crypto/keccak.ts';
import { parseFlags, ConfigError, type NodeConfig } from '../src/node/config.ts';
import { prng } from './helpers/prng.ts';

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

test('--txpool.recoverythreads: a count, absent by default (then set by the chain and the cores), anything else refused', () => {
  const threads = (argv: string[]) => (parseFlags(argv) as NodeConfig).recoveryThreads;
  assert.is(threads([]), undefined);
  assert.is(threads(['--txpool.recoverythreads', '0']), 0);
  assert.is(threads(['--txpool.recoverythreads', '2']), 2);
  assert.throws(() => parseFlags(['--txpool.recoverythreads', 'one']), (e: Error) => e instanceof ConfigError && /--txpool\.recoverythreads must be an integer/.test(e.message));
});

test.run();
