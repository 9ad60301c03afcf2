// wasm messages run once, on wasm threads whose host functions wait on the main thread: many inner
// calls cost time linear in their number, the receipt keeps events in the order of execution
// across an inner call, a deadline ends a long eth_call while the node answers, wasm nests through
// Solidity, and nesting stops at MAX_WASM_NESTING frames. Needs clang (skips without it).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Interface, Transaction, Wallet, keccak256, toUtf8Bytes } from 'ethers';
import { RLP } from '@ethereumjs/rlp';
import { decodeWasmReturn, encodeWasmCall, encodeWasmDeploy, parseWasmAbi, type WasmAbi, type WasmValue } from '../src/codec/wasm-abi.ts';
import { beBytes } from '../src/codec/venachain-call.ts';
import { MAX_WASM_NESTING } from '../src/exec/wasm/engine.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import { assertAnswered, mined, pollBlockNumber, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { clangAvailable, compileC } from './helpers/wasm-c.ts';
import { compile } from './helpers/solc.ts';
import { paced, slowdown } from './helpers/pace.ts';

// Relay: relays a call into a wasm contract in Venachain's JSON form, kept here (a "type(value)"
// argument cannot carry parentheses). Factory: creates a contract that self-destructs at once.
const SOLIDITY = `
pragma solidity ^0.8.20;
contract Child {
    function die() external { selfdestruct(payable(msg.sender)); }
}
contract Factory {
    address public last;
    function make() external { Child c = new Child(); c.die(); last = address(c); }
}
contract Relay {
    bytes json;
    function setJson(bytes calldata j) external { json = j; }
    function relay(address w) external returns (int64) {
        (bool ok, bytes memory ret) = w.call(json);
        require(ok, "wasm call failed");
        return abi.decode(ret, (int64));
    }
}`;

const haveClang = clangAvailable();
const maybe = haveClang ? test : test.skip;
const utf8 = new TextEncoder();
let node: TestNode;
let threads: { abi: WasmAbi; address: string };
let xvm: { abi: WasmAbi; a: string; b: string };
let relay: string;
let factory: { address: string; abi: Interface };

async function sendRaw(data: Uint8Array | string, to: string | null, gasLimit = 8_000_000n, on = node): Promise<any> {
  const wallet = new Wallet(testKey(0));
  const [nonce, chainId] = await Promise.all([on.rpc('eth_getTransactionCount', [wallet.address, 'pending']), on.rpc('eth_chainId')]);
  const raw = await wallet.signTransaction(
    Transaction.from({ to, data: typeof data === 'string' ? data : bytesToHex(data), gasLimit, gasPrice: 0n, chainId: BigInt(chainId), nonce: Number(nonce) }),
  );
  return mined(on, await on.rpc('eth_sendRawTransaction', [raw]));
}

async function deployC(name: string): Promise<{ abi: WasmAbi; address: string }> {
  const c = compileC(name);
  const r = await sendRaw(encodeWasmDeploy(c.wasm, c.abi), null);
  assert.is(r.status, '0x1', `${name} deployed`);
  return { abi: parseWasmAbi(c.abi), address: r.contractAddress };
}

async function query(abi: WasmAbi, to: string, fn: string, args: WasmValue[] = [], on = node): Promise<WasmValue | undefined> {
  const result = await on.rpc('eth_call', [{ from: testAddress(0), to, data: bytesToHex(encodeWasmCall(abi, fn, args)) }, 'latest']);
  return decodeWasmReturn(abi.find((e) => e.name === fn)!.outputs[0]?.type ?? 'void', 2n, hexToBytes(result));
}

/** RLP([txType 2, funcName, arg…]) as hex text, what xvm.c's callInt64 takes */
function params(funcName: string, args: (string | Uint8Array)[] = []): string {
  return bytesToHex(RLP.encode([beBytes(2n, 8), utf8.encode(funcName), ...args.map((x) => (typeof x === 'string' ? utf8.encode(x) : x))]));
}

test.before(async () => {
  if (!haveClang) return;
  // no deadline here (MAX_WASM_NESTING threads start from the TypeScript sources, ~0.5 s each): the deadline test has its own node
  node = await startTestNode({ config: { evmTimeoutMs: 0 } });
  threads = await deployC('threads');
  const x = compileC('xvm');
  const [ra, rb] = [await sendRaw(encodeWasmDeploy(x.wasm, x.abi), null), await sendRaw(encodeWasmDeploy(x.wasm, x.abi), null)];
  xvm = { abi: parseWasmAbi(x.abi), a: ra.contractAddress, b: rb.contractAddress };
  const sol = compile(SOLIDITY);
  const [rr, rf] = [await sendRaw(sol.Relay!.bytecode, null), await sendRaw(sol.Factory!.bytecode, null)];
  assert.is(rr.status, '0x1');
  assert.is(rf.status, '0x1');
  relay = rr.contractAddress;
  factory = { address: rf.contractAddress, abi: new Interface(sol.Factory!.abi) };
});
test.after(async () => {
  await node?.stop();
});

maybe('2,000 inner calls in one message: each runs once, in time linear in their number', async () => {
  const pace = await slowdown();
  const t0 = performance.now();
  assert.is(await query(threads.abi, threads.address, 'callMany', [2000n]), 2000n);
  const ms = performance.now() - t0;
  // the reruns this replaces took ~2.5 s for 1,500 calls (quadratic); one run takes ~0.1–0.2 s here
  const bound = await paced(1500, pace);
  assert.ok(ms < bound, `2,000 inner calls took ${ms.toFixed(0)} ms (bound ${bound.toFixed(0)} ms at this machine's pace)`);
  const receipt = await sendRaw(encodeWasmCall(threads.abi, 'callMany', [2000n]), threads.address, 10_000_000n);
  assert.is(receipt.status, '0x1');
});

maybe("the receipt keeps the order of execution: the caller's event, the callee's, the caller's", async () => {
  const receipt = await sendRaw(encodeWasmCall(threads.abi, 'emitCallEmit'), threads.address);
  assert.is(receipt.status, '0x1');
  const topic = (t: string) => keccak256(toUtf8Bytes(t));
  assert.equal(
    receipt.logs.map((l: { topics: string[] }) => l.topics[0]),
    [topic('before'), topic('child'), topic('after')],
  );
  assert.equal(
    receipt.logs.map((l: { logIndex: string }) => Number(l.logIndex)),
    [0, 1, 2],
  );
});

maybe('a deadline ends a long eth_call by ending its thread, while eth_blockNumber keeps answering', async () => {
  // eth_call may run far longer than the deadline by gas: the deadline must be what ends it
  const node = await startTestNode({ config: { gasCap: 10n ** 12n, evmTimeoutMs: 1000 } });
  try {
    await deadline(node);
  } finally {
    await node.stop();
  }
});

async function deadline(node: TestNode): Promise<void> {
  const c = compileC('storage');
  const storage = { abi: parseWasmAbi(c.abi), address: (await sendRaw(encodeWasmDeploy(c.wasm, c.abi), null, 8_000_000n, node)).contractAddress };
  const pace = await slowdown();
  const poll = pollBlockNumber(node);
  const t0 = performance.now();
  const call = { to: storage.address, data: bytesToHex(encodeWasmCall(storage.abi, 'spin')), gas: `0x${(10n ** 12n).toString(16)}` };
  const res = await node.raw('eth_call', [call, 'latest']);
  const ms = performance.now() - t0;
  const during = await poll.stop();
  assert.ok(res.error, 'the call fails');
  assert.match(res.error!.message, /execution aborted \(timeout = 1s\)/, `${res.error!.message} after ${ms.toFixed(0)} ms`);
  const bound = await paced(3000, pace);
  assert.ok(ms >= 900 && ms < bound, `the call ended after ${ms.toFixed(0)} ms (deadline 1,000 ms, bound ${bound.toFixed(0)} ms at this machine's pace)`);
  await assertAnswered(node, during, 'while the call ran', 500, pace);
  // the next call runs on a fresh thread
  assert.is(await query(storage.abi, storage.address, 'neg64', [5n], node), -5n);
}

maybe('wasm → Solidity → wasm → wasm: each wasm frame on its own thread, the answer back up', async () => {
  // b runs callInt64(a, twice(21)) when the relay calls it
  const json = JSON.stringify({ func_name: 'callInt64', func_params: [`string(${xvm.a})`, `string(${params('twice', [beBytes(21n, 8)])})`] });
  const setJson = new Interface(['function setJson(bytes)']).encodeFunctionData('setJson', [toUtf8Bytes(json)]);
  assert.is((await sendRaw(setJson, relay)).status, '0x1');
  assert.is(await query(xvm.abi, xvm.a, 'callInt64', [relay, params('relay', [`address(${xvm.b})`])]), 42n);
});

maybe('a contract created and self-destructed under a transaction a wasm contract started is removed', async () => {
  const r = await sendRaw(encodeWasmCall(xvm.abi, 'callVoid', [factory.address, params('make')]), xvm.a);
  assert.is(r.status, '0x1');
  const last = await node.rpc('eth_call', [{ to: factory.address, data: factory.abi.encodeFunctionData('last') }, 'latest']);
  const child = factory.abi.decodeFunctionResult('last', last)[0] as string;
  assert.is.not(child, '0x0000000000000000000000000000000000000000', 'the factory ran');
  assert.is(await node.rpc('eth_getCode', [child, 'latest']), '0x');
});

maybe("an inner call's string answer is placed by the contract's own malloc: its later allocations do not overwrite it", async () => {
  assert.is(await query(threads.abi, threads.address, 'answerThenAllocate'), 'hello');
});

maybe(`at most ${MAX_WASM_NESTING} wasm frames nest: the next inner call fails, the frames above carry on`, async () => {
  // recurse(n) calls itself n deep, each level writing n: 1 + below + 100 × the deepest write it sees.
  // MAX_WASM_NESTING frames run; the one below fails, so the deepest write seen is 1 and each level adds 101
  const levels = BigInt(MAX_WASM_NESTING);
  assert.is(await query(xvm.abi, xvm.a, 'recurse', [levels]), 101n * levels);
  assert.is(await query(xvm.abi, xvm.a, 'recurse', [levels - 1n]), levels - 1n, 'one fewer: every frame runs');
});

test.run();
