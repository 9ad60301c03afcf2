// Rewrites one function body: charges gas per metered block, counts the call depth, canonicalises
// NaNs. The body is read instruction by instruction (every immediate decoded, so an opcode outside
// the features we run is found and refused) and copied, with the injected code spliced in.
//
// A metered block is a straight run of instructions that control can enter only at its top: it
// starts at the function's top and after every loop, if, else, end, br_if and branch. Its cost is
// charged before it runs (pwasm-utils / wasm-instrument's approach), so a loop pays its body's cost
// at every iteration, and the gas a run uses does not depend on V8's optimisations.
import { ByteReader, WasmFormatError } from './binary/reader.ts';
import { ByteWriter } from './binary/writer.ts';
import { WasmModuleError } from './errors.ts';
import { COPY_WORD_GAS, MEMORY_PAGE_GAS, opcodeGas, prefixedGas, TABLE_ELEMENT_GAS } from './gas-costs.ts';

const I32 = 0x7f, I64 = 0x7e, F32 = 0x7d, F64 = 0x7c, V128 = 0x7b, FUNCREF = 0x70, EXTERNREF = 0x6f;

/** what every rewritten body refers to in the prepared module */
export interface Instrumentation {
  gasGlobal: number;
  depthGlobal: number;
  /** function (i64) → (): subtracts its argument from the gas left, or traps out of gas */
  useGasFunc: number;
  /** function () → (): sets the out-of-gas globals and traps */
  outOfGasFunc: number;
  /** function () → (): sets the call-depth global and traps */
  depthExceededFunc: number;
  maxCallDepth: number;
  /** [parameter count, result count] of a type index (undefined when there is no such type) */
  typeArity(typeIndex: number): [number, number] | undefined;
  /** the type index of a function index */
  funcType(funcIndex: number): number | undefined;
  /** how many functions the module imports (the host's: they never call back into it) */
  importedFuncs: number;
}

export function checkValueType(type: number, where: string): void {
  if (type === I32 || type === I64 || type === F32 || type === F64 || type === FUNCREF || type === EXTERNREF) return;
  if (type === V128) throw new WasmModuleError(`${where} uses SIMD (v128), which the chain does not run`);
  throw new WasmModuleError(`${where} uses value type 0x${type.toString(16)} (GC / typed references), which the chain does not run`);
}

/**
 * How many call-depth units a call of this function takes: one per 32 value slots of its frame
 * (parameters, locals, the operand stack at its highest), at least one. V8's baseline compiler
 * keeps ~8 bytes a slot plus ~60 bytes a frame (measured on Node 20), so a unit is at most ~320
 * bytes of the real stack whatever the function, and maxCallDepth units fit V8's stack — whose
 * overflow would end a call at a depth that depends on the machine and on what called the contract.
 */
export function frameWeight(slots: number): number {
  return 1 + Math.floor(slots / 32);
}

/** one gas charge for a metered block of `cost`: trap if less is left, else subtract */
function emitCharge(w: ByteWriter, cost: number, ins: Instrumentation): void {
  w.u8(0x23).u32(ins.gasGlobal).u8(0x42).s64(BigInt(cost)).u8(0x53); // global.get; i64.const; i64.lt_s
  w.u8(0x04).u8(0x40).u8(0x10).u32(ins.outOfGasFunc).u8(0x0b); // if call $outOfGas end
  w.u8(0x23).u32(ins.gasGlobal).u8(0x42).s64(BigInt(cost)).u8(0x7d).u8(0x24).u32(ins.gasGlobal); // gas -= cost
}

interface Control {
  /** whether the code where this block/loop/if opened was unreachable */
  deadAtOpen: boolean;
  /** operand stack height below the block's own values */
  base: number;
  params: number;
  results: number;
}

/** V8's 50,000 locals a function, less the 4 scratch locals the injected code may add */
const MAX_LOCALS = 49_996;

/** operand slots the injected code may push above the function's own */
const INJECTED_SLOTS = 4;

/**
 * Rewrites a function body (its locals and code, without the size prefix). `paramCount` is the
 * function's; `wrapperBlockType` is the block type that yields its results (a value type byte,
 * 0x40, or a type index's encoding).
 */
export function instrumentBody(body: ByteReader, paramCount: number, wrapperBlockType: Uint8Array, ins: Instrumentation): ByteWriter {
  // locals
  const localGroups: [number, number][] = [];
  let localCount = paramCount;
  for (let groups = body.u32(); groups > 0; groups--) {
    const n = body.u32();
    const type = body.u8();
    checkValueType(type, 'a local');
    localCount += n;
    if (localCount > MAX_LOCALS) throw new WasmModuleError(`a function declares ${localCount} locals and parameters (at most ${MAX_LOCALS})`);
    localGroups.push([n, type]);
  }
  // scratch locals the injected code needs, appended after the function's own (no index shifts)
  const scratch: number[] = [];
  const scratchLocal = (type: number, slot: number): number => {
    const key = type * 4 + slot;
    let idx = scratch.indexOf(key);
    if (idx < 0) idx = scratch.push(key) - 1;
    return localCount + idx;
  };

  const out = new ByteWriter(body.end - body.pos + 64);
  const block = new ByteWriter(256);
  let cost = 0;
  let dead = false;
  const flush = (): void => {
    if (!dead && cost > 0) emitCharge(out, cost, ins);
    out.bytes(block.finish());
    block.length = 0;
    cost = 0;
  };
  const copy = (start: number): void => {
    block.bytes(body.bytes.subarray(start, body.pos));
  };
  const canonicaliseNaN = (type: number): void => {
    // x → x == x ? x : canonical NaN (select keeps x unless it is a NaN)
    const t = scratchLocal(type, 0);
    block.u8(0x22).u32(t);
    if (type === F32) block.u8(0x43).bytes(CANONICAL_F32);
    else block.u8(0x44).bytes(CANONICAL_F64);
    block.u8(0x20).u32(t).u8(0x20).u32(t).u8(type === F32 ? 0x5b : 0x61).u8(0x1b);
  };
  // the size operand of a bulk operation is on top of the stack: charge for it, keep it there
  const chargeBySize = (perWord: bigint, bytes: boolean): void => {
    const n = scratchLocal(I32, 0);
    block.u8(0x22).u32(n).u8(0xad); // local.tee; i64.extend_i32_u
    if (bytes) block.u8(0x42).s64(31n).u8(0x7c).u8(0x42).s64(5n).u8(0x88); // + 31 >> 5: started words
    block.u8(0x42).s64(perWord).u8(0x7e).u8(0x10).u32(ins.useGasFunc).u8(0x20).u32(n);
  };

  // the operand stack's height, tracked to size the frame (frameWeight)
  const controls: Control[] = [];
  /** whether the body calls a function of the module (or may: call_indirect) */
  let callsModule = false;
  let height = 0;
  let maxHeight = 0;
  const base = (): number => controls[controls.length - 1]?.base ?? 0;
  const effect = (pops: number, pushes: number): void => {
    height = Math.max(base(), height - pops) + pushes;
    if (height > maxHeight) maxHeight = height;
  };
  const endsFlow = (): void => {
    flush();
    dead = true;
    height = base();
  };
  const openBlock = (arity: [number, number]): void => {
    controls.push({ deadAtOpen: dead, base: Math.max(base(), height - arity[0]), params: arity[0], results: arity[1] });
  };

  for (;;) {
    const start = body.pos;
    const op = body.u8();
    switch (op) {
      case 0x02: // block
        openBlock(readBlockType(body, ins));
        copy(start);
        break;
      case 0x03: // loop
      case 0x04: { // if
        const arity = readBlockType(body, ins);
        if (op === 0x04) effect(1, 0);
        cost += opcodeGas(op);
        copy(start);
        flush();
        openBlock(arity);
        break;
      }
      case 0x05: { // else
        cost += opcodeGas(op);
        copy(start);
        flush();
        const control = controls[controls.length - 1];
        if (!control) throw new WasmFormatError('else outside an if');
        dead = control.deadAtOpen;
        height = control.base + control.params;
        break;
      }
      case 0x0b: { // end
        const control = controls.pop();
        if (!control) {
          // the function's own end: a return, then the wrapper block ends
          cost += opcodeGas(0x0f);
          copy(start);
          flush();
          if (!body.done) throw new WasmFormatError('code after the end of a function body');
          const weight = frameWeight(localCount + scratch.length + maxHeight + INJECTED_SLOTS);
          // a small leaf is not counted: nothing of the module runs above it, and its frame (one
          // unit at most) fits the stack the cap leaves spare; its returns, branches to the
          // function's label now, stay returns
          const counted = callsModule || weight > 1;
          return finishBody(out, localGroups, scratch, counted ? { ins, weight, wrapperBlockType } : undefined);
        }
        copy(start);
        flush();
        dead = control.deadAtOpen;
        height = control.base + control.results;
        if (height > maxHeight) maxHeight = height;
        break;
      }
      case 0x0c: // br
        body.u32();
        cost += opcodeGas(op);
        copy(start);
        endsFlow();
        break;
      case 0x0d: // br_if
        body.u32();
        effect(1, 0);
        cost += opcodeGas(op);
        copy(start);
        flush();
        break;
      case 0x0e: // br_table
        for (let n = body.u32() + 1; n > 0; n--) body.u32();
        cost += opcodeGas(op);
        copy(start);
        endsFlow();
        break;
      case 0x00: // unreachable
        cost += opcodeGas(op);
        copy(start);
        endsFlow();
        break;
      case 0x0f: // return: a branch to the wrapper block, so the depth count is undone on the way out
        cost += opcodeGas(op);
        block.u8(0x0c).u32(controls.length);
        endsFlow();
        break;
      case 0x10: { // call
        const callee = body.u32();
        if (callee >= ins.importedFuncs) callsModule = true;
        const arity = ins.typeArity(ins.funcType(callee) ?? -1);
        if (!arity) throw new WasmModuleError('a call names a function that does not exist');
        effect(arity[0], arity[1]);
        cost += opcodeGas(op);
        copy(start);
        break;
      }
      case 0x11: { // call_indirect
        callsModule = true;
        const arity = ins.typeArity(body.u32());
        body.u32();
        if (!arity) throw new WasmModuleError('a call_indirect names a type that does not exist');
        effect(arity[0] + 1, arity[1]);
        cost += opcodeGas(op);
        copy(start);
        break;
      }
      case 0x40: // memory.grow: charged per page after it succeeds
        memoryIndex(body);
        cost += opcodeGas(op);
        {
          const delta = scratchLocal(I32, 0), result = scratchLocal(I32, 1);
          block.u8(0x22).u32(delta).u8(0x40).u8(0x00).u8(0x22).u32(result); // local.tee; memory.grow; local.tee
          block.u8(0x41).s32(-1).u8(0x47).u8(0x04).u8(0x40); // i32.const -1; i32.ne; if
          block.u8(0x20).u32(delta).u8(0xad).u8(0x42).s64(MEMORY_PAGE_GAS).u8(0x7e).u8(0x10).u32(ins.useGasFunc);
          block.u8(0x0b).u8(0x20).u32(result); // end; local.get result
        }
        effect(1, 1);
        break;
      case 0xfc: {
        const sub = body.u32();
        switch (sub) {
          case 8: body.u32(); memoryIndex(body); break; // memory.init data 0
          case 9: body.u32(); break; // data.drop
          case 10: memoryIndex(body); memoryIndex(body); break; // memory.copy 0 0
          case 11: memoryIndex(body); break; // memory.fill 0
          case 12: case 14: body.u32(); body.u32(); break; // table.init elem table, table.copy t t
          case 13: case 15: case 16: case 17: body.u32(); break; // elem.drop, table.grow/size/fill
          default:
            if (sub > 7) throw new WasmModuleError(`a function uses opcode 0xfc ${sub}, which the chain does not run`);
        }
        cost += prefixedGas(sub);
        if (sub === 8 || sub === 10 || sub === 11) chargeBySize(COPY_WORD_GAS, true);
        else if (sub === 12 || sub === 14 || sub === 15 || sub === 17) chargeBySize(TABLE_ELEMENT_GAS, false);
        copy(start);
        if (sub <= 7) effect(1, 1);
        else if (sub === 15) effect(2, 1);
        else if (sub === 16) effect(0, 1);
        else if (sub !== 9 && sub !== 13) effect(3, 0);
        break;
      }
      default: {
        const [pops, pushes] = readPlainImmediates(op, body);
        effect(pops, pushes);
        cost += opcodeGas(op);
        copy(start);
        const nanType = NAN_RESULT[op];
        if (nanType) canonicaliseNaN(nanType);
      }
    }
  }
}

/** the float type of an instruction's result when the instruction can make a NaN of its own bits */
const NAN_RESULT: Record<number, number> = {};
for (const op of [0x8d, 0x8e, 0x8f, 0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0xb6]) NAN_RESULT[op] = F32;
for (const op of [0x9b, 0x9c, 0x9d, 0x9e, 0x9f, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xbb]) NAN_RESULT[op] = F64;
/** wasm's canonical NaNs (positive, quiet, no payload), little-endian */
const CANONICAL_F32 = new Uint8Array([0x00, 0x00, 0xc0, 0x7f]);
const CANONICAL_F64 = new Uint8Array([0, 0, 0, 0, 0, 0, 0xf8, 0x7f]);

/** the locals, then the code — inside the depth count when `depth` says how */
function finishBody(
  code: ByteWriter,
  localGroups: [number, number][],
  scratch: number[],
  depth: { ins: Instrumentation; weight: number; wrapperBlockType: Uint8Array } | undefined,
): ByteWriter {
  const w = new ByteWriter(code.length + 64);
  w.u32(localGroups.length + scratch.length);
  for (const [n, type] of localGroups) w.u32(n).u8(type);
  for (const key of scratch) w.u32(1).u8(Math.floor(key / 4));
  if (!depth) return w.bytes(code.finish());
  const { ins, weight, wrapperBlockType } = depth;
  // prologue: trap when this call would take the depth over the cap, else count it
  const limit = ins.maxCallDepth - weight;
  if (limit < 0) w.u8(0x10).u32(ins.depthExceededFunc);
  else {
    w.u8(0x23).u32(ins.depthGlobal).u8(0x41).s32(limit).u8(0x4b); // global.get; i32.const; i32.gt_u
    w.u8(0x04).u8(0x40).u8(0x10).u32(ins.depthExceededFunc).u8(0x0b);
  }
  w.u8(0x23).u32(ins.depthGlobal).u8(0x41).s32(weight).u8(0x6a).u8(0x24).u32(ins.depthGlobal);
  // the body inside a block of the function's results: its own end and returns (branches to this
  // block now) come out here, where the count is undone
  w.u8(0x02).bytes(wrapperBlockType);
  w.bytes(code.finish());
  w.u8(0x23).u32(ins.depthGlobal).u8(0x41).s32(weight).u8(0x6b).u8(0x24).u32(ins.depthGlobal);
  return w.u8(0x0b);
}

/** reads a block type: its [parameter count, result count] */
function readBlockType(r: ByteReader, ins: Instrumentation): [number, number] {
  const first = r.bytes[r.pos];
  if (first === 0x40) {
    r.pos++;
    return [0, 0];
  }
  if (first >= 0x6f && first <= 0x7f) {
    checkValueType(r.u8(), 'a block');
    return [0, 1];
  }
  const arity = ins.typeArity(r.s(33));
  if (!arity) throw new WasmModuleError('a block has a type that does not exist');
  return arity;
}

function memoryIndex(r: ByteReader): void {
  if (r.u8() !== 0) throw new WasmModuleError('a function addresses a second memory (multi-memory), which the chain does not run');
}

/** decodes the immediates of every other opcode, refusing the features the chain does not run; answers [values popped, values pushed] */
function readPlainImmediates(op: number, r: ByteReader): [number, number] {
  if (op >= 0x45) {
    if (op > 0xc4) throw new WasmModuleError(`a function uses ${featureOf(op)}, which the chain does not run`);
    return BINARY_OPS.some(([from, to]) => op >= from && op <= to) ? [2, 1] : [1, 1];
  }
  if (op === 0x01) return [0, 0];
  if (op === 0x1a) return [1, 0];
  if (op === 0x1b) return [3, 1];
  if (op === 0x1c) {
    for (let n = r.u32(); n > 0; n--) checkValueType(r.u8(), 'a select');
    return [3, 1];
  }
  if (op >= 0x20 && op <= 0x24) {
    r.u32();
    return op === 0x20 || op === 0x23 ? [0, 1] : op === 0x22 ? [1, 1] : [1, 0];
  }
  if (op >= 0x28 && op <= 0x3e) {
    const align = r.u32();
    if (align & 0x40) throw new WasmModuleError('a function addresses a second memory (multi-memory), which the chain does not run');
    r.u32();
    return op <= 0x35 ? [1, 1] : [2, 0];
  }
  if (op === 0x3f) {
    memoryIndex(r);
    return [0, 1];
  }
  if (op === 0x41 || op === 0x42) r.skipLeb();
  else if (op === 0x43) r.bytesOf(4);
  else if (op === 0x44) r.bytesOf(8);
  else throw new WasmModuleError(`a function uses ${featureOf(op)}, which the chain does not run`);
  return [0, 1];
}

/** opcode ranges (from 0x45 on) of the instructions that take two operands */
const BINARY_OPS: [number, number][] = [
  [0x46, 0x4f], [0x51, 0x66], [0x6a, 0x78], [0x7c, 0x8a], [0x92, 0x98], [0xa0, 0xa6],
];

function featureOf(op: number): string {
  const hex = `opcode 0x${op.toString(16).padStart(2, '0')}`;
  if (op === 0xfd) return `SIMD (${hex})`;
  if (op === 0xfe) return `threads / atomics (${hex})`;
  if (op === 0xfb) return `GC (${hex})`;
  if ((op >= 0x06 && op <= 0x0a) || op === 0x18 || op === 0x19 || op === 0x1f) return `exception handling (${hex})`;
  if (op === 0x12 || op === 0x13) return `tail calls (${hex})`;
  if (op === 0x14 || op === 0x15 || op === 0xd3 || op === 0xd4 || op === 0xd5 || op === 0xd6) return `typed function references (${hex})`;
  if (op === 0x25 || op === 0x26 || (op >= 0xd0 && op <= 0xd2)) return `reference types (${hex})`;
  return `unknown ${hex}`;
}
