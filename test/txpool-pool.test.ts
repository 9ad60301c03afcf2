// The pool on its own (src/txpool/pool.ts) with real signed transactions and a plain account state:
// pending vs queued, promotion, replacement, every limit, expiry, re-basing after blocks, events.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TxPool, PoolError, replacementMinimum } from '../src/txpool/pool.ts';
import type { TxPoolConfig } from '../src/txpool/config.ts';
import type { PooledTx } from '../src/tx/pooled-tx.ts';
import { mine, nonces, poolAddress as addr, ptx, TestAccounts } from './helpers/txpool-fixture.ts';

function newPool(config: Partial<TxPoolConfig> = {}, clock = { t: 1_000_000 }) {
  const accounts = new TestAccounts();
  const pool = new TxPool(accounts, config, { now: () => clock.t, expiryTimer: false });
  return { pool, accounts, clock };
}

async function rejects(p: Promise<unknown>, message: RegExp): Promise<void> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, PoolError);
    assert.match((e as Error).message, message);
    return;
  }
  assert.unreachable(`expected a rejection matching ${message}`);
}

test('a nonce gap waits in queued; filling it promotes everything behind it', async () => {
  const { pool } = newPool();
  const A = addr(1);
  assert.is(await pool.add(ptx(1, 0)), 'pending');
  assert.is(await pool.add(ptx(1, 2)), 'queued');
  assert.is(await pool.add(ptx(1, 3)), 'queued');
  assert.equal(nonces(pool), { pending: { [A]: [0] }, queued: { [A]: [2, 3] } });
  assert.is(await pool.pendingNonce(A), 1n);
  assert.is(pool.pendingCount, 1);
  assert.is(pool.queuedCount, 2);

  assert.is(await pool.add(ptx(1, 1)), 'pending');
  assert.equal(nonces(pool), { pending: { [A]: [0, 1, 2, 3] }, queued: {} });
  assert.is(await pool.pendingNonce(A), 4n);
  assert.equal([...pool.executable()].map((t) => Number(t.nonce)), [0, 1, 2, 3]);
});

test('duplicates and nonces below the account nonce are refused', async () => {
  const { pool, accounts } = newPool();
  await pool.add(ptx(1, 0));
  await rejects(pool.add(ptx(1, 0)), /^already known/);
  accounts.get(addr(2)).nonce = 5n;
  await rejects(pool.add(ptx(2, 4)), /^nonce too low: next nonce 5, tx nonce 4/);
  assert.is(pool.size, 1);
});

test('replacement needs the price bump (pending and queued); the replaced transaction leaves', async () => {
  const { pool } = newPool();
  const A = addr(1);
  const old = ptx(1, 0, { price: 100n });
  await pool.add(old);
  await rejects(pool.add(ptx(1, 0, { price: 109n })), /^replacement transaction underpriced: gas price 109 is below 110/);
  assert.is(pool.get(old.hashHex), old);

  const bumped = ptx(1, 0, { price: 110n });
  assert.is(await pool.add(bumped), 'pending');
  assert.is(pool.get(old.hashHex), undefined);
  assert.is(pool.get(bumped.hashHex), bumped);
  assert.is(pool.size, 1);
  assert.is(pool.pendingCount, 1);
  assert.equal(pool.listing().pending.get(A), [bumped]);

  // queued too
  await pool.add(ptx(1, 5, { price: 10n }));
  await rejects(pool.add(ptx(1, 5, { price: 10n, value: 2n })), /replacement transaction underpriced/);
  assert.is(await pool.add(ptx(1, 5, { price: 11n })), 'queued');
  assert.equal(nonces(pool).queued[A], [5]);
  assert.is(pool.size, 2);
});

test('replacement minimum: +pricebump%, and always strictly above the old price', () => {
  assert.is(replacementMinimum(100n, 10), 110n);
  assert.is(replacementMinimum(0n, 10), 1n);
  assert.is(replacementMinimum(5n, 10), 6n);
  assert.is(replacementMinimum(1000n, 25), 1250n);
});

test('a configured price bump is the one enforced', async () => {
  const { pool } = newPool({ priceBump: 50 });
  await pool.add(ptx(1, 0, { price: 100n }));
  await rejects(pool.add(ptx(1, 0, { price: 149n })), /below 150.*raised by 50%/);
  assert.is(await pool.add(ptx(1, 0, { price: 150n })), 'pending');
});

test('accountqueue: a remote sender holds at most N queued; a lower nonce pushes out the highest', async () => {
  const { pool } = newPool({ accountQueue: 2 });
  const A = addr(1);
  await pool.add(ptx(1, 5));
  await pool.add(ptx(1, 7));
  await rejects(pool.add(ptx(1, 9)), /^txpool is full: .* already has 2 queued transactions \(limit 2, --txpool.accountqueue\)/);
  assert.is(await pool.add(ptx(1, 6)), 'queued');
  assert.equal(nonces(pool).queued[A], [5, 6]);
  // executable transactions do not count against the queue
  for (let n = 0; n < 5; n++) assert.is(await pool.add(ptx(1, n)), 'pending');
  assert.equal(nonces(pool).pending[A], [0, 1, 2, 3, 4, 5, 6]);
});

test('globalslots / accountslots: above the global limit newcomers beyond their guaranteed slots are refused; nothing accepted is trimmed', async () => {
  const { pool } = newPool({ globalSlots: 6, accountSlots: 2 });
  const [A, B, C] = [addr(1), addr(2), addr(3)];
  for (let n = 0; n < 5; n++) await pool.add(ptx(1, n));
  await pool.add(ptx(2, 0));
  assert.is(pool.pendingCount, 6);
  // A already holds more than its 2 guaranteed slots: its next one must wait (retry later)
  await rejects(pool.add(ptx(1, 5)), /^txpool is full: 6 pending transactions \(--txpool.globalslots 6\) and .* guaranteed slots; retry later/);
  assert.equal(nonces(pool).pending[A], [0, 1, 2, 3, 4]);
  // C is within its guaranteed slots: admitted above the global limit, and A keeps everything (no nonce gap)
  assert.is(await pool.add(ptx(3, 0)), 'pending');
  assert.is(await pool.add(ptx(3, 1)), 'pending');
  await rejects(pool.add(ptx(3, 2)), /^txpool is full/);
  assert.equal(nonces(pool).pending, { [A]: [0, 1, 2, 3, 4], [B]: [0], [C]: [0, 1] });
  assert.is(pool.pendingCount, 8);
});

test('globalqueue: above the limit the least recently active senders lose their queued transactions first', async () => {
  const { pool, clock } = newPool({ globalQueue: 4 });
  const [A, B] = [addr(1), addr(2)];
  await pool.add(ptx(1, 3));
  await pool.add(ptx(1, 4));
  await pool.add(ptx(1, 5));
  clock.t += 1000;
  await pool.add(ptx(2, 3));
  assert.is(pool.queuedCount, 4);
  clock.t += 1000;
  assert.is(await pool.add(ptx(2, 4)), 'queued');
  assert.equal(nonces(pool).queued, { [A]: [3, 4], [B]: [3, 4] });
  // progress (a promotion) makes A the most recent: B now loses first
  await pool.add(ptx(1, 0));
  clock.t += 1000;
  await pool.add(ptx(1, 1));
  await pool.add(ptx(1, 2));
  assert.equal(nonces(pool).pending[A], [0, 1, 2, 3, 4]);
  for (const n of [7, 8, 9]) await pool.add(ptx(1, n));
  clock.t += 1000;
  await pool.add(ptx(3, 9));
  assert.equal(nonces(pool).queued, { [A]: [7, 8, 9], [addr(3)]: [9] });
  assert.is(pool.queuedCount, 4);
});

test('pool full: the cheapest remote transaction is evicted, a newcomer no better is refused', async () => {
  const { pool } = newPool({ globalSlots: 2, globalQueue: 2 });
  await pool.add(ptx(1, 0, { price: 5n }));
  await pool.add(ptx(2, 0, { price: 1n }));
  await pool.add(ptx(3, 0, { price: 3n }));
  await pool.add(ptx(4, 0, { price: 4n }));
  assert.is(pool.size, 4);
  await rejects(pool.add(ptx(5, 0, { price: 1n })), /^transaction underpriced: the pool is full and gas price 1 does not exceed the cheapest pooled 1/);
  const cheapest = ptx(2, 0, { price: 1n });
  assert.ok(pool.has(cheapest.hashHex));
  assert.is(await pool.add(ptx(5, 0, { price: 2n })), 'pending');
  assert.not.ok(pool.has(cheapest.hashHex));
  assert.is(pool.size, 4);
  // a future (queued) transaction may not push out a pending one
  await rejects(pool.add(ptx(6, 3, { price: 100n })), /^future transaction tries to replace pending/);
  assert.is(pool.size, 4);
});

test('local senders are never evicted and may exceed the limits', async () => {
  const { pool } = newPool({ globalSlots: 1, globalQueue: 1, accountQueue: 1, accountSlots: 1 });
  const L = addr(1);
  await pool.add(ptx(1, 0, { price: 0n }), { local: true });
  await pool.add(ptx(1, 1, { price: 0n }), { local: true });
  await pool.add(ptx(1, 5, { price: 0n }), { local: true });
  await pool.add(ptx(1, 6, { price: 0n }), { local: true });
  assert.equal(nonces(pool), { pending: { [L]: [0, 1] }, queued: { [L]: [5, 6] } });
  assert.ok(pool.isLocal(L));
  // a remote newcomer has nothing to evict
  await rejects(pool.add(ptx(2, 0, { price: 1000n })), /^txpool is full: 4 transactions, none of them evictable/);
  // a sender turns local with its first local transaction, and its remote ones with it
  const { pool: p2 } = newPool({ globalSlots: 1, globalQueue: 1 });
  await p2.add(ptx(3, 0, { price: 1n }));
  await p2.add(ptx(4, 0, { price: 2n }));
  await p2.add(ptx(3, 1, { price: 1n }), { local: true });
  assert.is(p2.size, 2);
  assert.ok(p2.has(ptx(3, 0, { price: 1n }).hashHex));
  assert.not.ok(p2.has(ptx(4, 0, { price: 2n }).hashHex), 'the remote one made room');
});

test('lifetime: queued transactions of a sender without progress expire; promotion and locals keep theirs', async () => {
  const { pool, clock } = newPool({ lifetimeMs: 1000 });
  const [B, L] = [addr(2), addr(3)];
  await pool.add(ptx(1, 2));
  await pool.add(ptx(2, 2));
  await pool.add(ptx(3, 2), { local: true });
  clock.t += 600;
  await pool.add(ptx(2, 0)); // progress for B
  clock.t += 500;
  assert.is(pool.evictExpired(), 1);
  assert.equal(nonces(pool).queued, { [B]: [2], [L]: [2] });
  assert.equal(nonces(pool).pending, { [B]: [0] });
  clock.t += 1001;
  assert.is(pool.evictExpired(), 1);
  assert.equal(nonces(pool), { pending: { [B]: [0] }, queued: { [L]: [2] } });
});

test('the expiry timer runs on its own with a short lifetime', async () => {
  const pool = new TxPool(new TestAccounts(), { lifetimeMs: 40 });
  try {
    await pool.add(ptx(1, 3));
    assert.is(pool.queuedCount, 1);
    await new Promise((r) => setTimeout(r, 150));
    assert.is(pool.queuedCount, 0);
    assert.is(pool.size, 0);
  } finally {
    pool.close();
  }
});

test('after a block: included leave, gaps promote, stale nonces go, unaffordable ones go and demote the rest', async () => {
  const { pool, accounts } = newPool();
  const [A, B] = [addr(1), addr(2)];
  for (const n of [0, 1, 3]) await pool.add(ptx(1, n));
  for (const n of [0, 1, 2]) await pool.add(ptx(2, n, { value: n === 1 ? 10n ** 20n : 1n }));
  const included = await mine(pool, accounts, 1);
  assert.equal(included.map((t) => [t.senderHex, Number(t.nonce)]), [[A, 0], [B, 0]]);
  assert.equal(nonces(pool), { pending: { [A]: [1], [B]: [1, 2] }, queued: { [A]: [3] } });
  for (const t of included) assert.not.ok(pool.has(t.hashHex));

  // A's nonce moves to 2 outside the pool (another node's block): 1 is stale, 3 still waits for 2;
  // B's balance drops below what its nonce 1 costs: 1 goes, 2 falls back to queued
  accounts.get(A).nonce = 2n;
  accounts.get(B).balance = 10n ** 19n;
  await pool.onBlock([], []);
  assert.equal(nonces(pool), { pending: {}, queued: { [A]: [3], [B]: [2] } });
  assert.is(pool.pendingCount, 0);
  assert.is(pool.queuedCount, 2);
  assert.is(await pool.pendingNonce(A), 2n);

  // the gap fills: everything behind it is executable again
  await pool.add(ptx(1, 2));
  assert.equal(nonces(pool).pending[A], [2, 3]);
});

test('transactions that failed in a block are dropped; later nonces wait in queued', async () => {
  const { pool, accounts } = newPool();
  const A = addr(1);
  for (const n of [0, 1, 2]) await pool.add(ptx(1, n));
  const dropped: string[] = [];
  pool.onDropped((t, reason) => dropped.push(`${t.nonce}: ${reason}`));
  accounts.get(A).nonce = 1n;
  await pool.onBlock([pool.find(A, 0n)!], [pool.find(A, 1n)!]);
  assert.equal(nonces(pool), { pending: {}, queued: { [A]: [2] } });
  assert.equal(dropped, ['1: invalid: failed in block execution']);
});

test('onPending announces each transaction once, when it becomes executable', async () => {
  const { pool, accounts } = newPool();
  const seen: number[] = [];
  pool.onPending((t: PooledTx) => seen.push(Number(t.nonce)));
  await pool.add(ptx(1, 1));
  assert.equal(seen, []);
  await pool.add(ptx(1, 0));
  assert.equal(seen, [0, 1]);
  await mine(pool, accounts, 1);
  assert.equal(seen, [0, 1]);
  await pool.add(ptx(1, 2, { price: 1n }));
  await pool.add(ptx(1, 2, { price: 2n }));
  assert.equal(seen, [0, 1, 2, 2]);
});

test('concurrent admissions of a new sender agree on one sender entry', async () => {
  const { pool } = newPool();
  const results = await Promise.all([0, 1, 2, 3].map((n) => pool.add(ptx(7, n))));
  assert.equal(results, ['pending', 'pending', 'pending', 'pending']);
  assert.equal(nonces(pool).pending[addr(7)], [0, 1, 2, 3]);
});

test.run();
