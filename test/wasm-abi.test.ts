// The wasm codec on its own (pure): ABI checks, deploy data and the wasm-code test, each argument
// type's bytes both ways, and return encodings by txType read back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RLP } from '@ethereumjs/rlp';
import {
  decodeWasmArg,
  decodeWasmDeploy,
  decodeWasmReturn,
  encodeWasmArg,
  encodeWasmCall,
  encodeWasmDeploy,
  encodeWasmReturn,
  isWasmCode,
  parseWasmAbi,
  TX_TYPE_RAW_RETURN,
  TX_TYPE_SOL_COMPATIBLE_WASM,
  WASM_MAGIC,
  WasmAbiError,
} from '../src/codec/wasm-abi.ts';
import { decodeCall } from '../src/codec/venachain-call.ts';
import { bytesToHex } from '../src/util/hex.ts';

const wasm = new Uint8Array([...WASM_MAGIC, 0x01, 0x04]);
const abi = JSON.stringify([
  { name: 'set', inputs: [{ name: 'v', type: 'int32' }, { name: 's', type: 'string' }], outputs: [], constant: 'false', type: 'function' },
  { name: 'get', inputs: [], outputs: [{ name: '', type: 'uint64' }], constant: 'true', type: 'function' },
  { name: 'Changed', inputs: [{ name: 'v', type: 'uint64' }], type: 'event' },
]);

test('an ABI is read and checked, naming the entry that is wrong', () => {
  const parsed = parseWasmAbi(abi);
  assert.is(parsed.length, 3);
  assert.equal(parsed[2]!.outputs, []);
  assert.throws(() => parseWasmAbi('{'), /not JSON/);
  assert.throws(() => parseWasmAbi('{}'), /JSON array/);
  assert.throws(() => parseWasmAbi('[{"type":"function"}]'), /entry 0: name/);
  assert.throws(() => parseWasmAbi('[{"name":"f","type":"function","inputs":[{"name":"x","type":"map"}]}]'), /entry 0 \(f\).*"map"/);
});

test('deploy data round-trips; isWasmCode tells it from EVM code and from lists without a module', () => {
  const data = encodeWasmDeploy(wasm, abi);
  const d = decodeWasmDeploy(data);
  assert.is(d.txType, 0n);
  assert.equal(d.wasm, wasm);
  assert.is(new TextDecoder().decode(d.abiJson), abi);
  assert.ok(isWasmCode(data));
  assert.not.ok(isWasmCode(new Uint8Array([0x60, 0x80, 0x60, 0x40, 0x52])));
  assert.not.ok(isWasmCode(RLP.encode([new Uint8Array(8), new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), new Uint8Array(2)])));
  assert.not.ok(isWasmCode(RLP.encode([new Uint8Array(8), wasm])));
  assert.throws(() => encodeWasmDeploy(new Uint8Array([1, 2, 3]), abi), /not a wasm module/);
  assert.throws(() => encodeWasmDeploy(wasm, '[1]'), /entry 0 must be an object/);
  assert.throws(() => decodeWasmDeploy(new Uint8Array([0xc1])), (e: unknown) => e instanceof WasmAbiError);
});

test('each argument type has its fixed width, big-endian, and reads back', () => {
  const cases: [string, bigint | number | boolean | string, string][] = [
    ['int8', -1n, '0xff'],
    ['uint8', 200n, '0xc8'],
    ['bool', true, '0x01'],
    ['int16', -2n, '0xfffe'],
    ['uint16', 65535n, '0xffff'],
    ['int32', -3n, '0xfffffffd'],
    ['uint32', 4000000000n, '0xee6b2800'],
    ['int', 7n, '0x00000007'],
    ['uint', 8n, '0x00000008'],
    ['int64', -4n, '0xfffffffffffffffc'],
    ['uint64', 2n ** 64n - 1n, '0xffffffffffffffff'],
    ['int128', -1n, '0x' + 'ff'.repeat(16)],
    ['uint128', 2n ** 100n, '0x000000100000000000000000' + '00000000'],
    ['float32', 1.5, '0x3fc00000'],
    ['float64', -2.25, '0xc002000000000000'],
    ['string', 'héllo', '0x68c3a96c6c6f'],
  ];
  for (const [type, value, hex] of cases) {
    const bytes = encodeWasmArg(type, value);
    assert.is(bytesToHex(bytes), hex, type);
    assert.equal(decodeWasmArg(type, bytes), value, type);
  }
  assert.throws(() => encodeWasmArg('int8', 128n), /out of range for int8/);
  assert.throws(() => encodeWasmArg('uint32', -1), /out of range/);
  assert.throws(() => encodeWasmArg('int64', 1.5), /must be an integer/);
  assert.throws(() => encodeWasmArg('string', 'a\0b'), /NUL/);
  assert.throws(() => decodeWasmArg('int32', new Uint8Array(3)), /must be 4 byte\(s\), got 3/);
});

test('a call is encoded by its ABI entry; unknown functions and wrong arguments are refused', () => {
  const data = encodeWasmCall(abi, 'set', [5n, 'x']);
  const call = decodeCall(data);
  assert.is(call.txType, 2n);
  assert.is(call.funcName, 'set');
  assert.equal(call.args.map(bytesToHex), ['0x00000005', '0x78']);
  assert.throws(() => encodeWasmCall(abi, 'Changed', [1n]), /no function "Changed"/);
  assert.throws(() => encodeWasmCall(abi, 'set', [5n]), /takes 2 argument/);
  assert.throws(() => encodeWasmCall(abi, 'set', ['x', 'x']), /argument 1 \(v\).*integer/);
});

test('returns are encoded by txType and read back', () => {
  const word = (hex: string) => '0x' + hex.padStart(64, hex.startsWith('ff') ? 'f' : '0');
  assert.is(bytesToHex(encodeWasmReturn('int32', 2n, -1n)), word('ff'));
  assert.is(bytesToHex(encodeWasmReturn('uint64', 2n, 2n ** 64n - 1n)), word('ffffffffffffffff'.padStart(64, '0')));
  assert.is(bytesToHex(encodeWasmReturn('int64', TX_TYPE_RAW_RETURN, -1n)), '0xffffffffffffffff');
  assert.is(bytesToHex(encodeWasmReturn('void', 2n, 0n)), word('0'));
  const s = new TextEncoder().encode('hi');
  assert.is(bytesToHex(encodeWasmReturn('string', TX_TYPE_SOL_COMPATIBLE_WASM, s)), '0x6869');
  assert.is(encodeWasmReturn('string', 2n, s).length, 96);
  for (const [type, txType, value, bytes] of [
    ['int32', 2n, -7n, encodeWasmReturn('int32', 2n, -7n)],
    ['uint64', 2n, 2n ** 64n - 1n, encodeWasmReturn('uint64', 2n, 2n ** 64n - 1n)],
    ['int64', TX_TYPE_RAW_RETURN, -9n, encodeWasmReturn('int64', TX_TYPE_RAW_RETURN, -9n)],
    ['int128', 2n, -(2n ** 100n), encodeWasmReturn('int128', 2n, -(2n ** 100n))],
    ['float64', 2n, 0.5, encodeWasmReturn('float64', 2n, 0x3fe0000000000000n)],
    ['float32', TX_TYPE_RAW_RETURN, 1.5, encodeWasmReturn('float32', TX_TYPE_RAW_RETURN, 0x3fc00000n)],
    ['string', 2n, 'hi', encodeWasmReturn('string', 2n, s)],
    ['string', TX_TYPE_RAW_RETURN, 'hi', s],
  ] as const) {
    assert.equal(decodeWasmReturn(type, txType, bytes), value, `${type} ${txType}`);
  }
  assert.is(decodeWasmReturn('void', 2n, new Uint8Array(32)), undefined);
  assert.is(decodeWasmReturn('int32', 0n, new Uint8Array(0)), undefined);
  assert.throws(() => decodeWasmReturn('int32', 2n, new Uint8Array(8)), /must be 32 bytes/);
});

test.run();
