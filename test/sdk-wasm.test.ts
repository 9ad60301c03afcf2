// The client SDK's wasm-contract helpers on their own (pure): deploy data and calls encoded from an
// ABI read back by the codec's own decoders, answers decoded for each txType, events read from
// logs, run-time errors naming the function and argument, and compile-time checks of a literal ABI.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RLP } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { wasmContract, WasmAbiError, TX_TYPE_RAW_RETURN, type WasmResult } from '../generated/client/index.ts';
import { decodeWasmArg, decodeWasmDeploy, encodeWasmReturn, WASM_MAGIC, TX_TYPE_SOL_COMPATIBLE_WASM } from '../src/codec/wasm-abi.ts';
import { decodeCall } from '../src/codec/venachain-call.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

const ABI = [
  { name: 'transfer', inputs: [{ name: 'to', type: 'string' }, { name: 'amount', type: 'uint64' }], outputs: [{ name: '', type: 'bool' }], constant: 'false', type: 'function' },
  { name: 'balanceOf', inputs: [{ name: 'owner', type: 'string' }], outputs: [{ name: '', type: 'uint64' }], constant: 'true', type: 'function' },
  { name: 'name', inputs: [], outputs: [{ name: '', type: 'string' }], constant: 'true', type: 'function' },
  { name: 'widths', inputs: [{ name: 'a', type: 'int8' }, { name: 'b', type: 'int16' }, { name: 'c', type: 'int32' }, { name: 'd', type: 'int64' }, { name: 'e', type: 'float64' }, { name: 'f', type: 'bool' }], outputs: [], constant: 'false', type: 'function' },
  { name: 'Transfer', inputs: [{ name: 'from', type: 'string' }, { name: 'to', type: 'string' }, { name: 'amount', type: 'uint64' }], outputs: [], constant: 'false', type: 'event' },
  { name: 'Delta', inputs: [{ name: 'by', type: 'int32' }, { name: 'ok', type: 'bool' }], outputs: [], constant: 'false', type: 'event' },
  { name: 'Rate', inputs: [{ name: 'r', type: 'float64' }], outputs: [], constant: 'false', type: 'event' },
] as const;
const token = wasmContract(ABI);
const TO = '0x' + 'cd'.repeat(20);

test('deploy data: RLP([txType, wasm, ABI]) the codec reads back', () => {
  const wasm = new Uint8Array([...WASM_MAGIC, 0x00]);
  const deployed = decodeWasmDeploy(hexToBytes(token.encodeDeploy(wasm)));
  assert.is(deployed.txType, 0n);
  assert.equal(deployed.wasm, wasm);
  assert.equal(JSON.parse(new TextDecoder().decode(deployed.abiJson)), ABI);
  // from ABI JSON text as a build writes it: the same data
  assert.is(wasmContract(JSON.stringify(ABI)).encodeDeploy(wasm), token.encodeDeploy(wasm));
  assert.throws(() => token.encodeDeploy(new Uint8Array([1, 2, 3])), /not a wasm module/);
});

test('calls: each argument at its ABI width, read back by the codec', () => {
  const call = token.call('transfer', TO, 10n);
  assert.equal([call.method, call.returns, call.txType], ['transfer', 'bool', 2n]);
  const decoded = decodeCall(hexToBytes(call.data));
  assert.equal([decoded.txType, decoded.funcName], [2n, 'transfer']);
  assert.equal([decodeWasmArg('string', decoded.args[0]!), decodeWasmArg('uint64', decoded.args[1]!)], [TO, 10n]);
  assert.is(bytesToHex(decoded.args[1]!), '0x000000000000000a');
  const widths = decodeCall(hexToBytes(token.encodeCall('widths', [-1, -2n, 3, -(2n ** 63n), 1.5, true])));
  assert.equal(widths.args.map((a) => a.length), [1, 2, 4, 8, 8, 1]);
  assert.equal(
    ABI[3].inputs.map((p, i) => decodeWasmArg(p.type, widths.args[i]!)),
    [-1n, -2n, 3n, -(2n ** 63n), 1.5, true],
  );
  // a txType of the caller's choosing
  assert.is(decodeCall(hexToBytes(token.encodeCall('balanceOf', [TO], TX_TYPE_RAW_RETURN))).txType, 9n);
});

test('results: decoded by the function’s return type as each txType encodes them', () => {
  for (const txType of [2n, TX_TYPE_RAW_RETURN, TX_TYPE_SOL_COMPATIBLE_WASM]) {
    assert.is(token.decodeResult('balanceOf', encodeWasmReturn('uint64', txType, 2n ** 64n - 1n), txType), 2n ** 64n - 1n, `uint64, txType ${txType}`);
    assert.is(token.decodeResult('name', bytesToHex(encodeWasmReturn('string', txType, new TextEncoder().encode('Token ✓'))), txType), 'Token ✓', `string, txType ${txType}`);
    assert.is(token.decodeResult('transfer', encodeWasmReturn('bool', txType, 1n), txType), true, `bool, txType ${txType}`);
  }
  assert.is(token.decodeResult('widths', '0x'), undefined);
  assert.throws(() => token.decodeResult('balanceOf', '0x01'), /a uint64 return must be 32 bytes, got 1/);
});

test('events: a log with keccak256(name) and RLP data is read by the ABI; any other log is not', () => {
  const topic = bytesToHex(keccak_256(new TextEncoder().encode('Transfer')));
  const data = bytesToHex(RLP.encode([new TextEncoder().encode('0x' + 'ab'.repeat(20)), new TextEncoder().encode(TO), 1000n]));
  assert.equal(token.decodeEvent({ topics: [topic], data }), {
    name: 'Transfer',
    values: ['0x' + 'ab'.repeat(20), TO, 1000n],
    args: { from: '0x' + 'ab'.repeat(20), to: TO, amount: 1000n },
  });
  // negative integers travel as 8 bytes two's complement (the AssemblyScript SDK's RlpList)
  const delta = bytesToHex(keccak_256(new TextEncoder().encode('Delta')));
  assert.equal(token.decodeEvent({ topics: [delta], data: bytesToHex(RLP.encode([hexToBytes('0xfffffffffffffffd'), 1n])) })?.args, { by: -3n, ok: true });
  assert.is(token.decodeEvent({ topics: [bytesToHex(keccak_256(new TextEncoder().encode('Other')))], data }), undefined, 'not an event of the ABI');
  assert.is(token.decodeEvent({ topics: [topic], data: '0x01' }), undefined, 'not RLP of its arguments');
  assert.is(token.decodeEvent({ topics: [topic, topic], data }), undefined, 'Venachain logs one topic');
  const rate = bytesToHex(keccak_256(new TextEncoder().encode('Rate')));
  const bits = new Uint8Array(8);
  new DataView(bits.buffer).setFloat64(0, -1.25);
  assert.equal(token.decodeEvent({ topics: [rate], data: bytesToHex(RLP.encode([bits])) })?.values, [-1.25]);
  assert.is(token.decodeEvent({ topics: [rate], data: bytesToHex(RLP.encode([bits.subarray(0, 3)])) }), undefined, 'a float64 of 3 bytes');
});

test('bad calls are refused before they are sent, naming the function and argument', () => {
  const untyped = wasmContract(JSON.stringify(ABI));
  assert.throws(() => untyped.encodeCall('mint', []), (e: Error) => e instanceof WasmAbiError && /the ABI has no function "mint"/.test(e.message));
  assert.throws(() => untyped.call('Delta', 1n, true), /no function "Delta"/, 'an event is not callable');
  // Venachain matches names without case: the event Transfer's name calls the function transfer
  assert.is(untyped.call('TRANSFER', TO, 1n).data, token.call('transfer', TO, 1n).data);
  assert.throws(() => untyped.encodeCall('transfer', [TO]), /transfer takes 2 argument\(s\), got 1/);
  assert.throws(() => untyped.encodeCall('transfer', [TO, -1n]), /transfer: argument 2 \(amount\): -1 is out of range for uint64/);
  assert.throws(() => untyped.encodeCall('transfer', [10n, 10n]), /argument 1 \(to\): a string argument must be a string/);
  assert.throws(() => untyped.encodeCall('transfer', ['a\0b', 1n]), /cannot contain NUL/);
  assert.throws(() => untyped.decodeResult('mint', '0x'), /no function "mint"/);
  assert.throws(() => wasmContract('[{"name":"f","type":"function","inputs":[{"name":"x","type":"map"}]}]'), /"map", which no call can carry/);
});

// Compiled by `tsc --noEmit -p .`, never run: each marked line must be a type error.
export function typeChecks(): void {
  // @ts-expect-error an unknown function
  token.call('mint', 1n);
  // @ts-expect-error an event is not callable
  token.call('Transfer', 'a', 'b', 1n);
  // @ts-expect-error a missing argument
  token.call('transfer', TO);
  // @ts-expect-error a number where a string goes
  token.call('balanceOf', 5n);
  // @ts-expect-error a string where an integer goes
  token.encodeCall('transfer', [TO, '10']);
  // results typed by the function's output
  const balance = (r: WasmResult<typeof ABI, 'balanceOf'>): bigint => r;
  const name = (r: WasmResult<typeof ABI, 'name'>): string => r;
  const ok = (r: WasmResult<typeof ABI, 'transfer'>): boolean => r;
  const none = (r: WasmResult<typeof ABI, 'widths'>): undefined => r;
  // @ts-expect-error a balance is not text
  const notText = (r: WasmResult<typeof ABI, 'balanceOf'>): string => r;
  // an ABI read from JSON text: any name and values, checked at run time
  wasmContract('[]').call('anything', 1n, 'x');
  void [balance, name, ok, none, notText];
}

test.run();
