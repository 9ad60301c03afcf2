// eth_createAccessList, eth_fillTransaction and txpool_contentFrom against real nodes: the access
// list of a contract with nested calls (and the gas it answers equal to the receipt of the EIP-2930
// transaction sent with that list), a revert, a creation, precompiles and the sender left out, a
// given list kept, the time limit; a filled transaction signed outside the node and mined; one
// sender's pool; answers valid under execution-apis' result schemas; bad input refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Contract, ContractFactory, Interface, Transaction, Wallet, encodeRlp, getCreateAddress, keccak256, AbiCoder, toBeHex, zeroPadValue } from 'ethers';
import { mined, startTestNode, testAddress, testGenesis, testKey, NODE_KEY, type TestNode } from './helpers/node.ts';
import { compile } from './helpers/solc.ts';
import { executionApisResults } from './helpers/execution-apis.ts';
import { paced, slowdown } from './helpers/pace.ts';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Store {
  mapping(uint256 => uint256) public v;
  function set(uint256 k, uint256 x) external { v[k] = x; }
  function get(uint256 k) external view returns (uint256) { return v[k]; }
}
contract Caller {
  Store public store;
  uint256 public counter;
  constructor(Store s) { store = s; }
  function poke(uint256 k) external { counter += 1; store.set(k, store.get(k) + 1); }
  function fail() external { counter += 1; revert("no"); }
  function balanceOf(address a) external view returns (uint256) { return a.balance; }
  function digest() external pure returns (bytes32) { return sha256("x"); }
  function spin() external pure returns (uint256 x) { for (;;) x = uint256(keccak256(abi.encode(x))); }
}`;

const OTHER = '0x' + '42'.repeat(20);
const slot = (n: number | bigint) => zeroPadValue(toBeHex(n), 32);
const wallet = new Wallet(testKey(2));
const FROM = testAddress(2);
let node: TestNode;
let held: TestNode;
let store: string;
let caller: string;
let callerIface: Interface;
let compiled: ReturnType<typeof compile>;
const spec = executionApisResults();

function validates(method: string, result: unknown): void {
  if (!spec) return;
  const validate = spec(method);
  assert.ok(validate(result), `${method}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(result)}`);
}

async function fails(n: TestNode, method: string, params: unknown[], code: number, message: RegExp): Promise<void> {
  const r = await n.raw(method, params);
  assert.ok(r.error, `${method} should fail, got ${JSON.stringify(r.result)}`);
  assert.is(r.error!.code, code, r.error!.message);
  assert.match(r.error!.message, message);
}

async function send(fields: object): Promise<any> {
  const nonce = Number(await node.rpc('eth_getTransactionCount', [FROM, 'pending']));
  const raw = await wallet.signTransaction(Transaction.from({ chainId: 300, gasPrice: 0n, gasLimit: 3_000_000n, nonce, ...fields }));
  return mined(node, await node.rpc('eth_sendRawTransaction', [raw]));
}

test.before(async () => {
  compiled = compile(SOURCE);
  // a one-second time limit: every call here takes milliseconds, spin() would take many seconds
  node = await startTestNode({ config: { evmTimeoutMs: 1000 } });
  // a block period of an hour: what is sent stays in the pool
  held = await startTestNode({ genesis: { ...testGenesis(NODE_KEY, 4, 3600), timestamp: '0x' + Math.floor(Date.now() / 1000).toString(16) } });
  store = (await send({ type: 0, data: compiled.Store!.bytecode })).contractAddress;
  const deploy = new ContractFactory(compiled.Caller!.abi, compiled.Caller!.bytecode).interface.encodeDeploy([store]);
  caller = (await send({ type: 0, data: compiled.Caller!.bytecode + deploy.slice(2) })).contractAddress;
  callerIface = new Interface(compiled.Caller!.abi);
});
test.after(async () => {
  await node?.stop();
  await held?.stop();
});

test('createAccessList: nested calls list both contracts\' slots; the gas is the EIP-2930 transaction\'s', async () => {
  const data = callerIface.encodeFunctionData('poke', [5]);
  const result = await node.rpc('eth_createAccessList', [{ from: FROM, to: caller, data }]);
  validates('eth_createAccessList', result);
  const mapSlot = keccak256(AbiCoder.defaultAbiCoder().encode(['uint256', 'uint256'], [5, 0]));
  const expected = [
    // the recipient is warm anyway: listed for its slots (store, counter), as geth lists it
    { address: caller, storageKeys: [slot(0), slot(1)] },
    { address: store, storageKeys: [mapSlot] },
  ].sort((a, b) => (a.address < b.address ? -1 : 1));
  assert.equal(result.accessList, expected);
  assert.is(result.error, undefined);
  assert.equal(await node.rpc('chain_createAccessList', [{ from: FROM, to: caller, data }, 'latest']), result);

  const receipt = await send({ type: 1, to: caller, data, accessList: result.accessList });
  assert.is(receipt.status, '0x1');
  assert.is(result.gasUsed, receipt.gasUsed, 'the answered gas is what the transaction with the list used');
});

test('createAccessList: a revert answers the list with error; precompiles, sender and recipient are left out', async () => {
  const reverted = await node.rpc('eth_createAccessList', [{ from: FROM, to: caller, data: callerIface.encodeFunctionData('fail') }]);
  validates('eth_createAccessList', reverted);
  assert.is(reverted.error, 'execution reverted');
  assert.equal(reverted.accessList, [{ address: caller, storageKeys: [slot(1)] }]);
  assert.ok(BigInt(reverted.gasUsed) > 21000n);

  const digest = await node.rpc('eth_createAccessList', [{ from: FROM, to: caller, data: callerIface.encodeFunctionData('digest') }]);
  assert.equal(digest.accessList, [], 'the sha256 precompile is warm in every transaction');
  const own = await node.rpc('eth_createAccessList', [{ from: FROM, to: caller, data: callerIface.encodeFunctionData('balanceOf', [FROM]) }]);
  assert.equal(own.accessList, [], 'the sender is warm in every transaction');
  const other = await node.rpc('eth_createAccessList', [{ from: FROM, to: caller, data: callerIface.encodeFunctionData('balanceOf', [OTHER]) }]);
  assert.equal(other.accessList, [{ address: OTHER, storageKeys: [] }]);
  // a plain transfer touches nothing beyond sender and recipient
  assert.equal(await node.rpc('eth_createAccessList', [{ from: FROM, to: OTHER, value: '0x1' }]), { accessList: [], gasUsed: '0x5208' });
});

test('createAccessList: a creation lists the new contract for its slots; a given list is kept and paid for', async () => {
  const deploy = new ContractFactory(compiled.Caller!.abi, compiled.Caller!.bytecode).interface.encodeDeploy([store]);
  const nonce = Number(await node.rpc('eth_getTransactionCount', [FROM, 'latest']));
  const created = getCreateAddress({ from: FROM, nonce }).toLowerCase();
  const creation = await node.rpc('eth_createAccessList', [{ from: FROM, data: compiled.Caller!.bytecode + deploy.slice(2) }]);
  validates('eth_createAccessList', creation);
  assert.equal(creation.accessList, [{ address: created, storageKeys: [slot(0)] }]);
  const receipt = await send({ type: 1, data: compiled.Caller!.bytecode + deploy.slice(2), accessList: creation.accessList });
  assert.is(receipt.contractAddress, created);
  assert.is(creation.gasUsed, receipt.gasUsed);

  const given = [{ address: OTHER, storageKeys: [slot(7)] }];
  const withGiven = await node.rpc('eth_createAccessList', [{ from: FROM, to: OTHER, value: '0x1', accessList: given }]);
  // 21000 + one address (2400) + one slot (1900), as EIP-2930 prices them
  assert.equal(withGiven, { accessList: given, gasUsed: '0x' + (21000 + 2400 + 1900).toString(16) });
});

test('createAccessList: bad input, unknown block, too little gas, the time limit', async () => {
  await fails(node, 'eth_createAccessList', [{ from: FROM, to: caller, accessList: [{ address: OTHER, storageKeys: ['0x01'] }] }], -32602, /invalid argument 0 \(transaction\) at \.accessList\[0\]\.storageKeys\[0\]/);
  await fails(node, 'eth_createAccessList', [{ from: 'nope' }], -32602, /invalid argument 0 \(transaction\) at \.from/);
  await fails(node, 'eth_createAccessList', [{ from: FROM, to: OTHER }, '0xffffff'], -32000, /header not found/);
  await fails(node, 'eth_createAccessList', [{ from: FROM, to: OTHER, gas: '0x5000' }], -32000, /intrinsic gas too low: have 20480, want 21000/);
  const pace = await slowdown();
  const started = performance.now();
  await fails(node, 'eth_createAccessList', [{ from: FROM, to: caller, data: callerIface.encodeFunctionData('spin') }], -32000, /execution aborted \(timeout = 1s\)/);
  const ms = performance.now() - started;
  const bound = await paced(4000, pace);
  assert.ok(ms < bound, `stopped near its time limit: after ${ms.toFixed(0)} ms (bound ${bound.toFixed(0)} ms at this machine's pace)`);
});

test('fillTransaction: what sendTransaction would sign, unsigned, with the estimated gas; signed outside the node it is mined', async () => {
  const filled = await node.rpc('eth_fillTransaction', [{ from: FROM, to: OTHER, value: '0x2a' }]);
  validates('eth_fillTransaction', filled);
  const nonce = await node.rpc('eth_getTransactionCount', [FROM, 'pending']);
  assert.equal(filled.tx, {
    type: '0x0',
    chainId: '0x12c',
    nonce,
    gasPrice: await node.rpc('eth_gasPrice'),
    gas: await node.rpc('eth_estimateGas', [{ from: FROM, to: OTHER, value: '0x2a' }]), // geth's fill: the estimate, 21,000 for a transfer
    to: OTHER,
    value: '0x2a',
    input: '0x',
    hash: keccak256(filled.raw),
    v: '0x0',
    r: '0x0',
    s: '0x0',
  });
  const q = (h: string) => (BigInt(h) === 0n ? '0x' : toBeHex(BigInt(h)));
  assert.is(filled.raw, encodeRlp([q(nonce), '0x', q(filled.tx.gas), OTHER, '0x2a', '0x', '0x', '0x', '0x']));
  const signed = await wallet.signTransaction(Transaction.from({ type: 0, chainId: 300, nonce: Number(nonce), gasPrice: 0n, gasLimit: BigInt(filled.tx.gas), to: OTHER, value: 42n }));
  assert.is((await mined(node, await node.rpc('eth_sendRawTransaction', [signed]))).status, '0x1');

  // given fields stay; no sender is the zero address (geth); chain_ is the same method
  const given = await node.rpc('chain_fillTransaction', [{ nonce: '0x9', gas: '0x5208', gasPrice: '0x3', input: '0xabcd' }]);
  validates('eth_fillTransaction', given);
  assert.equal([given.tx.nonce, given.tx.gas, given.tx.gasPrice, given.tx.input, given.tx.to], ['0x9', '0x5208', '0x3', '0xabcd', null]);
  assert.is((await node.rpc('eth_fillTransaction', [{}])).tx.nonce, '0x0');
});

test('fillTransaction: bad input', async () => {
  await fails(node, 'eth_fillTransaction', [{ from: FROM, data: '0x01', input: '0x02' }], -32602, /both "data" and "input" are set and not equal/);
  await fails(node, 'eth_fillTransaction', [{ from: FROM, gas: '0x10000000000000000' }], -32602, /gas 0x10000000000000000 is over the largest a transaction can carry/);
  await fails(node, 'eth_fillTransaction', [{ to: 'nope' }], -32602, /invalid argument 0 \(transaction\) at \.to/);
  await fails(node, 'eth_fillTransaction', [], -32602, /transaction/);
});

test('txpool_contentFrom: one sender\'s pending and queued transactions by nonce; nothing for others', async () => {
  const sign = (nonce: number) => wallet.signTransaction(Transaction.from({ type: 0, chainId: 300, gasPrice: 0n, gasLimit: 21000n, to: OTHER, value: 1n, nonce }));
  const pending = await held.rpc('eth_sendRawTransaction', [await sign(0)]);
  const queued = await held.rpc('eth_sendRawTransaction', [await sign(5)]);
  const other = new Wallet(testKey(3));
  await held.rpc('eth_sendRawTransaction', [await other.signTransaction(Transaction.from({ type: 0, chainId: 300, gasPrice: 0n, gasLimit: 21000n, to: OTHER, nonce: 0 }))]);

  const content = await held.rpc('txpool_contentFrom', [FROM.toUpperCase().replace('0X', '0x')]);
  validates('txpool_contentFrom', content);
  assert.equal(Object.keys(content.pending), ['0']);
  assert.equal(Object.keys(content.queued), ['5']);
  assert.is(content.pending['0'].hash, pending);
  assert.is(content.queued['5'].hash, queued);
  assert.equal([content.pending['0'].blockHash, content.pending['0'].blockNumber, content.pending['0'].transactionIndex], [null, null, null]);
  // the same transaction as txpool_content shows it, but for the block hash (the spec's zero hash there)
  const all = await held.rpc('txpool_content');
  assert.equal(content.pending['0'], { ...all.pending[FROM]['0'], blockHash: null });

  assert.equal(await held.rpc('txpool_contentFrom', [OTHER]), { pending: {}, queued: {} });
  await fails(held, 'txpool_contentFrom', ['0x1234'], -32602, /invalid argument 0 \(address\)/);
  await fails(held, 'txpool_contentFrom', [], -32602, /address/);
});

test.run();
