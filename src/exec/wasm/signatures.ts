// The function signatures of a module's imports and exports, read from its binary. V8 checks an
// import's JavaScript results against the declared type (a BigInt into an i32 result throws, a
// Number into an i64 one too) and BCWasm modules differ (getStateSize returns i32 in some, i64 in
// others), so every host function is adapted to the signature its module declares; arguments of
// an export are converted the same way. WebAssembly's JavaScript API does not expose signatures
// (type reflection is not in Node 20), hence this reader of the type, import, function and export
// sections (on prepare.ts's ByteReader). The module was prepared first: the reader trusts its structure.

import { ByteReader } from './binary/reader.ts';

export type ValType = 'i32' | 'i64' | 'f32' | 'f64';

export interface FuncSig {
  params: ValType[];
  results: ValType[];
}

export interface ModuleSignatures {
  /** `module.field` of each imported function */
  imports: Map<string, FuncSig>;
  /** each exported function by name */
  exports: Map<string, FuncSig>;
  /** `module.field` of each imported global: its type */
  globals: Map<string, ValType>;
}

const VAL_TYPES: Record<number, ValType> = { 0x7f: 'i32', 0x7e: 'i64', 0x7d: 'f32', 0x7c: 'f64' };

function valType(r: ByteReader): ValType {
  const b = r.u8();
  // a reference type (funcref, externref) in a signature: no BCWasm contract has one
  return VAL_TYPES[b] ?? (`0x${b.toString(16)}` as ValType);
}

function skipLimits(r: ByteReader): void {
  const flags = r.u8();
  r.u32();
  if (flags & 1) r.u32();
}

export function moduleSignatures(wasm: Uint8Array): ModuleSignatures {
  const r = new ByteReader(wasm, 8);
  const types: FuncSig[] = [];
  const imports = new Map<string, FuncSig>();
  const exports = new Map<string, FuncSig>();
  const globals = new Map<string, ValType>();
  /** the type of every function by index: imported ones first */
  const funcTypes: number[] = [];
  while (r.pos < wasm.length) {
    const id = r.u8();
    const size = r.u32();
    const end = r.pos + size;
    if (id === 1) {
      for (let n = r.u32(); n > 0; n--) {
        r.u8(); // 0x60: func
        const params = Array.from({ length: r.u32() }, () => valType(r));
        const results = Array.from({ length: r.u32() }, () => valType(r));
        types.push({ params, results });
      }
    } else if (id === 2) {
      for (let n = r.u32(); n > 0; n--) {
        const name = `${r.name()}.${r.name()}`;
        const kind = r.u8();
        if (kind === 0) {
          const t = r.u32();
          funcTypes.push(t);
          imports.set(name, types[t]!);
        } else if (kind === 1) {
          r.u8();
          skipLimits(r);
        } else if (kind === 2) {
          skipLimits(r);
        } else {
          globals.set(name, valType(r));
          r.u8();
        }
      }
    } else if (id === 3) {
      for (let n = r.u32(); n > 0; n--) funcTypes.push(r.u32());
    } else if (id === 7) {
      for (let n = r.u32(); n > 0; n--) {
        const name = r.name();
        const kind = r.u8();
        const index = r.u32();
        if (kind === 0) exports.set(name, types[funcTypes[index]!]!);
      }
    }
    r.pos = end;
  }
  return { imports, exports, globals };
}

/** `value` as a wasm value of `type`: integers wrap to their width (i64 as BigInt), floats as numbers. */
export function toWasmValue(type: ValType, value: number | bigint): number | bigint {
  switch (type) {
    case 'i64':
      return BigInt.asIntN(64, typeof value === 'bigint' ? value : BigInt(Math.trunc(value)));
    case 'i32':
      return typeof value === 'bigint' ? Number(BigInt.asIntN(32, value)) : value | 0;
    default:
      return Number(value);
  }
}
