// The wasm VM through the node's JSON-RPC: C contracts compiled here with clang (skipped cleanly
// without it) deployed and called with eth_sendRawTransaction, eth_sendTransaction and eth_call —
// storage, strings, every integer width, events in receipts and eth_getLogs, the creator, failing
// calls reverting their writes, out of gas, bad call and deploy data, large deploys, Venachain's
// BcToken.wasm, `interpreter: evm` and `wasm`, and a fresh datadir re-executing the whole chain.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction, Wallet } from 'ethers';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { RLP } from '@ethereumjs/rlp';
import { decodeWasmReturn, encodeWasmCall, encodeWasmDeploy, parseWasmAbi, TX_TYPE_RAW_RETURN, type WasmAbi, type WasmValue } from '../src/codec/wasm-abi.ts';
import { encodeCall } from '../src/codec/venachain-call.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import { assertAnswered, mined, NODE_KEY, pollBlockNumber, startTestNode, testAddress, testGenesis, testKey, type TestNode } from './helpers/node.ts';
import { clangAvailable, compileC } from './helpers/wasm-c.ts';
import { runExportCommand } from '../src/export-command.ts';
import { runImportCommand } from '../src/import-command.ts';
import { paced, slowdown } from './helpers/pace.ts';

const haveClang = clangAvailable();
let node: TestNode;
let wasm: Uint8Array;
let abiJson: string;
let abi: WasmAbi;
let contract: string;
/** the node's log lines (its `wasm` module at debug level) */
const logLines: string[] = [];

async function sendRaw(data: Uint8Array, to: string | null, key = testKey(0), gasLimit = 5_000_000n): Promise<any> {
  const wallet = new Wallet(key);
  const [nonce, chainId] = await Promise.all([node.rpc('eth_getTransactionCount', [wallet.address, 'pending']), node.rpc('eth_chainId')]);
  const raw = await wallet.signTransaction(Transaction.from({ to, data: bytesToHex(data), gasLimit, gasPrice: 0n, chainId: BigInt(chainId), nonce: Number(nonce) }));
  return mined(node, await node.rpc('eth_sendRawTransaction', [raw]));
}

async function query(fn: string, args: WasmValue[] = [], txType = 2n): Promise<WasmValue | undefined> {
  const result = await node.rpc('eth_call', [{ to: contract, data: bytesToHex(encodeWasmCall(abi, fn, args, txType)) }, 'latest']);
  const entry = abi.find((e) => e.name === fn)!;
  return decodeWasmReturn(entry.outputs[0]?.type ?? 'void', txType, hexToBytes(result));
}

test.before(async () => {
  node = await startTestNode({ config: { logVmodule: { wasm: 4 } }, logWrite: (line) => logLines.push(line) });
  if (!haveClang) return;
  ({ wasm, abi: abiJson } = compileC('storage'));
  abi = parseWasmAbi(abiJson);
  const receipt = await sendRaw(encodeWasmDeploy(wasm, abiJson), null);
  assert.is(receipt.status, '0x1', 'the deploy succeeds');
  contract = receipt.contractAddress;
});
test.after(async () => {
  await node?.stop();
});

const maybe = haveClang ? test : test.skip;

maybe('a deploy stores the RLP blob as the code, runs init() once and records the creator', async () => {
  assert.is(await node.rpc('eth_getCode', [contract, 'latest']), bytesToHex(encodeWasmDeploy(wasm, abiJson)));
  assert.is(await query('getCounter'), 7n, 'init() set the counter');
  const info = await node.rpc('eth_getAccountBaseInfo', [contract, 'latest']);
  assert.is(info.Creator.toLowerCase(), testAddress(0).toLowerCase());
  assert.is(await query('callerIsOwner', [], 2n), 1n, 'eth_call without from: not the owner');
  const asOwner = await node.rpc('eth_call', [{ from: testAddress(0), to: contract, data: bytesToHex(encodeWasmCall(abi, 'callerIsOwner')) }, 'latest']);
  assert.is(decodeWasmReturn('int64', 2n, hexToBytes(asOwner)), 0n, 'the creator is the owner (0)');
});

maybe('storage set by eth_sendRawTransaction and eth_sendTransaction is read back; the event is in the receipt and eth_getLogs', async () => {
  const receipt = await sendRaw(encodeWasmCall(abi, 'setCounter', [-12345678901n]), contract);
  assert.is(receipt.status, '0x1');
  assert.is(await query('getCounter'), -12345678901n);
  assert.is(receipt.logs.length, 1);
  const topic = bytesToHex(keccak_256(new TextEncoder().encode('CounterSet')));
  assert.equal(receipt.logs[0].topics, [topic]);
  assert.is(receipt.logs[0].address.toLowerCase(), contract.toLowerCase());
  // the data is the int64 as the contract's memory holds it (little-endian)
  assert.is(receipt.logs[0].data, bytesToHex(new Uint8Array(new BigInt64Array([-12345678901n]).buffer)));
  // the value is in the account's storage as Solidity keeps mapping(bytes => bytes) at slot 0
  const slot = bytesToHex(keccak_256(new Uint8Array([...new TextEncoder().encode('counter'), ...new Uint8Array(32)])));
  const word = await node.rpc('eth_getStorageAt', [contract, slot, 'latest']);
  assert.is(word, bytesToHex(new Uint8Array(new BigInt64Array([-12345678901n]).buffer)) + '00'.repeat(23) + '10');
  const logs = await node.rpc('eth_getLogs', [{ address: contract, topics: [topic], fromBlock: '0x0', toBlock: 'latest' }]);
  assert.is(logs.length, 1);
  assert.is(logs[0].transactionHash, receipt.transactionHash);

  const from = await node.rpc('personal_newAccount', ['']);
  await node.rpc('personal_unlockAccount', [from, '', 60]);
  const hash = await node.rpc('eth_sendTransaction', [{ from, to: contract, data: bytesToHex(encodeWasmCall(abi, 'put', ['colour', 'a rather long value that needs more than one storage slot'])), gas: '0x2dc6c0', gasPrice: '0x0' }]);
  assert.is((await mined(node, hash)).status, '0x1');
  assert.is(await query('get', ['colour']), 'a rather long value that needs more than one storage slot');
  await sendRaw(encodeWasmCall(abi, 'put', ['colour', 'red']), contract);
  assert.is(await query('get', ['colour']), 'red', 'a shorter value replaces the long one');
  assert.is(await query('get', ['nothing']), '', 'a key never set reads empty');
});

maybe('strings in and out; txType 9 and 14 answer raw strings, other txTypes ABI-encoded', async () => {
  assert.is(await query('greet', ['wasm']), 'hello, wasm');
  assert.is(await query('greet', ['wasm'], TX_TYPE_RAW_RETURN), 'hello, wasm');
  const raw = await node.rpc('eth_call', [{ to: contract, data: bytesToHex(encodeWasmCall(abi, 'greet', ['x'], 14n)) }, 'latest']);
  assert.is(raw, bytesToHex(new TextEncoder().encode('hello, x')));
});

maybe('each integer width passes in and out with its sign', async () => {
  assert.is(await query('neg8', [100n]), -100n);
  assert.is(await query('inc8', [254n]), 255n);
  assert.is(await query('neg16', [-30000n]), 30000n);
  assert.is(await query('inc16', [65534n]), 65535n);
  assert.is(await query('neg32', [2147483647n]), -2147483647n);
  assert.is(await query('inc32', [4294967294n]), 4294967295n);
  assert.is(await query('neg64', [-9223372036854775807n]), 9223372036854775807n);
  assert.is(await query('inc64', [18446744073709551614n]), 18446744073709551615n);
  assert.is(await query('inc64', [41n], TX_TYPE_RAW_RETURN), 42n);
  assert.is(await query('not', [false]), true);
});

maybe('a failing call: status 0, its write undone, the reason in eth_call', async () => {
  const receipt = await sendRaw(encodeWasmCall(abi, 'setThenAbort', [99n]), contract);
  assert.is(receipt.status, '0x0');
  assert.is(await query('getCounter'), -12345678901n, 'the counter is unchanged');
  const res = await node.raw('eth_call', [{ to: contract, data: bytesToHex(encodeWasmCall(abi, 'setThenAbort', [1n])) }, 'latest']);
  assert.match(res.error!.message, /abort\(\) called/);
});

maybe('an endless loop ends by gas well under a second, consuming the gas, while the node answers', async () => {
  const pace = await slowdown();
  const poll = pollBlockNumber(node);
  const t0 = performance.now();
  const receipt = await sendRaw(encodeWasmCall(abi, 'spin'), contract, testKey(0), 10_000_000n);
  const txMs = performance.now() - t0;
  assert.is(receipt.status, '0x0');
  assert.is(BigInt(receipt.gasUsed), 10_000_000n, 'out of gas consumes all the gas');
  const t1 = performance.now();
  const res = await node.raw('eth_call', [{ to: contract, data: bytesToHex(encodeWasmCall(abi, 'spin')) }, 'latest']);
  const callMs = performance.now() - t1;
  assert.match(res.error!.message, /out of gas/);
  const during = await poll.stop();
  const bound = await paced(1000, pace);
  assert.ok(txMs < bound, `the transaction took ${txMs.toFixed(0)} ms (bound ${bound.toFixed(0)} ms at this machine's pace)`);
  assert.ok(callMs < bound, `eth_call at the 50M gas cap took ${callMs.toFixed(0)} ms (bound ${bound.toFixed(0)} ms)`);
  await assertAnswered(node, during, 'while the loops ran', 1000, pace);
});

maybe('prints go to the node\'s debug log (module wasm), naming the contract', async () => {
  await query('say', ['a line from the contract']);
  const lines = logLines.filter((l) => l.includes('a line from the contract') || l.includes('wasm: -5 '));
  assert.is(lines.length, 2, logLines.join('\n'));
  assert.ok(lines.every((l) => l.includes('wasm') && l.toLowerCase().includes(contract.toLowerCase().slice(2))), lines.join('\n'));
});

maybe('a function not in the ABI, or with the wrong arguments, fails with the reason and stores nothing', async () => {
  const res = await node.raw('eth_call', [{ to: contract, data: bytesToHex(encodeCall('nope', [])) }, 'latest']);
  assert.match(res.error!.message, /ABI has no function "nope"/);
  const short = await node.raw('eth_call', [{ to: contract, data: bytesToHex(encodeCall('neg32', [new Uint8Array(2)])) }, 'latest']);
  assert.match(short.error!.message, /neg32: argument 1 \(v\): a int32 argument must be 4 byte\(s\), got 2/);
  const receipt = await sendRaw(encodeCall('nope', []), contract);
  assert.is(receipt.status, '0x0');
  // txType 0 is a transfer: RLP([0]) alone succeeds, and a named function does not run
  assert.is((await sendRaw(RLP.encode([new Uint8Array(8)]), contract)).status, '0x1');
  assert.is(await node.rpc('eth_call', [{ to: contract, data: bytesToHex(encodeWasmCall(abi, 'greet', ['x'], 0n)) }, 'latest']), '0x');
});

maybe('malformed deploy data: status 0 with the reason, no code stored', async () => {
  // a module that does not compile (valid magic, garbage after)
  const bad = encodeWasmDeploy(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0xff, 0xff]), abiJson);
  const res = await node.raw('eth_estimateGas', [{ from: testAddress(0), data: bytesToHex(bad) }]);
  assert.match(res.error!.message, /wasm contract refused: /);
  const receipt = await sendRaw(bad, null);
  assert.is(receipt.status, '0x0');
  assert.is(await node.rpc('eth_getCode', [receipt.contractAddress ?? '0x' + '00'.repeat(20), 'latest']), '0x');
  // a broken ABI is refused too
  const badAbi = RLP.encode([new Uint8Array(8), wasm, new TextEncoder().encode('{not json')]);
  const r2 = await node.raw('eth_estimateGas', [{ from: testAddress(0), data: bytesToHex(badAbi) }]);
  assert.match(r2.error!.message, /ABI is not JSON/);
});

maybe('host functions charge the lengths a contract chooses: memset by the word, a long state value by the slot', async () => {
  const gas = async (fn: string, args: WasmValue[]) => BigInt(await node.rpc('eth_estimateGas', [{ from: testAddress(1), to: contract, data: bytesToHex(encodeWasmCall(abi, fn, args)) }]));
  // ten more memsets of 1,000 words: 10 × (125 flat + 3 × 1,000) and the loop's few instructions
  const moreFills = (await gas('fill', [32_000n, 11n])) - (await gas('fill', [32_000n, 1n]));
  assert.ok(moreFills >= 31_250n && moreFills < 33_000n, `ten memsets of 32,000 bytes cost ${moreFills} gas`);
  // a 320-byte value takes 10 slots beyond its head (20,000 each); a 31-byte one only its head
  const longer = (await gas('put', ['k', 'x'.repeat(320)])) - (await gas('put', ['k', 'x'.repeat(31)]));
  assert.ok(longer >= 200_000n && longer < 260_000n, `the longer value costs ${longer} more gas`);
});

maybe('eth_estimateGas answers for a wasm deploy and call; the estimate is enough', async () => {
  const deployGas = BigInt(await node.rpc('eth_estimateGas', [{ from: testAddress(1), data: bytesToHex(encodeWasmDeploy(wasm, abiJson)) }]));
  assert.ok(deployGas > 21_000n);
  const callGas = BigInt(await node.rpc('eth_estimateGas', [{ from: testAddress(1), to: contract, data: bytesToHex(encodeWasmCall(abi, 'setCounter', [5n])) }]));
  const receipt = await sendRaw(encodeWasmCall(abi, 'setCounter', [5n]), contract, testKey(1), callGas);
  assert.is(receipt.status, '0x1');
  assert.is(BigInt(receipt.gasUsed), callGas);
});

maybe('a 60 KB deploy, past EIP-170\'s 24 KiB and EIP-3860\'s 48 KiB, is stored at Venachain\'s 20 gas a byte; EVM initcode keeps the 48 KiB limit', async () => {
  // the module padded with a custom section
  const pad = new Uint8Array(60_000).fill(1);
  const section = new Uint8Array([0x00, ...leb128(pad.length + 4), 3, 0x70, 0x61, 0x64, ...pad]);
  const big = encodeWasmDeploy(new Uint8Array([...wasm, ...section]), abiJson);
  const receipt = await sendRaw(big, null, testKey(2), 10_000_000n);
  assert.is(receipt.status, '0x1');
  assert.is((await node.rpc('eth_getCode', [receipt.contractAddress, 'latest'])).length, 2 + big.length * 2);
  assert.ok(BigInt(receipt.gasUsed) < BigInt(big.length) * 200n, `gas used ${BigInt(receipt.gasUsed)} is below @ethereumjs' 200 a byte`);
  // eth_simulateV1 applies the same rules: the wasm deploy runs, the EVM initcode is refused
  const [simulated] = await node.rpc('eth_simulateV1', [{ blockStateCalls: [{ calls: [{ from: testAddress(2), data: bytesToHex(big) }] }] }, 'latest']);
  assert.is(simulated.calls[0].status, '0x1', JSON.stringify(simulated.calls[0].error));
  const tooBig = await node.raw('eth_simulateV1', [{ blockStateCalls: [{ calls: [{ from: testAddress(2), data: bytesToHex(pad) }] }] }, 'latest']);
  assert.match(tooBig.error!.message, /max initcode size exceeded: 60000 > 49152/);
  const wallet = new Wallet(testKey(2));
  const nonce = await node.rpc('eth_getTransactionCount', [wallet.address, 'pending']);
  const evmCreate = await wallet.signTransaction(Transaction.from({ to: null, data: bytesToHex(pad), gasLimit: 10_000_000n, gasPrice: 0n, chainId: 300n, nonce: Number(nonce) }));
  const refused = await node.raw('eth_sendRawTransaction', [evmCreate]);
  assert.match(refused.error!.message, /initcode size of this transaction is too large: it is 60000 while the max is 49152/);
  // the node signing the same deploy (eth_sendTransaction answered -32603 "initcode size … too large"
  // while eth_estimateGas answered a figure): both take it; both refuse the EVM initcode, -32000 with the reason
  const signer = await node.rpc('personal_newAccount', ['pw']); // gas is free here: no balance needed
  await node.rpc('personal_unlockAccount', [signer, 'pw', 60]);
  const estimate = await node.rpc('eth_estimateGas', [{ from: signer, data: bytesToHex(big) }]);
  const sent = await mined(node, await node.rpc('eth_sendTransaction', [{ from: signer, data: bytesToHex(big), gas: estimate }]));
  assert.is(sent.status, '0x1');
  assert.is(sent.gasUsed, estimate);
  const evmEstimate = await node.raw('eth_estimateGas', [{ from: signer, data: bytesToHex(pad) }]);
  const evmSend = await node.raw('eth_sendTransaction', [{ from: signer, data: bytesToHex(pad), gas: '0x989680' }]);
  for (const r of [evmEstimate, evmSend]) {
    assert.is(r.error?.code, -32000, JSON.stringify(r));
    assert.match(r.error!.message, /initcode size .*60000.*49152/);
  }
});

const BCTOKEN = '/work/vena/src/cmd/ptransfer/contracts';
(existsSync(BCTOKEN) ? test : test.skip)("Venachain's BcToken.wasm (BCWasm C++) deploys unchanged and keeps balances", async () => {
  const tokenAbi = readFileSync(`${BCTOKEN}/BcToken.cpp.abi.json`, 'utf8');
  const receipt = await sendRaw(encodeWasmDeploy(new Uint8Array(readFileSync(`${BCTOKEN}/BcToken.wasm`)), tokenAbi), null, testKey(3), 10_000_000n);
  assert.is(receipt.status, '0x1', 'deployed');
  const token = receipt.contractAddress;
  const parsed = parseWasmAbi(tokenAbi);
  const call = async (fn: string, args: WasmValue[]) => {
    const r = await node.rpc('eth_call', [{ to: token, data: bytesToHex(encodeWasmCall(parsed, fn, args)) }, 'latest']);
    return decodeWasmReturn(parsed.find((e) => e.name === fn)!.outputs[0]!.type, 2n, hexToBytes(r));
  };
  const owner = testAddress(3).toLowerCase();
  const other = testAddress(2).toLowerCase();
  assert.is(await call('getBalance', [owner]), 4294967295n, 'init() credited the deployer');
  const sent = await sendRaw(encodeWasmCall(parsed, 'transfer', [100n, owner, other]), token, testKey(3));
  assert.is(sent.status, '0x1');
  assert.is(await call('getBalance', [other]), 100n);
  assert.is(await call('getBalance', [owner]), 4294967195n);
  assert.is(await call('checkBalance', [other, 50n]), 0n, 'SUCCESS');
  const registered = await sendRaw(encodeWasmCall(parsed, 'userregister', [5n]), token, testKey(1));
  assert.is(registered.logs.length, 1, 'the Register event');
  assert.equal(registered.logs[0].topics, [bytesToHex(keccak_256(new TextEncoder().encode('Register')))]);
});

(haveClang ? test : test.skip)('interpreter "wasm": an EVM deploy is refused with the reason; wasm runs', async () => {
  const genesis = testGenesis(NODE_KEY) as { config: Record<string, unknown> };
  const wasmNode = await startTestNode({ genesis: { ...genesis, config: { ...genesis.config, interpreter: 'wasm' } } });
  try {
    const estimate = await wasmNode.raw('eth_estimateGas', [{ from: testAddress(0), data: '0x600a600c600039600a6000f3602a60005260206000f3' }]);
    assert.match(estimate.error!.message, /EVM contracts do not run on this chain \(genesis config.interpreter is "wasm": wasm only\)/);
    assert.ok(BigInt(await wasmNode.rpc('eth_estimateGas', [{ from: testAddress(0), data: bytesToHex(encodeWasmDeploy(wasm, abiJson)) }])) > 21_000n);
  } finally {
    await wasmNode.stop();
  }
});

test('interpreter "evm": a wasm deploy is refused with the reason, nothing stored; EVM code still runs', async () => {
  const wasmOnly = haveClang ? compileC('storage') : { wasm: new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), abi: '[]' };
  const genesis = testGenesis(NODE_KEY) as { config: Record<string, unknown> };
  const evmNode = await startTestNode({ genesis: { ...genesis, config: { ...genesis.config, interpreter: 'evm' } } });
  try {
    const data = bytesToHex(encodeWasmDeploy(wasmOnly.wasm, wasmOnly.abi));
    const estimate = await evmNode.raw('eth_estimateGas', [{ from: testAddress(0), data }]);
    assert.match(estimate.error!.message, /wasm contracts do not run on this chain \(genesis config.interpreter is "evm"\)/);
    const wallet = new Wallet(testKey(0));
    const raw = await wallet.signTransaction(Transaction.from({ to: null, data, gasLimit: 3_000_000n, gasPrice: 0n, chainId: 300n, nonce: 0 }));
    const receipt = await mined(evmNode, await evmNode.rpc('eth_sendRawTransaction', [raw]));
    assert.is(receipt.status, '0x0');
    assert.is(await evmNode.rpc('eth_getCode', [receipt.contractAddress, 'latest']), '0x');
    // EVM code: PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN as the runtime of a tiny constructor
    const evm = await wallet.signTransaction(Transaction.from({ to: null, data: '0x600a600c600039600a6000f3602a60005260206000f3', gasLimit: 100_000n, gasPrice: 0n, chainId: 300n, nonce: 1 }));
    const deployed = await mined(evmNode, await evmNode.rpc('eth_sendRawTransaction', [evm]));
    assert.is(deployed.status, '0x1');
    assert.is(BigInt(await evmNode.rpc('eth_call', [{ to: deployed.contractAddress }, 'latest'])), 42n);
  } finally {
    await evmNode.stop();
  }
});

maybe('a fresh datadir importing this chain re-executes every wasm transaction to the same receipts and state roots', async () => {
  const file = join(node.dir, 'chain.rlp');
  const fresh = mkdtempSync(join(tmpdir(), 'chain-node-wasm-import-'));
  try {
    let output = '';
    const collect = (line: string) => (output += line + '\n');
    assert.is(await runExportCommand([file, '--datadir', node.dir], collect, collect), 0, output);
    assert.is(await runImportCommand([file, '--datadir', fresh, '--genesis', join(node.dir, 'test-genesis.json')], collect, collect), 0, output);
    const latest = await node.rpc('eth_getBlockByNumber', ['latest', false]);
    assert.match(output, new RegExp(`head #${Number(latest.number)} ${latest.hash}`));
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
});

function leb128(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

test.run();
