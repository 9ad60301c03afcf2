// Random interleavings thrown at the pool (seeded, reproducible): admissions from many senders with
// nonce gaps, random prices (so replacements pass and fail), duplicates, locals, blocks that include
// part of the pending set, balance drops, failed transactions and the clock running out queues.
// After every step the pool must satisfy its invariants, seen only through its public interface.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TxPool, PoolError } from '../src/txpool/pool.ts';
import type { TxPoolConfig } from '../src/txpool/config.ts';
import type { PooledTx } from '../src/tx/pooled-tx.ts';
import { mine, poolAddress, ptx, TestAccounts } from './helpers/txpool-fixture.ts';
import { prng } from './helpers/prng.ts';


const CONFIG: TxPoolConfig = { priceBump: 10, accountSlots: 3, globalSlots: 14, accountQueue: 4, globalQueue: 10, lifetimeMs: 5000 };
const SENDERS = 14;
const LOCAL = new Set([12, 13]);

function checkInvariants(pool: TxPool, accounts: TestAccounts, step: string): void {
  const ctx = (m: string) => `${step}: ${m}`;
  const isLocal = (sender: string) => [...LOCAL].some((i) => poolAddress(i) === sender);
  const { pending, queued } = pool.listing();
  const seen = new Set<string>();
  let p = 0;
  let q = 0;
  let remote = 0;
  let remoteQueued = 0;
  let remotePending = 0;
  let remoteSenders = 0;
  const flatPending: PooledTx[] = [];
  for (const [sender, txs] of pending) {
    assert.ok(txs.length > 0, ctx('empty pending entry'));
    assert.is(txs[0]!.nonce, accounts.get(sender).nonce, ctx(`pending of ${sender} starts at the account nonce`));
    txs.forEach((t, i) => {
      assert.is(t.nonce, txs[0]!.nonce + BigInt(i), ctx(`no gap inside pending of ${sender}`));
      assert.is(t.senderHex, sender, ctx('grouped by sender'));
    });
    p += txs.length;
    flatPending.push(...txs);
    if (!isLocal(sender)) {
      remote += txs.length;
      remotePending += txs.length;
      remoteSenders++;
    }
  }
  for (const [sender, txs] of queued) {
    assert.ok(txs.length > 0, ctx('empty queued entry'));
    const next = (pending.get(sender)?.at(-1)?.nonce ?? accounts.get(sender).nonce - 1n) + 1n;
    assert.ok(txs[0]!.nonce > next, ctx(`queued of ${sender} starts behind a gap (${txs[0]!.nonce} > ${next})`));
    for (let i = 1; i < txs.length; i++) assert.ok(txs[i]!.nonce > txs[i - 1]!.nonce, ctx('queued in nonce order'));
    q += txs.length;
    if (!isLocal(sender)) {
      remote += txs.length;
      remoteQueued += txs.length;
      assert.ok(txs.length <= CONFIG.accountQueue, ctx(`accountqueue exceeded by ${sender}: ${txs.length}`));
    }
  }
  for (const t of [...flatPending, ...[...queued.values()].flat()]) {
    assert.not.ok(seen.has(t.hashHex), ctx(`${t.hashHex} listed twice (pending and queued?)`));
    seen.add(t.hashHex);
    assert.is(pool.get(t.hashHex), t, ctx('listed transactions are found by hash'));
  }
  assert.is(pool.pendingCount, p, ctx('pending count equals the listing'));
  assert.is(pool.queuedCount, q, ctx('queued count equals the listing'));
  assert.is(pool.size, p + q, ctx('size equals the listing'));
  assert.equal([...pool.executable()].map((t) => t.hashHex), flatPending.map((t) => t.hashHex), ctx('executable() is the pending listing'));
  // limits (locals are exempt). Above globalslots only a sender within its guaranteed accountslots
  // is admitted, and an admission or a block can promote at most accountqueue queued ones behind it.
  const pendingBound = CONFIG.globalSlots + remoteSenders * (CONFIG.accountSlots + CONFIG.accountQueue);
  assert.ok(remotePending <= pendingBound, ctx(`globalslots: ${remotePending} remote pending, bound ${pendingBound}`));
  assert.ok(q <= CONFIG.globalQueue || remoteQueued === 0, ctx(`globalqueue: ${q} queued, ${remoteQueued} remote`));
  assert.ok(p + q <= CONFIG.globalSlots + CONFIG.globalQueue || remote === 0, ctx(`capacity: ${p + q} with ${remote} remote`));
}

async function run(seed: number, steps: number): Promise<Record<string, number>> {
  const r = prng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const clock = { t: 0 };
  const accounts = new TestAccounts(10n ** 21n);
  const pool = new TxPool(accounts, CONFIG, { now: () => clock.t, expiryTimer: false });
  const tally: Record<string, number> = {};
  const count = (k: string) => (tally[k] = (tally[k] ?? 0) + 1);

  for (let step = 0; step < steps; step++) {
    const op = r();
    let label: string;
    if (op < 0.74) {
      const i = int(SENDERS);
      const sender = poolAddress(i);
      const a = accounts.get(sender);
      let tx: PooledTx;
      if (op < 0.05 && pool.size > 0) {
        const all = [...pool.listing().pending.values(), ...pool.listing().queued.values()].flat();
        tx = all[int(all.length)]!; // a duplicate
      } else {
        const value = r() < 0.1 ? a.balance / 3n : 1n; // some transactions only the current balance covers
        // executable next, behind a gap, or on a nonce the pool may hold already (a replacement)
        const kind = r();
        const next = await pool.pendingNonce(sender);
        const nonce = kind < 0.45 ? next : kind < 0.75 ? next + 1n + BigInt(int(8)) : a.nonce + BigInt(int(Number(next - a.nonce) + 2));
        tx = ptx(i, nonce, { price: BigInt(int(25)), value });
        if (tx.cost > a.balance) continue; // admission's balance check
      }
      const old = pool.find(tx.senderHex, tx.nonce);
      label = `step ${step} add ${i}#${tx.nonce}@${tx.gasPrice}`;
      try {
        const where = await pool.add(tx, { local: LOCAL.has(i) });
        count(`added ${where}`);
        assert.is(pool.get(tx.hashHex), tx, label);
        if (old && old !== tx) {
          count('replaced');
          assert.not.ok(pool.has(old.hashHex), `${label}: the replaced transaction left`);
        }
      } catch (e) {
        if (!(e instanceof PoolError)) throw e;
        count(e.message.split(':')[0]!);
        if (old !== tx) assert.is.not(pool.get(tx.hashHex), tx, `${label}: refused but pooled`);
        if (old && old !== tx && /replacement/.test(e.message)) assert.is(pool.get(old.hashHex), old, `${label}: kept the old one`);
      }
    } else if (op < 0.8) {
      label = `step ${step} block`;
      const included = await mine(pool, accounts, 1 + int(2));
      count('blocks');
      for (const t of included) assert.not.ok(pool.has(t.hashHex), `${label}: included ${t.hashHex} left`);
    } else if (op < 0.85) {
      // the head changes under the pool: a balance drop, or the nonce moved by a block of another
      // node (forward) or a reorganisation (back)
      const sender = poolAddress(int(SENDERS));
      const acct = accounts.get(sender);
      const what = r();
      if (what < 0.6) acct.balance = r() < 0.5 ? BigInt(int(100_000)) : 10n ** 21n;
      else if (what < 0.8) acct.nonce += BigInt(1 + int(2));
      else if (acct.nonce > 0n) acct.nonce -= 1n;
      label = `step ${step} head change of ${sender}`;
      await pool.onBlock([], []);
      count('head changes');
      for (const t of pool.ofSender(sender)) assert.ok(t.cost <= accounts.get(sender).balance, `${label}: unaffordable ${t.nonce} stayed`);
    } else if (op < 0.92) {
      clock.t += int(3000);
      label = `step ${step} clock ${clock.t}`;
      tally.expired = (tally.expired ?? 0) + pool.evictExpired();
    } else {
      const exec = [...pool.executable()];
      if (exec.length === 0) continue;
      const bad = exec[int(exec.length)]!;
      label = `step ${step} invalid ${bad.hashHex}`;
      await pool.onBlock([], [bad]);
      count('failed in block');
      assert.not.ok(pool.has(bad.hashHex), label);
    }
    checkInvariants(pool, accounts, label);
  }
  pool.close();
  return tally;
}

test('random interleavings keep the invariants (seeded)', async () => {
  const totals: Record<string, number> = {};
  for (const seed of [1, 2, 3]) {
    const tally = await run(seed, 1000);
    for (const [k, v] of Object.entries(tally)) totals[k] = (totals[k] ?? 0) + v;
  }
  // the run must have exercised every path it is meant to check
  for (const k of ['added pending', 'added queued', 'replaced', 'replacement transaction underpriced', 'already known', 'txpool is full', 'transaction underpriced', 'blocks', 'failed in block', 'expired']) {
    assert.ok((totals[k] ?? 0) > 0, `never exercised: ${k} (${JSON.stringify(totals)})`);
  }
  if (process.env.TXPOOL_PROPERTY_VERBOSE) console.log(totals);
});

test.run();
