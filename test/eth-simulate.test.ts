// eth_simulateV1 against a real node with a Solidity contract: two blocks where the second sees the
// first's writes, logs placed in their simulated block, block overrides read by the contract
// (NUMBER, TIMESTAMP, COINBASE, PREVRANDAO, BASEFEE), state overrides per block, validation on
// (nonce, funds, base fee: execution-apis' codes) and off, reverts, traceTransfers, full
// transactions, the real state untouched, answers valid under execution-apis' result schema, and
// bad input refused with the parameter named.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AbiCoder, Interface, Transaction, Wallet, id, toBeHex, zeroPadValue } from 'ethers';
import { mined, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { compile } from './helpers/solc.ts';
import { executionApisResults } from './helpers/execution-apis.ts';
import { createPublicClient, defineChain, http, type Abi } from 'viem';
import { paced, slowdown } from './helpers/pace.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Env {
  uint public counter;
  event Bumped(uint v, address by);
  function bump() external returns (uint) { counter += 1; emit Bumped(counter, msg.sender); return counter; }
  function env() external view returns (uint, uint, address, uint, uint) { return (block.number, block.timestamp, block.coinbase, block.prevrandao, block.basefee); }
  function fail() external pure { revert("no way"); }
  function pay(address payable to) external payable { to.transfer(msg.value); }
  function balanceOf(address a) external view returns (uint) { return a.balance; }
}`;

const { Env } = compile(SOURCE);
const abi = new Interface(Env!.abi);
const sender = testAddress(0).toLowerCase();
const EMPTY = '0x00000000000000000000000000000000000e0e0e';
const COINBASE = '0x000000000000000000000000000000000000c0c0';
const TRANSFER_LOG_ADDRESS = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

let node: TestNode;
let env: string;
let head: any;

const simulate = (payload: object, block: unknown = 'latest') => node.rpc('eth_simulateV1', [payload, block]);
/** a quantity as the node writes it */
const q = (n: bigint) => '0x' + n.toString(16);
const data = (fn: string, args: unknown[] = []) => abi.encodeFunctionData(fn, args);
const validate = executionApisResults()?.('eth_simulateV1');

function checkSpec(result: unknown): void {
  if (validate) assert.not.ok(validate([{}]), 'the validator rejects a block without its fields');
  if (validate && !validate(result)) assert.unreachable(`not valid under execution-apis: ${JSON.stringify(validate.errors).slice(0, 800)}`);
}

test.before(async () => {
  node = await startTestNode({ config: { evmTimeoutMs: 2000 } });
  const raw = await new Wallet(testKey(0)).signTransaction(Transaction.from({ type: 0, chainId: 300, gasPrice: 0n, gasLimit: 1_000_000n, nonce: 0, data: Env!.bytecode }));
  env = (await mined(node, await node.rpc('eth_sendRawTransaction', [raw]))).contractAddress.toLowerCase();
  head = await node.rpc('eth_getBlockByNumber', ['latest', false]);
});
test.after(() => node.stop());

test('two blocks: the second sees the first one\'s writes; logs carry their simulated block; nothing is kept', async () => {
  const blocks = await simulate({
    blockStateCalls: [{ calls: [{ from: sender, to: env, data: data('bump') }] }, { calls: [{ from: sender, to: env, data: data('bump') }, { to: env, data: data('counter') }] }],
  });
  checkSpec(blocks);
  assert.is(blocks.length, 2);
  const [one, two] = blocks;
  assert.is(one.number, q(BigInt(head.number) + 1n));
  assert.is(two.number, q(BigInt(head.number) + 2n));
  assert.is(one.timestamp, q(BigInt(head.timestamp) + 12n), 'geth: 12 s per block by default');
  assert.is(one.parentHash, head.hash);
  assert.is(two.parentHash, one.hash);
  assert.is(one.transactions.length, 1);
  assert.is(BigInt(one.calls[0].returnData), 1n);
  assert.is(BigInt(two.calls[0].returnData), 2n);
  assert.is(BigInt(two.calls[1].returnData), 2n);
  assert.is(one.calls[0].status, '0x1');
  assert.ok(Number(one.calls[0].gasUsed) > 21_000);
  assert.is(one.gasUsed, one.calls[0].gasUsed);
  const [log] = one.calls[0].logs;
  assert.is(log.address, env);
  assert.is(log.topics[0], id('Bumped(uint256,address)'));
  assert.equal(AbiCoder.defaultAbiCoder().decode(['uint256', 'address'], log.data).map((v) => String(v).toLowerCase()), ['1', sender]);
  assert.is(log.blockHash, one.hash);
  assert.is(log.blockNumber, one.number);
  assert.is(log.transactionHash, one.transactions[0]);
  assert.is(BigInt(await node.rpc('eth_call', [{ to: env, data: data('counter') }, 'latest'])), 0n, 'the real state is untouched');
  assert.is(await node.rpc('eth_getTransactionCount', [sender, 'latest']), '0x1');
});

test('block overrides are what the contract reads; a gap in numbers is filled with empty blocks', async () => {
  const number = BigInt(head.number) + 5n;
  const blocks = await simulate({
    validation: true,
    blockStateCalls: [{ blockOverrides: { number: q(number), time: '0x77777777', feeRecipient: COINBASE, prevRandao: '0x42', baseFeePerGas: '0x7', gasLimit: '0x1c9c380' }, calls: [{ from: sender, to: env, data: data('env'), gasPrice: '0x7' }] }],
  });
  checkSpec(blocks);
  assert.is(blocks.length, 5, 'four empty blocks, then the one asked for');
  assert.equal(blocks.slice(0, 4).map((b: any) => b.calls.length), [0, 0, 0, 0]);
  const last = blocks[4];
  const [n, t, coinbase, randao, basefee] = abi.decodeFunctionResult('env', last.calls[0].returnData);
  assert.is(n, number);
  assert.is(t, 0x77777777n);
  assert.is(String(coinbase).toLowerCase(), COINBASE);
  assert.is(randao, 0x42n);
  assert.is(basefee, 7n);
  assert.is(last.miner, COINBASE);
  assert.is(last.gasLimit, '0x1c9c380');
  assert.is(last.baseFeePerGas, '0x7');
  assert.is(last.mixHash, zeroPadValue('0x42', 32));
  // without validation a call offering no fee sees a base fee of 0 (geth's eth_call rule)
  const free = await simulate({ blockStateCalls: [{ blockOverrides: { baseFeePerGas: '0x7' }, calls: [{ to: env, data: data('env') }] }] });
  assert.is(abi.decodeFunctionResult('env', free[0].calls[0].returnData)[4], 0n);
});

test('state overrides apply from their block on', async () => {
  const blocks = await simulate({
    blockStateCalls: [
      { stateOverrides: { [env]: { stateDiff: { [toBeHex(0, 32)]: toBeHex(40, 32) } } }, calls: [{ to: env, data: data('bump') }] },
      { calls: [{ to: env, data: data('counter') }] },
    ],
  });
  assert.is(BigInt(blocks[0].calls[0].returnData), 41n);
  assert.is(BigInt(blocks[1].calls[0].returnData), 41n);
});

test('a revert is a failed call with code 3 and the reason; the next call still runs', async () => {
  const blocks = await simulate({ blockStateCalls: [{ calls: [{ to: env, data: data('fail') }, { to: env, data: data('bump') }] }] });
  checkSpec(blocks);
  const [failed, ok] = blocks[0].calls;
  assert.is(failed.status, '0x0');
  assert.is(failed.error.code, 3);
  assert.is(failed.error.message, 'execution reverted: no way');
  assert.equal(failed.logs, []);
  assert.is(ok.status, '0x1');
  assert.is(ok.logs[0].logIndex, '0x0');
});

test('validation: a wrong nonce, missing funds and a fee below the base fee are refused with execution-apis codes', async () => {
  const call = (extra: object) => ({ from: sender, to: env, data: data('bump'), ...extra });
  const refused = async (payload: object, code: number, message: RegExp) => {
    const r = await node.raw('eth_simulateV1', [payload, 'latest']);
    assert.is(r.error?.code, code, JSON.stringify(r));
    assert.match(r.error!.message, message);
  };
  await refused({ validation: true, blockStateCalls: [{ calls: [call({ nonce: '0x5' })] }] }, -38011, /nonce too high/);
  await refused({ validation: true, blockStateCalls: [{ calls: [call({ nonce: '0x0' })] }] }, -38010, /nonce too low/);
  await refused({ validation: true, blockStateCalls: [{ calls: [{ from: EMPTY, to: env, gasPrice: '0x1', gas: '0x10000' }] }] }, -38014, /insufficient funds/);
  await refused({ validation: true, blockStateCalls: [{ blockOverrides: { baseFeePerGas: '0x10' }, calls: [call({ maxFeePerGas: '0x5', maxPriorityFeePerGas: '0x1' })] }] }, -38012, /base fee/);
  // the same calls without validation run as eth_call does
  const off = await simulate({ blockStateCalls: [{ calls: [call({ nonce: '0x5' })] }] });
  assert.is(off[0].calls[0].status, '0x1');
  // with validation the right nonce runs, and the next call must use the one after it
  const on = await simulate({ validation: true, blockStateCalls: [{ calls: [call({ nonce: '0x1' }), call({ nonce: '0x2' })] }] });
  assert.equal(on[0].calls.map((c: any) => c.status), ['0x1', '0x1']);
  // a sender paying for gas is charged, and the coinbase paid its tip
  const paid = await simulate({
    validation: true,
    blockStateCalls: [{ blockOverrides: { feeRecipient: COINBASE }, calls: [call({ gasPrice: '0x3b9aca00', gas: '0x20000' })] }, { calls: [{ to: env, data: data('balanceOf', [COINBASE]) }] }],
  });
  assert.is(paid[0].calls[0].status, '0x1');
  assert.is(BigInt(paid[1].calls[0].returnData), BigInt(paid[0].calls[0].gasUsed) * 1_000_000_000n);
});

test('traceTransfers: ETH moves as Transfer logs from 0xeeee…eeee, a nested one included', async () => {
  const to = testAddress(2).toLowerCase();
  const blocks = await simulate({ traceTransfers: true, blockStateCalls: [{ calls: [{ from: sender, to: env, value: '0x64', data: data('pay', [to]) }] }] });
  checkSpec(blocks);
  const logs = blocks[0].calls[0].logs;
  const topic = (a: string) => zeroPadValue(a, 32);
  assert.equal(
    logs.map((l: any) => [l.address, l.topics, BigInt(l.data)]),
    [
      [TRANSFER_LOG_ADDRESS, [id('Transfer(address,address,uint256)'), topic(sender), topic(env)], 100n],
      [TRANSFER_LOG_ADDRESS, [id('Transfer(address,address,uint256)'), topic(env), topic(to)], 100n],
    ],
  );
  const plain = await simulate({ blockStateCalls: [{ calls: [{ from: sender, to: env, value: '0x64', data: data('pay', [to]) }] }] });
  assert.equal(plain[0].calls[0].logs, []);
});

test('returnFullTransactions: transaction objects with the sender; chain_simulateV1 answers the same', async () => {
  const payload = { returnFullTransactions: true, blockStateCalls: [{ calls: [{ from: sender, to: env, data: data('bump') }] }] };
  const blocks = await simulate(payload);
  checkSpec(blocks);
  const [tx] = blocks[0].transactions;
  assert.is(tx.from, sender);
  assert.is(tx.to, env);
  assert.is(tx.input, data('bump'));
  assert.is(tx.blockHash, blocks[0].hash);
  assert.equal(await node.rpc('chain_simulateV1', [payload, 'latest']), blocks);
});

test('bad input: -32602 naming the parameter, execution-apis codes for bad block sequences and limits', async () => {
  const refused = async (payload: unknown, code: number, message: RegExp) => {
    const r = await node.raw('eth_simulateV1', [payload, 'latest']);
    assert.is(r.error?.code, code, JSON.stringify(r));
    assert.match(r.error!.message, message);
  };
  await refused({}, -32602, /payload|blockStateCalls/);
  await refused({ blockStateCalls: [{ calls: [{ from: '0x12' }] }] }, -32602, /payload|from/);
  await refused({ blockStateCalls: [{ calls: [{ to: env, data: '0x1', input: '0x2' }] }] }, -32602, /payload/);
  await refused({ blockStateCalls: [{ stateOverrides: { [env]: { state: {}, stateDiff: {} } } }] }, -32602, /blockStateCalls\[0\]\.stateOverrides.*both/);
  await refused({ blockStateCalls: Array.from({ length: 257 }, () => ({})) }, -38026, /too many blocks/);
  await refused({ blockStateCalls: [{ blockOverrides: { number: toBeHex(BigInt(head.number) + 300n) } }] }, -38026, /too many blocks/);
  await refused({ blockStateCalls: [{ blockOverrides: { number: head.number } }] }, -38020, /block numbers must be in order/);
  await refused({ blockStateCalls: [{ blockOverrides: { time: '0x100' } }, { blockOverrides: { time: '0x50' } }] }, -38021, /timestamps/);
  await refused({ blockStateCalls: [{ blockOverrides: { gasLimit: '0x10000' }, calls: [{ to: env, gas: '0x20000' }] }] }, -38015, /block gas limit/);
  await refused({ blockStateCalls: [{ calls: [{ to: env, gas: '0x100' }] }] }, -38013, /intrinsic gas/);
  await refused({ blockStateCalls: [{ calls: [{ from: env, to: sender }] }] }, -38024, /not an eoa/);
  const SHA256 = '0x0000000000000000000000000000000000000002';
  await refused({ blockStateCalls: [{ stateOverrides: { [SHA256]: { movePrecompileToAddress: SHA256 } } }] }, -38022, /itself/);
  const r = await node.raw('eth_simulateV1', [{ blockStateCalls: [] }, '0xffffff']);
  assert.ok(r.error, 'an unknown block is refused');
  assert.equal(await simulate({ blockStateCalls: [] }), []);
});

test("viem's simulateBlocks and call with stateOverride read our answers", async () => {
  const chain = defineChain({ id: 300, name: 'chain-node', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [node.url] } } });
  const pub = createPublicClient({ chain, transport: http(undefined, { retryCount: 0 }), cacheTime: 0 });
  const contract = { to: env as `0x${string}`, abi: Env!.abi as Abi };
  const blocks = await pub.simulateBlocks({
    blocks: [
      { stateOverrides: [{ address: contract.to, stateDiff: [{ slot: toBeHex(0, 32) as `0x${string}`, value: toBeHex(10, 32) as `0x${string}` }] }], calls: [{ ...contract, functionName: 'bump', from: sender as `0x${string}` }] },
      { blockOverrides: { time: 0x77777777n }, calls: [{ ...contract, functionName: 'env' }, { ...contract, functionName: 'fail' }] },
    ],
  });
  assert.is(blocks.length, 2);
  assert.is(blocks[0]!.calls[0]!.status, 'success');
  assert.is(blocks[0]!.calls[0]!.result, 11n);
  assert.is(blocks[0]!.calls[0]!.logs!.length, 1);
  assert.is((blocks[1]!.calls[0]!.result as bigint[])[1], 0x77777777n);
  assert.is(blocks[1]!.number, BigInt(head.number) + 2n);
  assert.is(blocks[1]!.calls[1]!.status, 'failure');
  assert.match(String(blocks[1]!.calls[1]!.error), /no way/);
  const { data: stored } = await pub.call({ to: contract.to, data: data('counter') as `0x${string}`, stateOverride: [{ address: contract.to, stateDiff: [{ slot: toBeHex(0, 32) as `0x${string}`, value: toBeHex(3, 32) as `0x${string}` }] }] });
  assert.is(BigInt(stored!), 3n);
});

test('--rpc.evmtimeout bounds the whole simulation', async () => {
  const loop = '0x00000000000000000000000000000000000100b0';
  const pace = await slowdown();
  const t0 = performance.now();
  const r = await node.raw('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides: { [loop]: { code: '0x5b600056' } }, calls: [{ to: loop, gas: '0x1c9c380' }, { to: loop, gas: '0x1c9c380' }] }] }, 'latest']);
  assert.is(r.error?.code, -32016, JSON.stringify(r));
  assert.is(r.error!.message, 'execution aborted (timeout = 2s)');
  const ms = performance.now() - t0;
  const bound = await paced(5000, pace);
  assert.ok(ms < bound, `ended after ${ms.toFixed(0)} ms (bound ${bound.toFixed(0)} ms at this machine's pace)`);
  assert.is(await node.rpc('eth_blockNumber'), head.number);
});

test.run();
