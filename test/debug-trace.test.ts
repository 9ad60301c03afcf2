// The debug_ namespace against a real node: a Solidity contract that calls another (which stores and
// logs), calls one that reverts with a reason, creates a contract and logs, traced with geth's
// struct logger (steps checked against each other: every step's gas is the gas before it less its
// cost) and callTracer (the call tree, revert reason, logs); whole blocks; calls; raw encodings
// decoded back and compared with what eth_ answers; bad input; a heavy loop bounded by the timeout
// and the output cap while the node keeps answering; answers valid under execution-apis' schemas.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Interface, Transaction, Wallet, decodeRlp, encodeRlp, getBytes, keccak256, toBeHex, type RlpStructuredData } from 'ethers';
import { assertAnswered, mined, pollBlockNumber, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { compile } from './helpers/solc.ts';
import { executionApisResults } from './helpers/execution-apis.ts';
import { paced, slowdown } from './helpers/pace.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Child {
  uint public v;
  event Set(uint v);
  function set(uint x) external returns (uint) { v = x; emit Set(x); return x * 2; }
  function check(uint x) external pure { require(x == 0, "child says no"); }
}
contract Parent {
  Child public child;
  uint public total;
  event Made(address c);
  constructor() { child = new Child(); }
  function run(uint x) external returns (uint r) {
    r = child.set(x);
    total += r;
    try child.check(x) {} catch {}
    Child c = new Child();
    emit Made(address(c));
  }
  function boom() external pure { revert("parent refuses"); }
  function spin(uint n) external pure returns (uint s) { for (uint i; i < n; i++) s += i * i; }
}`;

const { Parent } = compile(SOURCE);
const parentAbi = new Interface(Parent!.abi);
const wallet = new Wallet(testKey(0));
const sender = testAddress(0).toLowerCase();

let node: TestNode;
let parent: string;
let child: string;
let runHash: string;
let runReceipt: any;
let boomHash: string;
let nonce = 0;

async function send(to: string | null, data: string, gasLimit = 3_000_000n): Promise<{ hash: string; receipt: any }> {
  const raw = await wallet.signTransaction(Transaction.from({ type: 0, chainId: 300, gasPrice: 0n, gasLimit, nonce: nonce++, to, data }));
  const hash = await node.rpc('eth_sendRawTransaction', [raw]);
  return { hash, receipt: await mined(node, hash) };
}

test.before(async () => {
  node = await startTestNode();
  parent = (await send(null, Parent!.bytecode)).receipt.contractAddress;
  child = '0x' + (await node.rpc('eth_call', [{ to: parent, data: parentAbi.encodeFunctionData('child') }, 'latest'])).slice(26);
  ({ hash: runHash, receipt: runReceipt } = await send(parent, parentAbi.encodeFunctionData('run', [5])));
  boomHash = (await send(parent, parentAbi.encodeFunctionData('boom'), 100_000n)).hash;
});
test.after(() => node.stop());

/** The intrinsic gas of a call transaction with this calldata (EIP-2028). */
function intrinsic(data: string): number {
  return 21000 + [...getBytes(data)].reduce((g, b) => g + (b === 0 ? 4 : 16), 0);
}

test('struct logger: steps with pc, op, gas, gasCost, depth and stack, consistent with each other and the receipt', async () => {
  const trace = await node.rpc('debug_traceTransaction', [runHash]);
  assert.is(trace.gas, Number(runReceipt.gasUsed));
  assert.is(trace.failed, false);
  assert.is(trace.returnValue, toBeHex(10, 32), 'run(5) returns child.set(5) = 10');
  const logs: any[] = trace.structLogs;
  const tx = await node.rpc('eth_getTransactionByHash', [runHash]);
  assert.equal(logs[0], { pc: 0, op: 'PUSH1', gas: Number(tx.gas) - intrinsic(tx.input), gasCost: 3, depth: 1, stack: [] });
  assert.equal(logs[1], { pc: 2, op: 'PUSH1', gas: logs[0].gas - 3, gasCost: 3, depth: 1, stack: ['0x80'] });
  assert.is(logs[2].op, 'MSTORE');
  assert.equal(logs[2].stack, ['0x80', '0x40']);
  // within a frame, every simple step's gas is the gas before it less the cost before it
  for (let i = 0; i + 1 < logs.length; i++) {
    const [a, b] = [logs[i], logs[i + 1]];
    if (a.depth !== b.depth || /CALL|CREATE/.test(a.op)) continue;
    assert.is(b.gas, a.gas - a.gasCost, `step ${i} ${a.op}`);
  }
  // a call's cost includes the gas it hands the callee (geth): the callee's first step has that gas
  const call = logs.findIndex((l) => l.op === 'CALL');
  assert.is(logs[call + 1].depth, 2);
  assert.ok(logs[call].gasCost > logs[call + 1].gas && logs[call].gasCost - logs[call + 1].gas <= 2600 + 100, 'CALL cost = access cost + callee gas');
  const ops = new Set(logs.map((l) => l.op));
  for (const op of ['CALL', 'STATICCALL', 'CREATE', 'LOG1', 'SSTORE', 'SLOAD', 'REVERT', 'RETURN']) assert.ok(ops.has(op), op);
  assert.equal([...new Set(logs.map((l) => l.depth))].sort(), [1, 2]);
  // storage: at SSTORE the slot just written, at SLOAD the value read
  const store = logs.find((l) => l.op === 'SSTORE' && l.depth === 2);
  assert.equal(store.storage, { [toBeHex(0, 32)]: toBeHex(5, 32) }, "Child.v = 5");
  const load = logs.find((l) => l.op === 'SLOAD' && l.depth === 1);
  assert.is(load.storage[toBeHex(0, 32)], toBeHex(BigInt(child), 32), 'Parent.child read');
  assert.not.ok(logs.some((l) => l.storage && !['SLOAD', 'SSTORE'].includes(l.op)));
  const spec = executionApisResults();
  if (spec) assert.ok(spec('debug_traceTransaction')(trace), JSON.stringify(spec('debug_traceTransaction').errors));
});

test("struct logger: geth's options (disableStack, disableStorage, enableMemory, enableReturnData, limit)", async () => {
  const bare = await node.rpc('debug_traceTransaction', [runHash, { disableStack: true, disableStorage: true }]);
  assert.not.ok(bare.structLogs.some((l: any) => 'stack' in l || 'storage' in l));
  const full = await node.rpc('debug_traceTransaction', [runHash, { enableMemory: true, enableReturnData: true }]);
  assert.is(full.structLogs.length, bare.structLogs.length);
  const mstore = full.structLogs.findIndex((l: any) => l.op === 'MSTORE');
  assert.equal(full.structLogs[mstore].memory, [], 'memory before the first MSTORE is empty');
  assert.equal(full.structLogs[mstore + 1].memory, [toBeHex(0, 32), toBeHex(0, 32), toBeHex(0x80, 32)]);
  const call = full.structLogs.findIndex((l: any) => l.op === 'CALL');
  const back = full.structLogs.slice(call + 1).find((l: any) => l.depth === 1);
  assert.is(back.returnData, toBeHex(10, 32), 'after the call, its return data');
  const five = await node.rpc('debug_traceTransaction', [runHash, { limit: 5 }]);
  assert.is(five.structLogs.length, 5);
  assert.is(five.gas, bare.gas, 'execution goes on past the limit');
});

test('struct logger: a reverted transaction is failed with its revert data', async () => {
  const trace = await node.rpc('debug_traceTransaction', [boomHash]);
  assert.is(trace.failed, true);
  assert.is(trace.returnValue, new Interface(['function Error(string)']).encodeFunctionData('Error', ['parent refuses']));
  assert.is(trace.structLogs.at(-1).op, 'REVERT');
});

test('out of gas: the failing step names the fault, as the failed frame does', async () => {
  const call = { to: parent, data: parentAbi.encodeFunctionData('spin', [1000]), gas: '0x7530' };
  const logs = await node.rpc('debug_traceCall', [call, 'latest']);
  assert.is(logs.failed, true);
  assert.is(logs.returnValue, '0x');
  assert.is(logs.gas, 30000);
  assert.is(logs.structLogs.at(-1).error, 'out of gas');
  assert.is(logs.structLogs.filter((l: any) => l.error).length, 1);
  const top = await node.rpc('debug_traceCall', [call, 'latest', { tracer: 'callTracer' }]);
  assert.equal({ error: top.error, gasUsed: top.gasUsed, output: top.output }, { error: 'out of gas', gasUsed: '0x7530', output: undefined });
});

test('callTracer: nested calls with types, gas, output, the revert reason, the created contract and logs', async () => {
  const top = await node.rpc('debug_traceTransaction', [runHash, { tracer: 'callTracer', tracerConfig: { withLog: true } }]);
  const tx = await node.rpc('eth_getTransactionByHash', [runHash]);
  assert.is(top.type, 'CALL');
  assert.is(top.from, sender);
  assert.is(top.to, parent);
  assert.is(top.gas, tx.gas);
  assert.is(top.gasUsed, runReceipt.gasUsed);
  assert.is(top.input, tx.input);
  assert.is(top.output, toBeHex(10, 32));
  assert.is(top.value, '0x0');
  const [set, check, create] = top.calls;
  assert.is(top.calls.length, 3);
  assert.equal({ type: set.type, from: set.from, to: set.to, output: set.output }, { type: 'CALL', from: parent, to: child, output: toBeHex(10, 32) });
  assert.equal(set.logs, [{ address: child, topics: [keccak256(Buffer.from('Set(uint256)'))], data: toBeHex(5, 32), position: '0x0' }]);
  assert.ok(BigInt(set.gasUsed) > 20000n && BigInt(set.gasUsed) < BigInt(set.gas));
  assert.equal(
    { type: check.type, from: check.from, to: check.to, error: check.error, revertReason: check.revertReason, value: check.value },
    { type: 'STATICCALL', from: parent, to: child, error: 'execution reverted', revertReason: 'child says no', value: undefined },
  );
  assert.is(create.type, 'CREATE');
  assert.is(create.from, parent);
  assert.is(await node.rpc('eth_getCode', [create.to, 'latest']) !== '0x', true, 'the created contract');
  assert.equal(top.logs, [{ address: parent, topics: [keccak256(Buffer.from('Made(address)'))], data: toBeHex(BigInt(create.to), 32), position: '0x3' }]);
  const only = await node.rpc('debug_traceTransaction', [runHash, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }]);
  const { calls: _calls, logs: _logs, ...topAlone } = top;
  assert.equal(only, topAlone);
  const boom = await node.rpc('debug_traceTransaction', [boomHash, { tracer: 'callTracer' }]);
  assert.is(boom.error, 'execution reverted');
  assert.is(boom.revertReason, 'parent refuses');
  assert.is(boom.gas, '0x186a0');
});

test('prestateTracer: the touched accounts as they were before the transaction, and diffMode', async () => {
  const block = await node.rpc('eth_getBlockByNumber', [runReceipt.blockNumber, false]);
  const top = await node.rpc('debug_traceTransaction', [runHash, { tracer: 'callTracer' }]);
  const created = top.calls[2].to;
  const [parentCode, childCode] = [await node.rpc('eth_getCode', [parent, 'latest']), await node.rpc('eth_getCode', [child, 'latest'])];
  const pre = await node.rpc('debug_traceTransaction', [runHash, { tracer: 'prestateTracer' }]);
  assert.equal(pre, {
    [sender]: { balance: toBeHex(10n ** 24n), nonce: 1 },
    [parent]: { balance: '0x0', code: parentCode, nonce: 2, storage: { [toBeHex(0, 32)]: toBeHex(BigInt(child), 32), [toBeHex(1, 32)]: toBeHex(0, 32) } },
    [child]: { balance: '0x0', code: childCode, nonce: 1, storage: { [toBeHex(0, 32)]: toBeHex(0, 32) } },
    [block.miner]: { balance: '0x0' },
    [created]: { balance: '0x0' },
  });
  const bare = await node.rpc('debug_traceTransaction', [runHash, { tracer: 'prestateTracer', tracerConfig: { disableCode: true, disableStorage: true } }]);
  assert.equal(bare[parent], { balance: '0x0', nonce: 2 });
  const diff = await node.rpc('debug_traceTransaction', [runHash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
  assert.equal(diff, {
    post: {
      [sender]: { nonce: 2 },
      [parent]: { nonce: 3, storage: { [toBeHex(1, 32)]: toBeHex(10, 32) } },
      [child]: { storage: { [toBeHex(0, 32)]: toBeHex(5, 32) } },
      [created]: { code: childCode, nonce: 1 },
    },
    pre: {
      [sender]: { balance: toBeHex(10n ** 24n), nonce: 1 },
      [parent]: { balance: '0x0', code: parentCode, nonce: 2, storage: { [toBeHex(1, 32)]: toBeHex(0, 32) } },
      [child]: { balance: '0x0', code: childCode, nonce: 1, storage: { [toBeHex(0, 32)]: toBeHex(0, 32) } },
    },
  });
});

test('traceBlockByNumber and traceBlockByHash: every transaction of the block, as traceTransaction traces it', async () => {
  const options = { tracer: 'callTracer' };
  const byNumber = await node.rpc('debug_traceBlockByNumber', [runReceipt.blockNumber, options]);
  assert.equal(byNumber, [{ txHash: runHash, result: await node.rpc('debug_traceTransaction', [runHash, options]) }]);
  assert.equal(await node.rpc('debug_traceBlockByHash', [runReceipt.blockHash, options]), byNumber);
  const logs = await node.rpc('debug_traceBlockByNumber', [runReceipt.blockNumber]);
  assert.equal(logs[0].result, await node.rpc('debug_traceTransaction', [runHash]));
});

test('traceCall: the call traced on a block state, with the gas a transaction would use', async () => {
  const data = parentAbi.encodeFunctionData('run', [7]);
  const call = { from: sender, to: parent, data, gas: '0x2dc6c0' };
  const top = await node.rpc('debug_traceCall', [call, 'latest', { tracer: 'callTracer' }]);
  assert.is(top.output, toBeHex(14, 32));
  assert.is(top.calls.length, 3);
  assert.is(top.gas, '0x2dc6c0');
  const logs = await node.rpc('debug_traceCall', [call, 'latest']);
  assert.is(logs.gas, Number(top.gasUsed));
  assert.is(logs.structLogs[0].gas, 3_000_000 - intrinsic(data));
  // before run(5), Child.v was 0: the call's first SSTORE there writes 7 over nothing, by block hash too
  const before = await node.rpc('debug_traceCall', [call, { blockHash: (await node.rpc('eth_getBlockByNumber', [toBeHex(BigInt(runReceipt.blockNumber) - 1n), false])).hash }, { tracer: 'callTracer' }]);
  assert.ok(BigInt(before.calls[0].gasUsed) > BigInt(top.calls[0].gasUsed), 'a zero slot costs more to set than a set one');
});

test('raw header, block, transaction and receipts decode back to what eth_ answers', async () => {
  const block = await node.rpc('eth_getBlockByNumber', [runReceipt.blockNumber, false]);
  const header = await node.rpc('debug_getRawHeader', [runReceipt.blockNumber]);
  assert.is(await node.rpc('debug_getRawHeader', [block.hash]), header, 'by hash too');
  const fields = decodeRlp(header) as string[];
  const names = ['parentHash', 'sha3Uncles', 'miner', 'stateRoot', 'transactionsRoot', 'receiptsRoot', 'logsBloom', 'difficulty', 'number', 'gasLimit', 'gasUsed', 'timestamp', 'extraData', 'mixHash', 'nonce', 'baseFeePerGas'];
  assert.is(fields.length, names.length);
  // istanbul: the block hash leaves the committed seals out of extraData, the raw header keeps them
  const num = (hex: string) => (hex === '0x' ? 0n : BigInt(hex));
  names.forEach((name, i) => assert.is(num(fields[i]!), num(block[name]), name));
  const raw = await node.rpc('debug_getRawTransaction', [runHash]);
  assert.is(raw, await node.rpc('eth_getRawTransactionByHash', [runHash]));
  assert.is(keccak256(raw), runHash);
  const [h, txs, uncles] = decodeRlp(await node.rpc('debug_getRawBlock', [runReceipt.blockNumber])) as RlpStructuredData[];
  assert.is(encodeRlp(h!), header);
  assert.equal(uncles, []);
  assert.equal((txs as RlpStructuredData[]).map((t) => encodeRlp(t)), [raw], 'a legacy transaction is embedded as its list');
  const [receipt] = await node.rpc('debug_getRawReceipts', [runReceipt.blockNumber]);
  const [status, cumulative, bloom, logs] = decodeRlp(receipt) as any[];
  assert.is(status, '0x01');
  assert.is(BigInt(cumulative), BigInt(runReceipt.cumulativeGasUsed));
  assert.is(bloom, runReceipt.logsBloom);
  assert.equal(
    logs.map(([address, topics, data]: any) => ({ address, topics, data })),
    runReceipt.logs.map((l: any) => ({ address: l.address, topics: l.topics, data: l.data })),
  );
  const spec = executionApisResults();
  if (spec) {
    for (const [method, value] of [['debug_getRawHeader', header], ['debug_getRawTransaction', raw], ['debug_getRawReceipts', [receipt]]] as const) assert.ok(spec(method)(value), method);
  }
});

test('bad input: unknown transaction, block or tracer, a bad timeout, the genesis block', async () => {
  const unknownTx = await node.raw('debug_traceTransaction', ['0x' + '12'.repeat(32)]);
  assert.match(unknownTx.error!.message, /transaction 0x1212.* not found/);
  assert.is(await node.rpc('debug_getRawTransaction', ['0x' + '12'.repeat(32)]), null);
  const tracer = await node.raw('debug_traceTransaction', [runHash, { tracer: 'fourByteTracer' }]);
  assert.is(tracer.error!.code, -32602);
  assert.match(tracer.error!.message, /argument 1 \(options\): unknown tracer "fourByteTracer"/);
  const timeout = await node.raw('debug_traceTransaction', [runHash, { timeout: 'soon' }]);
  assert.is(timeout.error!.code, -32602);
  assert.match(timeout.error!.message, /timeout/);
  assert.match((await node.raw('debug_traceBlockByNumber', ['0x0'])).error!.message, /genesis is not traceable/);
  assert.match((await node.raw('debug_traceBlockByHash', ['0x' + '34'.repeat(32)])).error!.message, /block 0x3434.* not found/);
  assert.match((await node.raw('debug_getRawBlock', ['0xffff'])).error!.message, /block #65535 not found/);
  assert.is((await node.raw('debug_traceCall', [{ to: parent }, 'latest', { limit: -1 }])).error!.code, -32602);
  // LOG0 of 2^256-1 bytes (PUSH32 size, PUSH1 0, LOG0) as init code: a failed step, not a failed trace
  const hugeLog = { data: '0x7f' + 'ff'.repeat(32) + '6000a0' };
  assert.is((await node.rpc('debug_traceCall', [hugeLog, 'latest', { tracer: 'callTracer', tracerConfig: { withLog: true } }])).error, 'out of gas');
  assert.is((await node.rpc('debug_traceCall', [hugeLog, 'latest', { enableMemory: true }])).structLogs.at(-1).error, 'out of gas');
});

test('a heavy trace ends with the timeout or the output cap while the node keeps answering', async () => {
  const spin = (n: number) => ({ to: parent, data: parentAbi.encodeFunctionData('spin', [n]) });
  const pace = await slowdown();
  const poll = pollBlockNumber(node);
  const t0 = performance.now();
  const timedOut = await node.raw('debug_traceCall', [spin(1e9), 'latest', { tracer: 'callTracer', timeout: '300ms' }]);
  const took = performance.now() - t0;
  assert.is(timedOut.error!.message, 'execution timeout');
  const bound = await paced(3000, pace);
  assert.ok(took < bound, `ended after ${took.toFixed(0)} ms (bound ${bound.toFixed(0)} ms at this machine's pace)`);
  const tooLarge = await node.raw('debug_traceCall', [spin(1e6), 'latest']);
  assert.match(tooLarge.error!.message, /trace exceeds 16777216 bytes of struct logs/);
  await assertAnswered(node, await poll.stop(), 'during the heavy traces', 1000, pace);
  assert.is((await node.rpc('debug_traceCall', [spin(3), 'latest'])).failed, false, 'the runner is free again');
});

test.run();
