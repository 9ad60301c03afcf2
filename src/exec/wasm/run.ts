// One run of a planned export on a fresh instance of a compiled module, on a wasm thread: the
// arguments passed as wasm values (strings copied into the module's memory through its allocator),
// the export called, its result read for the ABI's return type, and every way a run can fail
// turned into an Outcome (out of gas; a trap, abort() or a bad argument with a reason).
import { GAS_GLOBAL, TRAP_GLOBAL } from './prepare.ts';
import { toWasmValue, type FuncSig, type ModuleSignatures } from './signatures.ts';
import { hostImports } from './host/index.ts';
import { WasmCallError, WasmOutOfGas } from './host/context.ts';
import { isWasmStringType } from '../../codec/wasm-abi.ts';
import type { RunContext } from './run-context.ts';
import type { Outcome, Plan } from './thread-protocol.ts';

export function is128(type: string): boolean {
  return type === 'int128' || type === 'uint128' || type === 'float128';
}

/** Runs `plan`; throws only errors of the node itself. */
export function execute(module: WebAssembly.Module, sigs: ModuleSignatures, ctx: RunContext, plan: Plan): Outcome {
  let instance: WebAssembly.Instance | undefined;
  try {
    instance = new WebAssembly.Instance(module, hostImports(module, sigs, ctx));
    const exports = instance.exports;
    ctx.attach(exports.memory as WebAssembly.Memory, exports[GAS_GLOBAL] as WebAssembly.Global, contractMalloc(sigs, exports));
    const sig = sigs.exports.get(plan.entry)!;
    if (sig.params.length !== plan.args.length) {
      return { failure: `the contract's ${plan.entry} takes ${sig.params.length} wasm parameter(s); its ABI entry gives ${plan.args.length}` };
    }
    let returnSlot = 0;
    const args = plan.args.map((a, i) => {
      const type = sig.params[i]!;
      if ('value' in a) {
        // a float argument to an integer parameter: its bits (as Venachain's interpreter passes them)
        if (typeof a.value === 'number' && (type === 'i32' || type === 'i64')) return toWasmValue(type, floatBits(a.value, type));
        return toWasmValue(type, a.value);
      }
      if ('string' in a) {
        const ptr = ctx.malloc(a.string.length + 1);
        ctx.write(ptr, a.string);
        ctx.write(ptr + a.string.length, new Uint8Array(1));
        return toWasmValue(type, ptr);
      }
      returnSlot = ctx.malloc(16);
      return toWasmValue(type, returnSlot);
    });
    const raw = (exports[plan.entry] as (...a: unknown[]) => unknown)(...args) as number | bigint | undefined;
    if (ctx.gasRemaining() < 0n) return { outOfGas: true };
    return { value: returnValue(ctx, plan.returnType, sig, raw, returnSlot) };
  } catch (e) {
    if (e instanceof WasmOutOfGas) return { outOfGas: true };
    if (e instanceof WasmCallError) return { failure: e.message };
    if (e instanceof WebAssembly.RuntimeError) {
      const trap = instance?.exports[TRAP_GLOBAL] as WebAssembly.Global | undefined;
      if (trap?.value === 1 || ctx.gasRemaining() < 0n) return { outOfGas: true };
      if (trap?.value === 2) return { failure: 'wasm call depth exceeded' };
      return { failure: `wasm trap: ${e.message}` };
    }
    if (e instanceof RangeError && /call stack/i.test(e.message)) return { failure: 'wasm call stack exhausted' };
    if (e instanceof WebAssembly.LinkError) return { failure: `the wasm module does not link: ${e.message}` };
    throw e;
  }
}

/** The contract's own `malloc` export, when it has one of one parameter. */
function contractMalloc(sigs: ModuleSignatures, exports: WebAssembly.Exports): ((size: number) => number) | undefined {
  const malloc = exports.malloc;
  const sig = sigs.exports.get('malloc');
  if (typeof malloc !== 'function' || sig === undefined || sig.params.length !== 1) return undefined;
  return (size) => Number((malloc as (n: number | bigint) => number | bigint)(toWasmValue(sig.params[0]!, size))) >>> 0;
}

function floatBits(v: number, type: 'i32' | 'i64'): bigint {
  const view = new DataView(new ArrayBuffer(8));
  if (type === 'i32') {
    view.setFloat32(0, v);
    return BigInt(view.getUint32(0));
  }
  view.setFloat64(0, v);
  return view.getBigUint64(0);
}

/** The export's result as encodeWasmReturn takes it for the ABI's return type. */
function returnValue(ctx: RunContext, type: string, sig: FuncSig, raw: number | bigint | undefined, returnSlot: number): bigint | Uint8Array {
  if (isWasmStringType(type)) return ctx.cString(Number(raw ?? 0) >>> 0).slice();
  if (is128(type)) {
    const le = ctx.bytes(returnSlot, 16);
    let v = 0n;
    for (let i = 15; i >= 0; i--) v = (v << 8n) | BigInt(le[i]!);
    return type === 'int128' ? BigInt.asIntN(128, v) : v;
  }
  if (raw === undefined) return 0n;
  if (type === 'float32' || type === 'float64') {
    const result = sig.results[0];
    if (result === 'f32') return floatBits(Number(raw), 'i32');
    if (result === 'f64') return floatBits(Number(raw), 'i64');
    return BigInt.asUintN(result === 'i32' ? 32 : 64, BigInt(raw));
  }
  const width = { int8: 8, uint8: 8, bool: 8, int16: 16, uint16: 16, int32: 32, uint32: 32, int: 32, uint: 32 }[type] ?? 64;
  const v = BigInt(raw);
  return type.startsWith('u') ? BigInt.asUintN(width, v) : BigInt.asIntN(width, v);
}
