// Debug prints and abort (Venachain's life/resolver): each print is one line on the node's debug
// log (module `wasm`, --log.vmodule wasm=4), naming the contract (sent to the main thread without
// waiting); the gas is Venachain's, which prices a print as a heavy operation so that contracts do
// not print in production.
import { bytesToHex } from '../../../util/hex.ts';
import { LENGTH_GAS, u32, WasmCallError, words, type HostArg, type HostContext, type HostTable } from './context.ts';

const text = new TextDecoder();

function print(ctx: HostContext, gas: bigint, line: string): void {
  ctx.useGas(gas);
  ctx.print(line);
}

/** A 128-bit integer stored little-endian at `ptr` (what clang passes for __int128 by pointer). */
function int128At(ctx: HostContext, ptr: HostArg, signed: boolean): bigint {
  const b = ctx.bytes(u32(ptr), 16);
  let v = 0n;
  for (let i = 15; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
  return signed ? BigInt.asIntN(128, v) : v;
}

export const printsHost: HostTable = {
  prints: (ctx, ptr) => print(ctx, 319_400n, text.decode(ctx.cString(u32(ptr)))),
  prints_l: (ctx, ptr, len) => print(ctx, 358_400n + words(u32(len)) * LENGTH_GAS.copyWord, text.decode(ctx.bytes(u32(ptr), u32(len)))),
  printi: (ctx, v) => print(ctx, 334_600n, BigInt.asIntN(64, BigInt(v)).toString()),
  printui: (ctx, v) => print(ctx, 293_600n, BigInt.asUintN(64, BigInt(v)).toString()),
  printi128: (ctx, ptr) => print(ctx, 300_000n, int128At(ctx, ptr, true).toString()),
  printui128: (ctx, ptr) => print(ctx, 300_000n, int128At(ctx, ptr, false).toString()),
  printsf: (ctx, v) => print(ctx, 320_800n, String(typeof v === 'bigint' ? new Float32Array(new Uint32Array([Number(BigInt.asUintN(32, v))]).buffer)[0] : v)),
  printdf: (ctx, v) => print(ctx, 323_600n, String(typeof v === 'bigint' ? new Float64Array(new BigUint64Array([BigInt.asUintN(64, v)]).buffer)[0] : v)),
  // a long double's bits, little-endian at ptr: printed as hex (no binary128 formatting in JavaScript)
  printqf: (ctx, ptr) => print(ctx, 300_000n, '0x' + int128At(ctx, ptr, false).toString(16).padStart(32, '0') + ' (binary128)'),
  printn: (ctx, v) => print(ctx, 301_400n, String(u32(v))),
  printhex: (ctx, ptr, len) => print(ctx, 387_400n + words(u32(len)) * LENGTH_GAS.copyWord, bytesToHex(ctx.bytes(u32(ptr), u32(len))).slice(2)),
  abort(ctx) {
    ctx.useGas(1n);
    throw new WasmCallError('abort() called');
  },
};
