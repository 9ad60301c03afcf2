// Every eth_/chain_ state, block and transaction method of the chain core: success shapes (the
// node validates every result against openrpc.json in tests), the spec's null and error cases,
// and each transaction admission error.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Wallet, Transaction, getBytes, hexlify, toBeHex } from 'ethers';
import { RLP } from '@ethereumjs/rlp';
import { startTestNode, testKey, testAddress, type TestNode } from './helpers/node.ts';

let node: TestNode;
const wallet = new Wallet(testKey(0));
const OTHER = '0x' + '42'.repeat(20);
const UNKNOWN_HASH = '0x' + 'ab'.repeat(32);
let txHash: string;
let blockHash: string;
let blockNumber: string;

async function sign(fields: Partial<{ to: string | null; value: bigint; nonce: number; gasLimit: bigint; gasPrice: bigint; chainId: number; data: string }>, w = wallet) {
  return w.signTransaction(Transaction.from({ to: OTHER, value: 1n, gasLimit: 21000n, gasPrice: 0n, chainId: 300, type: 0, nonce: 0, ...fields }));
}

/** The same transaction with s replaced by n - s: a malleated signature every client must refuse. */
async function highS(raw: string): Promise<string> {
  const fields = RLP.decode(getBytes(raw)) as Uint8Array[];
  const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  fields[8] = getBytes(toBeHex(N - BigInt(hexlify(fields[8]!))));
  return hexlify(RLP.encode(fields));
}

async function mined(hash: string) {
  for (let i = 0; i < 500; i++) {
    const r = await node.rpc('eth_getTransactionReceipt', [hash]);
    if (r) return r;
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error(`not mined: ${hash}`);
}

test.before(async () => {
  node = await startTestNode();
  txHash = await node.rpc('eth_sendRawTransaction', [await sign({ nonce: 0, value: 1000n })]);
  const r = await mined(txHash);
  blockHash = r.blockHash;
  blockNumber = r.blockNumber;
});
test.after(() => node.stop());

for (const ns of ['eth', 'chain']) {
  test(`${ns}_: chain facts`, async () => {
    assert.is(await node.rpc(`${ns}_chainId`), '0x12c');
    assert.is(await node.rpc(`${ns}_gasPrice`), '0x0');
    assert.is(await node.rpc(`${ns}_protocolVersion`), '0x3f');
    assert.is(await node.rpc(`${ns}_syncing`), false);
    assert.ok(BigInt(await node.rpc(`${ns}_blockNumber`)) >= 1n);
  });
}

test('getBalance / getTransactionCount / getCode at tags, numbers and plain integers', async () => {
  assert.is(await node.rpc('eth_getBalance', [OTHER, 'latest']), '0x3e8');
  assert.is(await node.rpc('eth_getBalance', [OTHER, 'earliest']), '0x0');
  assert.is(await node.rpc('eth_getBalance', [OTHER, blockNumber]), '0x3e8');
  assert.is(await node.rpc('eth_getBalance', [OTHER, Number(BigInt(blockNumber))]), '0x3e8', 'plain JSON integer (D9)');
  assert.is(await node.rpc('eth_getBalance', [OTHER, 'pending']), '0x3e8');
  assert.is(await node.rpc('eth_getTransactionCount', [testAddress(0), 'latest']), '0x1');
  assert.is(await node.rpc('eth_getTransactionCount', [testAddress(0), 'earliest']), '0x0');
  assert.is(await node.rpc('eth_getCode', [OTHER, 'latest']), '0x');
});

test('state queries beyond the head are errors', async () => {
  const r = await node.raw('eth_getBalance', [OTHER, '0xffff']);
  assert.is(r.error?.code, -32000);
  assert.match(r.error!.message, /header not found/);
});

test('getAccountBaseInfo returns exact JSON integers (D6)', async () => {
  const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'chain_getAccountBaseInfo', params: [testAddress(0), 'latest'] }) });
  const text = await res.text();
  // 10^24 - 1000: beyond 2^53, must appear as exact digits in the JSON text
  assert.ok(text.includes(`"Balance":${10n ** 24n - 1000n}`), text);
  assert.ok(text.includes('"Nonce":1'), text);
  assert.ok(text.includes('"IsContract":false'), text);
});

test('blocks by number, hash, tag; counts; pending block; unknown → null', async () => {
  const b = await node.rpc('eth_getBlockByNumber', [blockNumber, false]);
  assert.is(b.hash, blockHash);
  assert.equal(b.transactions, [txHash]);
  assert.is(b.difficulty, '0x1');
  assert.equal(b.uncles, []);
  assert.is(b.baseFeePerGas, '0x0');
  const full = await node.rpc('eth_getBlockByHash', [blockHash, true]);
  assert.is(full.transactions[0].hash, txHash);
  assert.is(full.transactions[0].from, testAddress(0));
  assert.is((await node.rpc('eth_getBlockByNumber', ['earliest', false])).number, '0x0');
  assert.is((await node.rpc('eth_getBlockByNumber', ['latest', false])).number, await node.rpc('eth_blockNumber'));
  const pending = await node.rpc('eth_getBlockByNumber', ['pending', false]);
  for (const f of ['hash', 'number', 'nonce', 'mixHash', 'logsBloom']) assert.is(pending[f], null, f);
  assert.is(await node.rpc('eth_getBlockByNumber', ['0xffff', false]), null);
  assert.is(await node.rpc('eth_getBlockByHash', [UNKNOWN_HASH, false]), null);
  assert.is(await node.rpc('eth_getBlockTransactionCountByNumber', [blockNumber]), '0x1');
  assert.is(await node.rpc('eth_getBlockTransactionCountByHash', [blockHash]), '0x1');
  assert.is(await node.rpc('eth_getBlockTransactionCountByHash', [UNKNOWN_HASH]), null);
});

test('transactions and raw transactions by hash and by block + index', async () => {
  const tx = await node.rpc('eth_getTransactionByHash', [txHash]);
  assert.is(tx.blockHash, blockHash);
  assert.is(tx.value, '0x3e8');
  assert.is(tx.chainId, '0x12c');
  assert.is((await node.rpc('eth_getTransactionByBlockNumberAndIndex', [blockNumber, '0x0'])).hash, txHash);
  assert.is((await node.rpc('eth_getTransactionByBlockHashAndIndex', [blockHash, '0x0'])).hash, txHash);
  assert.is(await node.rpc('eth_getTransactionByBlockHashAndIndex', [blockHash, '0x5']), null);
  const raw = await node.rpc('eth_getRawTransactionByHash', [txHash]);
  assert.is(Transaction.from(raw).hash, txHash);
  assert.is(await node.rpc('eth_getRawTransactionByBlockNumberAndIndex', [blockNumber, '0x0']), raw);
  assert.is(await node.rpc('eth_getRawTransactionByBlockHashAndIndex', [blockHash, '0x0']), raw);
  assert.is(await node.rpc('eth_getTransactionByHash', [UNKNOWN_HASH]), null);
  assert.is(await node.rpc('eth_getRawTransactionByHash', [UNKNOWN_HASH]), null);
  assert.is(await node.rpc('eth_getTransactionReceipt', [UNKNOWN_HASH]), null);
});

test('receipt fields', async () => {
  const r = await node.rpc('eth_getTransactionReceipt', [txHash]);
  assert.is(r.status, '0x1');
  assert.is(r.gasUsed, '0x5208');
  assert.is(r.cumulativeGasUsed, '0x5208');
  assert.is(r.from, testAddress(0));
  assert.is(r.to, OTHER);
  assert.is(r.contractAddress, null);
  assert.equal(r.logs, []);
  assert.is(r.logsBloom.length, 514);
});

test('estimateGas of a transfer is 21000', async () => {
  assert.is(await node.rpc('eth_estimateGas', [{ from: testAddress(0), to: OTHER, value: '0x1' }]), '0x5208');
});

test('admission errors, each with a clear message', async () => {
  const cases: [string, string, RegExp][] = [
    ['undecodable RLP', '0xdeadbeef', /invalid transaction/],
    ['bad signature (high s)', await highS(await sign({ nonce: 1 })), /invalid transaction signature/],
    ['wrong chain id', await sign({ nonce: 1, chainId: 1 }), /invalid chain id.*chain 1.*300/],
    ['wrong chain id, EIP-1559', await wallet.signTransaction(Transaction.from({ to: OTHER, value: 1n, gasLimit: 21000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 0n, chainId: 5, type: 2, nonce: 1 })), /invalid chain id.*chain 5.*300/],
    ['nonce too low', await sign({ nonce: 0 }), /nonce too low/],
    ['insufficient funds', await sign({ nonce: 1, value: 10n ** 30n }), /insufficient funds/],
    ['intrinsic gas too low', await sign({ nonce: 1, gasLimit: 20000n }), /intrinsic gas too low/],
    ['gas above the block gas limit', await sign({ nonce: 1, gasLimit: 2n ** 49n }), /exceeds block gas limit/],
    ['oversized', await sign({ nonce: 1, gasLimit: 30_000_000n, data: '0x' + '01'.repeat(1024 * 1024) }), /oversized data: transaction size \d+ exceeds the limit of 1048576 bytes/],
  ];
  for (const [name, raw, re] of cases) {
    const r = await node.raw('eth_sendRawTransaction', [raw]);
    assert.ok(r.error, `${name}: expected an error`);
    assert.is(r.error!.code, -32000, name);
    assert.match(r.error!.message, re, name);
  }
  const known = await node.raw('eth_sendRawTransaction', [await sign({ nonce: 0, value: 1000n })]);
  assert.match(known.error!.message, /already known|nonce too low/);
});

test('gas price below the node minimum is refused', async () => {
  const priced = await startTestNode({ config: { minGasPrice: 5n } });
  try {
    const r = await priced.raw('eth_sendRawTransaction', [await sign({ nonce: 0, gasPrice: 1n })]);
    assert.match(r.error!.message, /underpriced/);
    assert.is(await priced.rpc('eth_gasPrice'), '0x5');
  } finally {
    await priced.stop();
  }
});

test.run();
