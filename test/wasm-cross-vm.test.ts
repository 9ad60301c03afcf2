// Calls between the wasm VM and the EVM through a real node's JSON-RPC: a C contract
// (test/wasm/contracts/xvm.c, compiled here with clang; skipped cleanly without it) calls a
// Solidity contract, another wasm contract and the system contracts with bcwasmCall*,
// bcwasmDelegateCall* and callTransfer; the Solidity contract calls the wasm one in Venachain's
// JSON form. int64 and string answers both ways, a failing inner call (the caller carries on, the
// callee's writes are undone), value moved by callTransfer, sha3 and ecrecover.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Interface, SigningKey, Transaction, Wallet, keccak256, toUtf8Bytes } from 'ethers';
import { RLP } from '@ethereumjs/rlp';
import { decodeWasmReturn, encodeWasmCall, encodeWasmDeploy, parseWasmAbi, TX_TYPE_RAW_RETURN, type WasmAbi, type WasmValue } from '../src/codec/wasm-abi.ts';
import { beBytes, CallCodecError, decodeReturn, encodeCall, encodeArg } from '../src/codec/venachain-call.ts';
import { int64FromReturn, solidityCallFromWasm, stringFromReturn, wasmCallFromSolidity } from '../src/codec/wasm-solidity.ts';
import { NODE_MANAGEMENT, PARAMETER_MANAGEMENT } from '../src/exec/native/system-state.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import { mined, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { clangAvailable, compileC } from './helpers/wasm-c.ts';
import { compile } from './helpers/solc.ts';

const SOLIDITY = `
pragma solidity ^0.8.20;
contract Target {
    int64 public stored;
    event Stored(int64 v);
    function getInt(int64 x) external pure returns (int64) { return x * 2; }
    function getNeg() external pure returns (int64) { return -5; }
    function getString(string calldata s) external pure returns (string memory) { return string.concat("sol:", s); }
    function store(int64 v) external { stored = v; emit Stored(v); }
    function storeAndFail(int64 v) external { stored = v; revert("refused"); }
    uint256 public sink;
    function burn(uint256 n) external { uint256 acc; for (uint256 i; i < n; i++) acc += i; sink = acc; }
    receive() external payable {}
    // calls into a wasm contract in Venachain's JSON form
    function callWasm(address w, bytes calldata json) external returns (bool ok, bytes memory ret) { (ok, ret) = w.call(json); }
    function staticWasm(address w, bytes calldata json) external view returns (bool ok) { (ok, ) = w.staticcall(json); }
    function wasmInt64(address w, bytes calldata json) external returns (int64) {
        (bool ok, bytes memory ret) = w.call(json);
        require(ok, "wasm call failed");
        return abi.decode(ret, (int64));
    }
    function wasmString(address w, bytes calldata json) external returns (string memory) {
        (bool ok, bytes memory ret) = w.call(json);
        require(ok, "wasm call failed");
        return string(ret);
    }
}`;

const haveClang = clangAvailable();
let node: TestNode;
let abi: WasmAbi;
let a: string; // the wasm contract that calls out
let b: string; // a second one, called by the first
let target: string; // the Solidity contract
let sol: Interface;
const utf8 = new TextEncoder();

async function sendRaw(data: Uint8Array | string, to: string | null, value = 0n, gasLimit = 8_000_000n): Promise<any> {
  const wallet = new Wallet(testKey(0));
  const [nonce, chainId] = await Promise.all([node.rpc('eth_getTransactionCount', [wallet.address, 'pending']), node.rpc('eth_chainId')]);
  const raw = await wallet.signTransaction(
    Transaction.from({ to, data: typeof data === 'string' ? data : bytesToHex(data), value, gasLimit, gasPrice: 0n, chainId: BigInt(chainId), nonce: Number(nonce) }),
  );
  return mined(node, await node.rpc('eth_sendRawTransaction', [raw]));
}

/** eth_call of the wasm contract `to`, the answer decoded by the ABI */
async function query(to: string, fn: string, args: WasmValue[] = []): Promise<WasmValue | undefined> {
  const result = await node.rpc('eth_call', [{ from: testAddress(0), to, data: bytesToHex(encodeWasmCall(abi, fn, args)) }, 'latest']);
  return decodeWasmReturn(abi.find((e) => e.name === fn)!.outputs[0]?.type ?? 'void', 2n, hexToBytes(result));
}

/** eth_call of the Solidity contract */
async function solCall(fn: string, args: unknown[]): Promise<any> {
  const result = await node.rpc('eth_call', [{ from: testAddress(0), to: target, data: sol.encodeFunctionData(fn, args) }, 'latest']);
  return sol.decodeFunctionResult(fn, result);
}

/** What a wasm contract passes bcwasmCall*: RLP([txType, funcName, arg…]), as hex text for xvm.c */
function params(funcName: string, args: (string | Uint8Array)[] = [], txType = 2n): string {
  return bytesToHex(RLP.encode([beBytes(txType, 8), utf8.encode(funcName), ...args.map((x) => (typeof x === 'string' ? utf8.encode(x) : x))]));
}

/** Venachain's JSON form of a call into a wasm contract */
function json(funcName: string, funcParams: string[] = []): Uint8Array {
  return utf8.encode(JSON.stringify({ func_name: funcName, func_params: funcParams }));
}

test.before(async () => {
  if (!haveClang) return;
  const c = compileC('xvm');
  abi = parseWasmAbi(c.abi);
  node = await startTestNode();
  const deploy = encodeWasmDeploy(c.wasm, c.abi);
  const compiled = compile(SOLIDITY).Target!;
  sol = new Interface(compiled.abi);
  const [ra, rb, rt] = [await sendRaw(deploy, null), await sendRaw(deploy, null), await sendRaw(compiled.bytecode, null)];
  for (const r of [ra, rb, rt]) assert.is(r.status, '0x1', 'deployed');
  [a, b, target] = [ra.contractAddress, rb.contractAddress, rt.contractAddress];
});
test.after(async () => {
  await node?.stop();
});

const maybe = haveClang ? test : test.skip;

maybe('wasm → Solidity: "type(value)" params become the ABI call; int64 and string answers', async () => {
  assert.is(await query(a, 'callInt64', [target, params('getInt', ['int64(21)'])]), 42n);
  assert.is(await query(a, 'callInt64', [target, params('getNeg')]), -5n, 'a negative int64 (the word sign-extended)');
  assert.is(await query(a, 'callString', [target, params('getString', ['string(abc)'])]), 'sol:abc');
});

maybe("wasm → Solidity in a transaction: the callee's write and event land; a failing callee is undone and the caller carries on", async () => {
  const ok = await sendRaw(encodeWasmCall(abi, 'callVoid', [target, params('store', ['int64(9)'])]), a);
  assert.is(ok.status, '0x1');
  assert.is((await solCall('stored', []))[0], 9n);
  assert.is(ok.logs.length, 1, "the Solidity contract's event is in the receipt");
  assert.is(ok.logs[0].address.toLowerCase(), target.toLowerCase());
  assert.is(ok.logs[0].topics[0], sol.getEvent('Stored')!.topicHash);

  assert.is((await sendRaw(encodeWasmCall(abi, 'callThenStore', [target, params('getInt', ['int64(4)'])]), a)).status, '0x1');
  assert.is(await query(a, 'last'), 8n);
  const failing = await sendRaw(encodeWasmCall(abi, 'callThenStore', [target, params('storeAndFail', ['int64(77)'])]), a);
  assert.is(failing.status, '0x1', 'the wasm caller succeeds');
  assert.is(await query(a, 'last'), 0n, 'it read 0 from the failed call and stored it');
  assert.is((await solCall('stored', []))[0], 9n, "the failed callee's write is undone");
  assert.is(failing.logs.length, 0);
  assert.is(await query(a, 'callString', [target, params('storeAndFail', ['int64(1)'])]), '(null)', 'bcwasmCallString answers a null pointer');
  // params the Solidity side cannot take: the call fails, the caller reads 0
  assert.is(await query(a, 'callInt64', [target, params('getInt', ['int64(not a number)'])]), 0n);
  assert.is(await query(a, 'callInt64', [target, params('getInt', ['bytes32(0x00)'])]), 0n);
});

maybe("the callee's gas is the caller's: charged to the transaction; a callee out of gas leaves the caller 1/64 (EIP-150) to carry on", async () => {
  const estimate = BigInt(await node.rpc('eth_estimateGas', [{ from: testAddress(0), to: a, data: bytesToHex(encodeWasmCall(abi, 'callVoid', [target, params('burn', ['uint256(10)'])])) }]));
  const few = await sendRaw(encodeWasmCall(abi, 'callVoid', [target, params('burn', ['uint256(10)'])]), a);
  const many = await sendRaw(encodeWasmCall(abi, 'callVoid', [target, params('burn', ['uint256(1000)'])]), a);
  assert.is(few.status, '0x1');
  assert.is(many.status, '0x1');
  assert.ok(estimate >= BigInt(few.gasUsed), `eth_estimateGas (${estimate}) covers the call (${BigInt(few.gasUsed)})`);
  const extra = BigInt(many.gasUsed) - BigInt(few.gasUsed);
  assert.ok(extra > 40_000n && extra < 200_000n, `990 more loop turns in the callee cost the transaction ${extra} gas`);

  await sendRaw(encodeWasmCall(abi, 'callThenStore', [target, params('getInt', ['int64(4)'])]), a);
  assert.is(await query(a, 'last'), 8n);
  const endless = await sendRaw(encodeWasmCall(abi, 'callThenStore', [target, params('burn', ['uint256(1000000000)'])]), a, 0n, 3_000_000n);
  assert.is(endless.status, '0x1', 'the caller carries on after its callee ran out of gas');
  assert.is(await query(a, 'last'), 0n);
  assert.ok(BigInt(endless.gasUsed) > (3_000_000n * 63n) / 64n - 50_000n, `the callee burned its share: ${BigInt(endless.gasUsed)} of 3,000,000`);
});

maybe('Solidity → wasm: the JSON form becomes the wasm call; int64 as one word, strings raw; a failing wasm callee', async () => {
  assert.is((await solCall('wasmInt64', [a, json('twice', ['int64(-21)'])]))[0], -42n);
  assert.is((await solCall('wasmString', [a, json('echo', ['string(hi there)'])]))[0], 'hi there');
  const [okFail] = await solCall('callWasm', [a, json('fail')]);
  assert.is(okFail, false, 'abort() in the wasm callee fails the inner call');
  const [okBad] = await solCall('callWasm', [a, utf8.encode('not json')]);
  assert.is(okBad, false, 'call data that is not the JSON form fails');
  const [okMissing] = await solCall('callWasm', [a, json('nope')]);
  assert.is(okMissing, false, 'a function not in the ABI fails');
});

maybe("wasm → wasm: raw (txType 9) and word (txType 2) int64 answers, strings; a delegate call runs on the caller's storage", async () => {
  assert.is(await query(a, 'callInt64', [b, params('twice', [beBytes(-8n, 8)], TX_TYPE_RAW_RETURN)]), -16n);
  assert.is(await query(a, 'callInt64', [b, params('twice', [beBytes(8n, 8)])]), 16n);
  assert.is(await query(a, 'callString', [b, params('echo', ['over there'])]), 'over there', 'an ABI-encoded string answer is read as its text');
  assert.is(await query(a, 'callString', [b, params('echo', ['raw'], TX_TYPE_RAW_RETURN)]), 'raw');

  const receipt = await sendRaw(encodeWasmCall(abi, 'delegateInt64', [b, params('bump')]), a);
  assert.is(receipt.status, '0x1');
  assert.is(await query(a, 'count'), 1n, "b's code counted in a's storage");
  assert.is(await query(b, 'count'), 0n, "b's own storage is untouched");
  await sendRaw(encodeWasmCall(abi, 'callVoid', [b, params('bump')]), a);
  assert.is(await query(b, 'count'), 1n, 'a plain call counts in the callee');
  assert.is(await query(a, 'delegateString', [b, params('echo', ['by delegate'])]), 'by delegate');
  // the callee sees the caller's write before the call, and the caller reads the callee's after it
  assert.is(await query(a, 'presetThenDelegate', [b, params('bump'), 41n]), 42_042n);
  await sendRaw(encodeWasmCall(abi, 'presetThenDelegate', [b, params('bump'), 41n]), a);
  assert.is(await query(a, 'count'), 42n, "the callee's write stays: the caller's earlier write is not applied over it");
  // a contract calling itself 4 deep: each level reads the deepest write (0) after its call, and it stays
  const deep = await sendRaw(encodeWasmCall(abi, 'recurse', [4n]), b);
  assert.is(deep.status, '0x1');
  assert.is(await query(b, 'count'), 0n);
  assert.is(await query(b, 'recurse', [4n]), 4n, 'four levels answered, each seeing count 0 below it');
});

maybe('callTransfer moves value to an account and to a Solidity contract; more than the balance answers 1', async () => {
  // a wasm contract takes value with txType 0 (RLP([0]) alone)
  const fund = await sendRaw(RLP.encode([beBytes(0n, 8)]), a, 10_000n);
  assert.is(fund.status, '0x1');
  assert.is(BigInt(await node.rpc('eth_getBalance', [a, 'latest'])), 10_000n);
  const to = Wallet.createRandom().address;
  assert.is(await query(a, 'transfer', [to, 2_500n]), 0n, '0: done');
  const receipt = await sendRaw(encodeWasmCall(abi, 'transfer', [to, 2_500n]), a);
  assert.is(receipt.status, '0x1');
  assert.is(BigInt(await node.rpc('eth_getBalance', [to, 'latest'])), 2_500n);
  assert.is(await query(a, 'transfer', [target, 1_000n]), 0n, "a Solidity contract's receive() runs on the stipend");
  assert.is(await query(a, 'transfer', [to, 1_000_000n]), 1n, '1: more than the balance');
  assert.is((await sendRaw(encodeWasmCall(abi, 'transfer', [b, 500n]), a)).status, '0x1');
  assert.is(BigInt(await node.rpc('eth_getBalance', [b, 'latest'])), 500n, 'a wasm contract takes it in its transfer form');
  assert.is(BigInt(await node.rpc('eth_getBalance', [a, 'latest'])), 7_000n);
  // called by STATICCALL, the same transfer fails the wasm call
  const transferJson = json('transfer', [`string(${to})`, 'uint64(5)']);
  assert.is((await solCall('callWasm', [a, transferJson]))[0], true);
  assert.is((await solCall('staticWasm', [a, transferJson]))[0], false, 'no value moves in a static call');
});

maybe('a system contract read from wasm: ParameterManagement (int) and NodeManagement (string), as a direct call answers', async () => {
  const direct = (to: string, data: Uint8Array) => node.rpc('eth_call', [{ from: testAddress(0), to, data: bytesToHex(data) }, 'latest']);
  const gasLimit = decodeReturn(2n, 'int', hexToBytes(await direct(PARAMETER_MANAGEMENT, encodeCall('getTxGasLimit'))));
  assert.is(await query(a, 'callInt64', [PARAMETER_MANAGEMENT, params('getTxGasLimit')]), gasLimit);
  const nodes = decodeReturn(TX_TYPE_RAW_RETURN, 'string', hexToBytes(await direct(NODE_MANAGEMENT, encodeCall('getAllNodes', [], TX_TYPE_RAW_RETURN))));
  assert.ok((nodes as string).length > 0);
  assert.is(await query(a, 'callString', [NODE_MANAGEMENT, params('getAllNodes', [], TX_TYPE_RAW_RETURN)]), nodes);
  // a system contract call that fails (a name that is no integer parameter) reads 0
  assert.match((await node.raw('eth_call', [{ to: PARAMETER_MANAGEMENT, data: bytesToHex(encodeCall('getIntParam', [encodeArg('string', 'no such param')])) }, 'latest'])).error!.message, /not an integer parameter/);
  assert.is(await query(a, 'callInt64', [PARAMETER_MANAGEMENT, params('getIntParam', ['no such param'])]), 0n);
});

maybe('sha3 and ecrecover', async () => {
  assert.is(await query(a, 'keccak', ['hello']), keccak256(toUtf8Bytes('hello')).slice(2));
  const key = new SigningKey(testKey(1));
  const digest = keccak256(toUtf8Bytes('signed by test key 1'));
  const sig = key.sign(digest);
  const rsv = (v: number) => sig.r + sig.s.slice(2) + v.toString(16).padStart(2, '0');
  assert.is('0x' + (await query(a, 'recover', [digest, rsv(sig.v - 27)])), testAddress(1).toLowerCase());
  assert.is(await query(a, 'recover', [digest, rsv(sig.v)]), '0'.repeat(40), 'v = 27/28 is not a recovery id: nothing written');
});

test('the two call forms, byte for byte: JSON into wasm arguments, "type(value)" into the ABI call ethers encodes', () => {
  const fromJson = RLP.decode(wasmCallFromSolidity(json('f', ['int32(-2)', 'uint(4294967297)', 'int64(-3)', 'float32(1.5)', 'float64(-0.25)', 'bool(true)', 'uint8(5)', 'string(a(b))']))) as Uint8Array[];
  assert.equal(
    fromJson.map((x) => bytesToHex(x)),
    [bytesToHex(beBytes(14n, 8)), '0x66', '0xfffffffe', '0x00000001', '0xfffffffffffffffd', '0x3fc00000', '0xbfd0000000000000', '0x01', '0x35', bytesToHex(utf8.encode('b)'))],
  );
  for (const bad of [utf8.encode('[1]'), json(''), json('f', ['int64(1.5)']), json('f', ['uint64(18446744073709551615)']), json('f', ['bool(yes)']), json('f', ['novalue']), utf8.encode('{"func_name":"f","func_params":[1]}')]) {
    assert.throws(() => wasmCallFromSolidity(bad), (e: Error) => e instanceof CallCodecError, new TextDecoder().decode(bad));
  }

  const iface = new Interface(['function g(address a, bool b, string s, int8 i, uint256 u, int128 n, string t)']);
  const to = testAddress(2);
  const args = [to, true, 'héllo', -7, 2n ** 255n, -(2n ** 100n), ''];
  const fromWasm = solidityCallFromWasm(hexToBytes(params('g', [`address(${to})`, 'bool(true)', 'string(héllo)', 'int8(-7)', `uint256(${2n ** 255n})`, `int128(${-(2n ** 100n)})`, 'string()'])));
  assert.is(bytesToHex(fromWasm), iface.encodeFunctionData('g', args));
  for (const bad of ['int8(128)', 'uint8(-1)', 'uint24(1)', 'bytes32(0x00)', 'address(0xzz)', 'bool(1)']) {
    assert.throws(() => solidityCallFromWasm(hexToBytes(params('g', [bad]))), (e: Error) => e instanceof CallCodecError, bad);
  }

  // how bcwasmCallInt64 and bcwasmCallString read answers
  assert.is(int64FromReturn(beBytes(-5n, 32)), -5n);
  assert.is(int64FromReturn(beBytes(1n << 200n, 32)), 0n, 'a word beyond int64 reads 0');
  assert.is(int64FromReturn(beBytes(7n, 8)), 7n);
  assert.is(int64FromReturn(new Uint8Array(3)), 0n);
  const solidityString = hexToBytes(new Interface(['function h() returns (string)']).encodeFunctionResult('h', ['text']));
  assert.is(new TextDecoder().decode(stringFromReturn(solidityString)), 'text');
  assert.equal(stringFromReturn(utf8.encode('raw')), utf8.encode('raw'));
});

test.run();
