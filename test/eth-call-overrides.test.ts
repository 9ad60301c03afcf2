// State overrides, eth_call / eth_estimateGas's third parameter, against a real node: a Solidity
// contract sees overridden balances, nonces, code and storage (`state` replacing it, `stateDiff`
// patching it), a precompile moved elsewhere; the real state is the same afterwards, a plain call
// after an overridden one is not answered from the call-result cache, --rpc.gascap and
// --rpc.evmtimeout still bound the call, and bad overrides are -32602 naming the parameter.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Interface, Transaction, Wallet, getCreateAddress, sha256, solidityPackedKeccak256, toBeHex } from 'ethers';
import { mined, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { compile } from './helpers/solc.ts';
import { runCast } from './helpers/cast.ts';
import { paced, slowdown } from './helpers/pace.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Child {}
contract Probe {
  uint public stored = 7;
  mapping(uint => uint) public m;
  constructor() { m[1] = 11; }
  function balanceOf(address a) external view returns (uint) { return a.balance; }
  function make() external returns (address) { return address(new Child()); }
  function env() external view returns (uint, uint, address, uint) { return (block.number, block.timestamp, block.coinbase, block.gaslimit); }
}`;

const { Probe } = compile(SOURCE);
const abi = new Interface(Probe!.abi);
const wallet = new Wallet(testKey(0));
const EMPTY = '0x00000000000000000000000000000000000e0e0e';
const SHA256 = '0x0000000000000000000000000000000000000002';
const word = (n: bigint | number) => toBeHex(n, 32);
/** the slot of m[1] (a mapping at slot 1) */
const M1 = solidityPackedKeccak256(['uint256', 'uint256'], [1, 1]);
/** GAS PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns the gas the code was given */
const RETURNS_GAS = '0x5a60005260206000f3';
/** JUMPDEST PUSH1 0 JUMP: loops until it runs out of gas or time */
const ENDLESS = '0x5b600056';

let node: TestNode;
let probe: string;

const call = (to: string, data: string, overrides?: object, extra: object = {}) => node.rpc('eth_call', [{ to, data, ...extra }, 'latest', ...(overrides ? [overrides] : [])]);
const cast = (command: string, ...args: string[]) => runCast(node.url, command, ...args);
const read = async (fn: string, args: unknown[] = [], overrides?: object) => BigInt(await call(probe, abi.encodeFunctionData(fn, args), overrides));

test.before(async () => {
  node = await startTestNode({ config: { evmTimeoutMs: 500 } });
  const raw = await wallet.signTransaction(Transaction.from({ type: 0, chainId: 300, gasPrice: 0n, gasLimit: 1_000_000n, nonce: 0, data: Probe!.bytecode }));
  probe = (await mined(node, await node.rpc('eth_sendRawTransaction', [raw]))).contractAddress;
});
test.after(() => node.stop());

test('balance: the call sees the overridden balance; the real one is unchanged', async () => {
  const real = BigInt(await node.rpc('eth_getBalance', [testAddress(1), 'latest']));
  assert.is(await read('balanceOf', [testAddress(1)], { [testAddress(1)]: { balance: '0x2a' } }), 42n);
  assert.is(await read('balanceOf', [testAddress(1)]), real);
  assert.is(BigInt(await node.rpc('eth_getBalance', [testAddress(1), 'latest'])), real);
});

test('code: an empty account runs the code it is given', async () => {
  const out = await call(EMPTY, '0x', { [EMPTY]: { code: RETURNS_GAS } }, { gas: '0x186a0' });
  assert.ok(BigInt(out) > 99_000n && BigInt(out) < 100_000n, out);
  assert.is(await call(EMPTY, '0x'), '0x');
  assert.is(await node.rpc('eth_getCode', [EMPTY, 'latest']), '0x');
});

test('state replaces the whole storage, stateDiff patches slots', async () => {
  const five = { [word(0)]: word(5) };
  assert.is(await read('stored', [], { [probe]: { stateDiff: five } }), 5n);
  assert.is(await read('m', [1], { [probe]: { stateDiff: five } }), 11n, 'stateDiff keeps the other slots');
  assert.is(await read('stored', [], { [probe]: { state: five } }), 5n);
  assert.is(await read('m', [1], { [probe]: { state: five } }), 0n, 'state clears the slots it does not list');
  assert.is(await read('m', [1], { [probe]: { state: { [M1]: word(99) } } }), 99n);
  assert.is(await read('stored', []), 7n);
  assert.is(await read('m', [1]), 11n);
  assert.is(await node.rpc('eth_getStorageAt', [probe, '0x0', 'latest']), word(7));
});

test('nonce: a contract creating another uses the overridden nonce; the plain call after it is not served from the cache', async () => {
  const make = abi.encodeFunctionData('make');
  const overridden = await call(probe, make, { [probe]: { nonce: '0x64' } });
  assert.is(BigInt(overridden), BigInt(getCreateAddress({ from: probe, nonce: 100 })));
  const plain = await call(probe, make);
  assert.is(BigInt(plain), BigInt(getCreateAddress({ from: probe, nonce: 1 })));
  // and the other way round: the cached plain answer is not given to an overridden call
  assert.is(await call(probe, make, { [probe]: { nonce: '0x64' } }), overridden);
  assert.is(await node.rpc('eth_getTransactionCount', [probe, 'latest']), '0x1');
});

test('movePrecompileToAddress: the precompile answers at its new address, its old one has none', async () => {
  const moved = '0x0000000000000000000000000000000000001234';
  assert.is(await call(moved, '0x616263', { [SHA256]: { movePrecompileToAddress: moved } }), sha256('0x616263'));
  assert.is(await call(SHA256, '0x616263', { [SHA256]: { movePrecompileToAddress: moved } }), '0x');
  assert.is(await call(SHA256, '0x616263'), sha256('0x616263'), 'the precompile table is back');
  // an overridden precompile address runs the code given to it
  assert.is(BigInt(await call(SHA256, '0x', { [SHA256]: { code: RETURNS_GAS } }, { gas: '0x186a0' })) > 99_000n, true);
});

test('eth_estimateGas: a value transfer from an empty account needs the balance override', async () => {
  const tx = { from: EMPTY, to: testAddress(1), value: '0x1000' };
  const without = await node.raw('eth_estimateGas', [tx, 'latest']);
  assert.ok(without.error, 'an empty account cannot send value');
  assert.is(await node.rpc('eth_estimateGas', [tx, 'latest', { [EMPTY]: { balance: '0x10000' } }]), '0x5208');
  assert.is(await node.rpc('chain_estimateGas', [tx, 'latest', { [EMPTY]: { balance: '0x10000' } }]), '0x5208');
  assert.is(await node.rpc('eth_getBalance', [EMPTY, 'latest']), '0x0');
});

test('chain_call takes the same overrides', async () => {
  const out = await node.rpc('chain_call', [{ to: probe, data: abi.encodeFunctionData('stored') }, 'latest', { [probe]: { stateDiff: { [word(0)]: word(9) } } }]);
  assert.is(BigInt(out), 9n);
});

test("Foundry's cast call --override-state-diff / --override-balance / --override-code reach the node", async () => {
  assert.is(await cast('call', probe, 'stored()(uint256)', '--override-state-diff', `${probe}:0:5`), '5');
  assert.is(await cast('call', probe, 'm(uint256)(uint256)', '1', '--override-state', `${probe}:0:5`), '0');
  assert.is(await cast('call', probe, 'balanceOf(address)(uint256)', testAddress(1), '--override-balance', `${testAddress(1)}:42`), '42');
  assert.is(BigInt(await cast('call', EMPTY, '--override-code', `${EMPTY}:${RETURNS_GAS}`)) > 0n, true);
});

test('blockOverrides (the fourth parameter): number, time, feeRecipient and gasLimit as the contract reads them', async () => {
  const COINBASE = '0x000000000000000000000000000000000000c0c0';
  const overrides = { number: '0x1234', time: '0x5678', feeRecipient: COINBASE, gasLimit: '0x2000000' };
  const out = await node.rpc('eth_call', [{ to: probe, data: abi.encodeFunctionData('env') }, 'latest', null, overrides]);
  const [n, t, coinbase, gasLimit] = abi.decodeFunctionResult('env', out);
  assert.equal([n, t, String(coinbase).toLowerCase(), gasLimit], [0x1234n, 0x5678n, COINBASE, 0x2000000n]);
  const [plain] = abi.decodeFunctionResult('env', await call(probe, abi.encodeFunctionData('env')));
  assert.is(plain, BigInt(await node.rpc('eth_blockNumber')), 'a plain call after it sees the real block');
  assert.ok(await node.rpc('eth_estimateGas', [{ to: probe, data: abi.encodeFunctionData('env') }, 'latest', null, overrides]));
  const [castNumber, castTime] = (await cast('call', probe, 'env()(uint256,uint256,address,uint256)', '--block.number', '4660', '--block.time', '22136')).split('\n').map((line) => line.split(' ')[0]);
  assert.equal([castNumber, castTime], ['4660', '22136']);
  const r = await node.raw('eth_call', [{ to: probe }, 'latest', null, { baseFeePerGas: '0x1' }]);
  assert.is(r.error?.code, -32602);
  assert.match(r.error!.message, /blockOverrides: baseFeePerGas is not supported/);
});

test('debug_traceCall takes stateOverrides and blockOverrides in its options', async () => {
  const options = { tracer: 'callTracer', stateOverrides: { [probe]: { stateDiff: { [word(0)]: word(5) } } }, blockOverrides: { number: '0x1234' } };
  const stored = await node.rpc('debug_traceCall', [{ to: probe, data: abi.encodeFunctionData('stored') }, 'latest', options]);
  assert.is(BigInt(stored.output), 5n);
  const env = await node.rpc('debug_traceCall', [{ to: probe, data: abi.encodeFunctionData('env') }, 'latest', options]);
  assert.is(abi.decodeFunctionResult('env', env.output)[0], 0x1234n);
  const plain = await node.rpc('debug_traceCall', [{ to: probe, data: abi.encodeFunctionData('stored') }, 'latest', { tracer: 'callTracer' }]);
  assert.is(BigInt(plain.output), 7n);
  const r = await node.raw('debug_traceCall', [{ to: probe }, 'latest', { stateOverrides: { [probe]: { state: {}, stateDiff: {} } } }]);
  assert.is(r.error?.code, -32602);
  assert.match(r.error!.message, /options\.stateOverrides: account .* has both 'state' and 'stateDiff'/);
});

test('--rpc.gascap and --rpc.evmtimeout still bound an overridden call', async () => {
  const gas = BigInt(await call(EMPTY, '0x', { [EMPTY]: { code: RETURNS_GAS } }, { gas: '0xffffffffff' }));
  assert.ok(gas < 50_000_000n, `gas ${gas} is under the cap`);
  const pace = await slowdown();
  const t0 = performance.now();
  const r = await node.raw('eth_call', [{ to: EMPTY }, 'latest', { [EMPTY]: { code: ENDLESS } }]);
  assert.is(r.error?.code, -32000);
  assert.is(r.error?.message, 'execution aborted (timeout = 500ms)');
  const ms = performance.now() - t0;
  const bound = await paced(3000, pace);
  assert.ok(ms < bound, `ended after ${ms.toFixed(0)} ms (bound ${bound.toFixed(0)} ms at this machine's pace)`);
});

test('bad overrides: -32602 naming stateOverrides and the reason', async () => {
  const bad = async (overrides: unknown, reason: RegExp) => {
    const r = await node.raw('eth_call', [{ to: probe, data: abi.encodeFunctionData('stored') }, 'latest', overrides]);
    assert.is(r.error?.code, -32602, JSON.stringify(r));
    assert.match(r.error!.message, /stateOverrides/);
    assert.match(r.error!.message, reason);
  };
  await bad({ [probe]: { state: {}, stateDiff: {} } }, /both 'state' and 'stateDiff'/);
  await bad({ [probe]: { nonce: '0x10000000000000000' } }, /nonce/);
  await bad({ [probe]: { movePrecompileToAddress: EMPTY } }, /not a precompile/);
  await bad({ [SHA256]: { movePrecompileToAddress: SHA256 } }, /itself/);
  await bad({ [SHA256]: { movePrecompileToAddress: EMPTY }, [EMPTY]: { balance: '0x1' } }, /already overridden/);
  await bad({ [probe]: { stateDiff: { '0x00': word(1) } } }, /stateDiff|StorageWord|slot|key/i);
  await bad({ '0x1234': {} }, /address|Address/);
  await bad({ [probe]: { balance: 'lots' } }, /balance/);
  await bad([probe], /object/);
  // the node still answers
  assert.is(await read('stored'), 7n);
});

test.run();
