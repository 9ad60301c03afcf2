// The pool over JSON-RPC on real nodes: txpool_content/status/inspect shapes, pending vs queued and
// promotion, replacement (raw and node-signed), resend, a limit set by configuration, sealing
// clearing what it included, balance eviction after a block, expiry, and the --txpool.* flags.
// "held" node: a block period of an hour from a genesis stamped now, so nothing is sealed and the
// pool can be observed at rest; "sealing" node: period 0, a block as soon as something is pending.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Wallet, Transaction } from 'ethers';
import { startTestNode, testGenesis, testKey, testAddress, NODE_KEY, type TestNode } from './helpers/node.ts';
import { parseFlags, ConfigError, type NodeConfig } from '../src/node/config.ts';
import { DEFAULT_TXPOOL_CONFIG } from '../src/txpool/config.ts';
import { hexToBytes } from '../src/util/hex.ts';

const OTHER = '0x' + '42'.repeat(20);
const ZERO_HASH = '0x' + '00'.repeat(32);
const wallets = [0, 1, 2, 3].map((i) => new Wallet(testKey(i)));
const addr = (i: number) => testAddress(i);
let held: TestNode;
let sealing: TestNode;

function heldGenesis(): object {
  return { ...testGenesis(NODE_KEY, 4, 3600), timestamp: '0x' + Math.floor(Date.now() / 1000).toString(16) };
}

function sign(w: Wallet, fields: Partial<{ to: string | null; value: bigint; nonce: number; gasLimit: bigint; gasPrice: bigint; data: string }>) {
  return w.signTransaction(Transaction.from({ to: OTHER, value: 1n, gasLimit: 21000n, gasPrice: 0n, chainId: 300, type: 0, nonce: 0, ...fields }));
}

async function send(node: TestNode, w: Wallet, fields: Parameters<typeof sign>[1]): Promise<string> {
  return node.rpc('eth_sendRawTransaction', [await sign(w, fields)]);
}

async function rpcError(node: TestNode, method: string, params: unknown[]): Promise<{ code: number; message: string }> {
  const r = await node.raw(method, params);
  assert.ok(r.error, `${method} should fail, got ${JSON.stringify(r.result)}`);
  return r.error!;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Listing<T> = Record<string, Record<string, T>>;
const count = (l: Listing<unknown>) => Object.values(l).reduce((n, byNonce) => n + Object.keys(byNonce).length, 0);

test.before(async () => {
  held = await startTestNode({ genesis: heldGenesis(), config: { txpool: { accountQueue: 3 } } });
  sealing = await startTestNode();
});

test.after(async () => {
  await held?.stop();
  await sealing?.stop();
});

test('a nonce gap waits in queued and is promoted when filled; counts and lookups follow', async () => {
  const w = wallets[0]!;
  const h0 = await send(held, w, { nonce: 0 });
  const h2 = await send(held, w, { nonce: 2, value: 5n });
  assert.equal(await held.rpc('txpool_status'), { pending: '0x1', queued: '0x1' });
  assert.is(await held.rpc('eth_getTransactionCount', [addr(0), 'pending']), '0x1');
  assert.is(await held.rpc('eth_getTransactionCount', [addr(0), 'latest']), '0x0');

  const content = await held.rpc('txpool_content');
  assert.equal(Object.keys(content.pending[addr(0)]), ['0']);
  assert.equal(Object.keys(content.queued[addr(0)]), ['2']);
  const queued = content.queued[addr(0)]['2'];
  assert.is(queued.hash, h2);
  assert.is(queued.blockHash, ZERO_HASH);
  assert.is(queued.blockNumber, null);
  assert.is(queued.transactionIndex, null);
  assert.is(queued.nonce, '0x2');
  assert.is(queued.from, addr(0));

  // by hash, a pool transaction has no block fields at all (null), pending or queued
  const byHash = await held.rpc('eth_getTransactionByHash', [h2]);
  assert.is(byHash.hash, h2);
  assert.is(byHash.blockHash, null);
  assert.is(byHash.blockNumber, null);
  assert.is(byHash.transactionIndex, null);

  const h1 = await send(held, w, { nonce: 1 });
  assert.equal(await held.rpc('txpool_status'), { pending: '0x3', queued: '0x0' });
  assert.is(await held.rpc('eth_getTransactionCount', [addr(0), 'pending']), '0x3');
  const after = await held.rpc('txpool_content');
  assert.equal(Object.keys(after.pending[addr(0)]), ['0', '1', '2']);
  assert.equal([0, 1, 2].map((n) => after.pending[addr(0)][String(n)].hash), [h0, h1, h2]);
  assert.is(after.queued[addr(0)], undefined);
});

test('txpool_inspect summaries are geth\'s "<to>: <value> wei + <gas> gas × <price> wei"', async () => {
  const w = wallets[0]!;
  await send(held, w, { nonce: 3, value: 1000n, gasPrice: 7n, gasLimit: 30000n });
  await send(held, w, { nonce: 9, to: null, value: 0n, gasLimit: 100000n, data: '0x6000' });
  const inspect = await held.rpc('txpool_inspect');
  assert.is(inspect.pending[addr(0)]['0'], `${OTHER}: 1 wei + 21000 gas × 0 wei`);
  assert.is(inspect.pending[addr(0)]['3'], `${OTHER}: 1000 wei + 30000 gas × 7 wei`);
  assert.is(inspect.queued[addr(0)]['9'], 'contract creation: 0 wei + 100000 gas × 0 wei');
});

test('txpool_status counts equal txpool_content; pendingTransactionsLength the pending count', async () => {
  const [status, content, inspect] = await Promise.all([held.rpc('txpool_status'), held.rpc('txpool_content'), held.rpc('txpool_inspect')]);
  assert.is(Number(status.pending), count(content.pending));
  assert.is(Number(status.queued), count(content.queued));
  assert.ok(Number(status.queued) > 0 && Number(status.pending) > 0);
  assert.is(count(inspect.pending), count(content.pending));
  assert.is(count(inspect.queued), count(content.queued));
  assert.is(await held.rpc('eth_pendingTransactionsLength'), Number(status.pending));
});

test('replacement: below the 10% bump refused ("replacement transaction underpriced"), at it the old one leaves', async () => {
  const w = wallets[1]!;
  const old = await send(held, w, { nonce: 0, gasPrice: 100n });
  const before = await held.rpc('txpool_status');
  const e = await rpcError(held, 'eth_sendRawTransaction', [await sign(w, { nonce: 0, gasPrice: 109n })]);
  assert.is(e.code, -32000);
  assert.match(e.message, /^replacement transaction underpriced: gas price 109 is below 110/);
  assert.is((await held.rpc('eth_getTransactionByHash', [old])).hash, old);

  const replacement = await send(held, w, { nonce: 0, gasPrice: 110n });
  assert.is(await held.rpc('eth_getTransactionByHash', [old]), null);
  assert.is((await held.rpc('eth_getTransactionByHash', [replacement])).gasPrice, '0x6e');
  const content = await held.rpc('txpool_content');
  assert.is(content.pending[addr(1)]['0'].hash, replacement);
  assert.equal(await held.rpc('txpool_status'), before);
  // an identical resubmission is a duplicate, not a replacement
  assert.match((await rpcError(held, 'eth_sendRawTransaction', [await sign(w, { nonce: 0, gasPrice: 110n })])).message, /^already known/);
});

test('a configured limit applies (--txpool.accountqueue 3 on this node)', async () => {
  const w = wallets[2]!;
  for (const nonce of [5, 6, 7]) await send(held, w, { nonce });
  const e = await rpcError(held, 'eth_sendRawTransaction', [await sign(w, { nonce: 8 })]);
  assert.is(e.code, -32000);
  assert.match(e.message, /^txpool is full: .* already has 3 queued transactions \(limit 3, --txpool.accountqueue\)/);
  assert.is(Object.keys((await held.rpc('txpool_content')).queued[addr(2)]).length, 3);
});

test('node-signed sends follow the replacement rule; pendingTransactions lists the node\'s accounts only; resend', async () => {
  const from = addr(3);
  await held.core.keystore.store(hexToBytes(testKey(3)), 'pw');
  assert.is(await held.rpc('personal_unlockAccount', [from, 'pw', 0]), true);
  const first = await held.rpc('eth_sendTransaction', [{ from, to: OTHER, value: '0x1', gas: '0x5208', gasPrice: '0x64' }]);
  const same = await rpcError(held, 'eth_sendTransaction', [{ from, to: OTHER, value: '0x2', gas: '0x5208', gasPrice: '0x64', nonce: '0x0' }]);
  assert.match(same.message, /^replacement transaction underpriced/);
  const second = await held.rpc('eth_sendTransaction', [{ from, to: OTHER, value: '0x2', gas: '0x5208', gasPrice: '0x6e', nonce: '0x0' }]);
  assert.is(await held.rpc('eth_getTransactionByHash', [first]), null);

  const mine = await held.rpc('eth_pendingTransactions');
  assert.equal(mine.map((t: { hash: string }) => t.hash), [second]);
  assert.is(mine[0].blockHash, ZERO_HASH);
  assert.is(mine[0].from, from);

  // resend: too small a bump is the pool's refusal; the old transaction stays
  const low = await rpcError(held, 'eth_resend', [{ from, nonce: '0x0' }, '0x70', '0x7530']);
  assert.match(low.message, /^replacement transaction underpriced: gas price 112 is below 121/);
  assert.is((await held.rpc('eth_getTransactionByHash', [second])).hash, second);
  // the match uses every given field
  const wrong = await rpcError(held, 'eth_resend', [{ from, nonce: '0x0', value: '0x999' }, '0x100', null]);
  assert.match(wrong.message, /^transaction not found: no pool transaction from 0x[0-9a-f]{40} with nonce 0 matches the given fields/);
  const none = await rpcError(held, 'eth_resend', [{ from, nonce: '0x5' }, '0x100', null]);
  assert.match(none.message, /^transaction not found/);

  const resent = await held.rpc('chain_resend', [{ from, to: OTHER, nonce: '0x0', value: '0x2', input: '0x' }, '0x79', '0x7530']);
  assert.is.not(resent, second);
  assert.is(await held.rpc('eth_getTransactionByHash', [second]), null);
  const tx = await held.rpc('eth_getTransactionByHash', [resent]);
  assert.equal([tx.from, tx.nonce, tx.gasPrice, tx.gas, tx.value], [from, '0x0', '0x79', '0x7530', '0x2']);
  assert.is((await held.rpc('txpool_content')).pending[from]['0'].hash, resent);

  // the sender must be unlocked, and be an account of this node
  await held.rpc('personal_lockAccount', [from]);
  const locked = await rpcError(held, 'eth_resend', [{ from, nonce: '0x0' }, '0x100', null]);
  assert.is(locked.code, -32000);
  assert.match(locked.message, /^authentication needed/);
  const foreign = await rpcError(held, 'eth_resend', [{ from: addr(0), nonce: '0x0' }, '0x100', null]);
  assert.match(foreign.message, /unknown account/);
});

test('a sealed block clears what it included; the queued remainder stays until its gap fills', async () => {
  const w = wallets[0]!;
  const h2 = await send(sealing, w, { nonce: 2 });
  const h0 = await send(sealing, w, { nonce: 0 });
  await until('the first block', () => sealing.rpc('eth_getTransactionReceipt', [h0]));
  const status = await until('the pool to settle', async () => {
    const s = await sealing.rpc('txpool_status');
    return s.pending === '0x0' && s;
  });
  assert.equal(status, { pending: '0x0', queued: '0x1' });
  const content = await sealing.rpc('txpool_content');
  assert.equal(content.pending, {});
  assert.equal(Object.keys(content.queued[addr(0)]), ['2']);
  assert.is(await sealing.rpc('eth_getTransactionByHash', [h0]).then((t) => t.blockNumber !== null), true);

  const h1 = await send(sealing, w, { nonce: 1 });
  await until('both mined', async () => (await sealing.rpc('eth_getTransactionReceipt', [h1])) && sealing.rpc('eth_getTransactionReceipt', [h2]));
  await until('an empty pool', async () => {
    const s = await sealing.rpc('txpool_status');
    return s.pending === '0x0' && s.queued === '0x0';
  });
  assert.equal(await sealing.rpc('txpool_content'), { pending: {}, queued: {} });
  assert.is(await sealing.rpc('eth_getTransactionCount', [addr(0), 'pending']), '0x3');
});

test('after a block, a queued transaction the balance no longer covers is dropped', async () => {
  const w = wallets[1]!;
  const big = 6n * 10n ** 23n; // each fits the 10^24 balance alone, not both
  const h2 = await send(sealing, w, { nonce: 2, value: big });
  assert.equal(await sealing.rpc('txpool_status'), { pending: '0x0', queued: '0x1' });
  const h0 = await send(sealing, w, { nonce: 0, value: big });
  await until('the block', () => sealing.rpc('eth_getTransactionReceipt', [h0]));
  await until('the eviction', async () => (await sealing.rpc('eth_getTransactionByHash', [h2])) === null);
  assert.equal(await sealing.rpc('txpool_status'), { pending: '0x0', queued: '0x0' });
});

test('1 MiB transactions (Venachain\'s limit): one is mined; a flood of them stays within the pool\'s slots of 32 KiB', async () => {
  const data = '0x' + '01'.repeat(1024 * 1024 - 200);
  const gasLimit = 21000n + 40n * 1024n * 1024n; // EIP-7623 floor: 40 gas a non-zero byte
  const h = await send(sealing, wallets[2]!, { nonce: 0, data, gasLimit });
  const r: { status: string } = await until('the 1 MiB transaction mined', () => sealing.rpc('eth_getTransactionReceipt', [h]), 15000);
  assert.is(r.status, '0x1');
  assert.is((await sealing.rpc('eth_getTransactionByHash', [h])).input.length, data.length);
  // 95 slots hold two transactions of 1 MiB (32 slots each), never three
  const node = await startTestNode({ genesis: heldGenesis(), config: { txpool: { globalSlots: 32, globalQueue: 63 } } });
  try {
    await send(node, wallets[0]!, { nonce: 0, data, gasLimit, gasPrice: 1n });
    await send(node, wallets[1]!, { nonce: 0, data, gasLimit, gasPrice: 2n });
    const refused = await rpcError(node, 'eth_sendRawTransaction', [await sign(wallets[2]!, { nonce: 0, data, gasLimit, gasPrice: 1n })]);
    assert.match(refused.message, /transaction underpriced: the pool is full/);
    for (let i = 0; i < 4; i++) await send(node, wallets[i]!, { nonce: i === 3 ? 0 : 1, data, gasLimit, gasPrice: 10n + BigInt(i) }).catch(() => undefined);
    const content = await node.rpc('txpool_content');
    const pooled = [...Object.values(content.pending), ...Object.values(content.queued)].flatMap((byNonce) => Object.values(byNonce as Record<string, { input: string }>));
    assert.ok(pooled.length <= 2, `${pooled.length} transactions of 1 MiB in 95 slots`);
    assert.ok(pooled.length >= 1);
    assert.ok(pooled.reduce((n, t) => n + (t.input.length - 2) / 2, 0) <= 95 * 32 * 1024);
  } finally {
    await node.stop();
  }
});

test('queued transactions expire after --txpool.lifetime', async () => {
  const node = await startTestNode({ genesis: heldGenesis(), config: { txpool: { lifetimeMs: 300 } } });
  try {
    const hq = await send(node, wallets[0]!, { nonce: 4 });
    const hp = await send(node, wallets[0]!, { nonce: 0 });
    assert.equal(await node.rpc('txpool_status'), { pending: '0x1', queued: '0x1' });
    await until('the expiry', async () => (await node.rpc('eth_getTransactionByHash', [hq])) === null, 3000);
    assert.equal(await node.rpc('txpool_status'), { pending: '0x1', queued: '0x0' });
    assert.is((await node.rpc('eth_getTransactionByHash', [hp])).hash, hp, 'pending transactions do not expire');
  } finally {
    await node.stop();
  }
});

test('--txpool.* flags: geth names and defaults, durations, refusals', () => {
  const cfg = (argv: string[]) => (parseFlags(argv) as NodeConfig).txpool;
  assert.equal(cfg([]), { ...DEFAULT_TXPOOL_CONFIG });
  assert.equal(
    cfg(['--txpool.pricebump', '25', '--txpool.accountslots', '4', '--txpool.globalslots', '100', '--txpool.accountqueue', '8', '--txpool.globalqueue', '50', '--txpool.lifetime', '1h30m']),
    { priceBump: 25, accountSlots: 4, globalSlots: 100, accountQueue: 8, globalQueue: 50, lifetimeMs: 90 * 60_000 },
  );
  assert.is(cfg(['--txpool.lifetime', '3h0m0s'])!.lifetimeMs, 3 * 3_600_000);
  assert.is(cfg(['--txpool.lifetime', '500ms'])!.lifetimeMs, 500);
  assert.is(cfg(['--txpool.lifetime', '45'])!.lifetimeMs, 45_000);
  assert.throws(() => parseFlags(['--txpool.lifetime', '3 hours']), (e: Error) => e instanceof ConfigError && /--txpool.lifetime must be a positive duration/.test(e.message));
  assert.throws(() => parseFlags(['--txpool.lifetime', '0s']), (e: Error) => e instanceof ConfigError);
  assert.throws(() => parseFlags(['--txpool.globalslots', '0']), (e: Error) => /--txpool.globalslots must be an integer ≥ 1/.test(e.message));
});

test.run();
