// Prepares a wasm contract for the chain: refuses what the chain does not run, then returns the
// module instrumented to meter its own gas, cap its call depth and its memory, and compute floats
// deterministically. Pure (bytes in, bytes out); the engine calls it at deploy and caches the result
// by code hash.
//
// Accepted: the wasm MVP plus what clang and AssemblyScript emit — multi-value, sign extension,
// non-trapping float-to-int, bulk memory, mutable-global imports and exports, a funcref table.
// Refused, each with its reason: SIMD, threads/atomics, exception handling, tail calls, reference
// types beyond a funcref table's elements, GC, more than one memory or a 64-bit or shared one, an
// imported memory or table, a start function, initial memory above the cap, a table starting above
// MAX_TABLE_ENTRIES. Memory and table maxima are clamped to those caps.
//
// What the prepared module adds (appended, so no index of the module's own shifts):
// - globals GAS_GLOBAL (exported mutable i64: the gas left, set by the engine before a call and read
//   after), TRAP_GLOBAL (exported mutable i32: why it trapped) and DEPTH_GLOBAL (the call depth);
// - three functions: use-gas (charges a dynamic amount), out-of-gas and depth-exceeded (set the
//   globals, then `unreachable`);
// - in every function body: a gas charge at the top of each metered block (instrument.ts), the
//   depth count in and out (except in small leaves: no call into the module, one depth unit), NaN
//   canonicalisation after each float operation that can make one.
// Custom sections (names, producers, debug info) are dropped.
import { ByteReader, WasmFormatError } from './binary/reader.ts';
import { ByteWriter } from './binary/writer.ts';
import { checkValueType, instrumentBody, type Instrumentation } from './instrument.ts';
import { WasmModuleError } from './errors.ts';

export { WasmModuleError };

/** exported mutable i64 the prepared module adds: the gas left (-1 after running out) */
export const GAS_GLOBAL = '__gas_left';
/** exported mutable i32 the prepared module adds: 0, or why it trapped (TRAP_OUT_OF_GAS, TRAP_CALL_DEPTH) */
export const TRAP_GLOBAL = '__trap';
/**
 * exported mutable i32 the prepared module adds: call-depth units in use (instrument.ts frameWeight),
 * 0 whenever no call runs. Nothing nests instances on one stack: a contract's call of another runs
 * on another wasm thread (engine.ts) while the caller's waits, each on its own stack.
 */
export const DEPTH_GLOBAL = '__call_depth';
export const TRAP_OUT_OF_GAS = 1;
export const TRAP_CALL_DEPTH = 2;

export interface PrepareLimits {
  /** most 64 KiB pages the module's memory may reach (its maximum is clamped to this) */
  maxMemoryPages: number;
  /** most nested calls inside one instance (a function with many locals counts as more: instrument.ts frameWeight) */
  maxCallDepth: number;
}

/**
 * The chain's limits: 256 pages = 16 MiB of memory (Venachain's life gives a contract its initial
 * pages plus 16); 1,024 depth units, which took at most ~18 % of V8's ~1 MB stack whatever the
 * frames (many locals, deep operand stacks: test/wasm-prepare.test.ts), leaving the rest to the
 * node's frames below the contract.
 */
export const DEFAULT_PREPARE_LIMITS: PrepareLimits = { maxMemoryPages: 256, maxCallDepth: 1024 };

const MAGIC_AND_VERSION = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
/** the MVP's sections (1–11), data count (12) and tags (13, refused below) */
const KNOWN_SECTIONS = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);

interface FuncType {
  params: Uint8Array;
  results: Uint8Array;
}

export function prepareModule(wasm: Uint8Array, limits: PrepareLimits): Uint8Array {
  // V8 checks the module first (types, indices, structure), so an invalid one is refused with its
  // own reason; the rewrite below then refuses what V8 accepts but the chain does not run
  if (!WebAssembly.validate(wasm)) throw new WasmModuleError(`invalid wasm module: ${compileErrorOf(wasm)}`);
  try {
    return rewrite(wasm, limits);
  } catch (err) {
    if (err instanceof WasmFormatError) throw new WasmModuleError(`malformed wasm module: ${err.message}`);
    throw err;
  }
}

function compileErrorOf(wasm: Uint8Array): string {
  try {
    new WebAssembly.Module(wasm);
    return 'V8 refuses it';
  } catch (err) {
    return (err as Error).message.replace(/^WebAssembly\.Module\(\): /, '');
  }
}

interface Section {
  start: number;
  end: number;
}

/** a section that is a vector: its entry count and the bytes of its entries */
function vector(wasm: Uint8Array, section: Section | undefined): { count: number; entries: Uint8Array; reader: ByteReader } {
  if (!section) return { count: 0, entries: new Uint8Array(), reader: new ByteReader(wasm, 0, 0) };
  const reader = new ByteReader(wasm, section.start, section.end);
  const count = reader.u32();
  return { count, entries: wasm.subarray(reader.pos, section.end), reader };
}

function rewrite(wasm: Uint8Array, limits: PrepareLimits): Uint8Array {
  const sections = new Map<number, Section>();
  const r = new ByteReader(wasm, 8);
  while (!r.done) {
    const id = r.u8();
    const size = r.u32();
    const start = r.pos;
    r.bytesOf(size);
    if (id === 0) continue;
    if (!KNOWN_SECTIONS.has(id)) throw new WasmModuleError(`the module has a section of id ${id}, which the chain does not know`);
    if (id === 8) throw new WasmModuleError('the module has a start function, which the chain does not run (a contract starts in init)');
    if (id === 13) throw new WasmModuleError('the module declares exception tags (exception handling), which the chain does not run');
    sections.set(id, { start, end: r.pos });
  }

  // types
  const types: FuncType[] = [];
  const typeVec = vector(wasm, sections.get(1));
  for (let n = typeVec.count; n > 0; n--) {
    const tr = typeVec.reader;
    const form = tr.u8();
    if (form !== 0x60) throw new WasmModuleError(`the module declares a type of form 0x${form.toString(16)} (GC types), which the chain does not run`);
    const params = tr.bytesOf(tr.u32());
    const results = tr.bytesOf(tr.u32());
    for (const t of params) checkValueType(t, 'a function type');
    for (const t of results) checkValueType(t, 'a function type');
    types.push({ params, results });
  }

  // imports: imported functions and globals come first in their index spaces
  let importedFuncs = 0;
  let importedGlobals = 0;
  const funcTypes: number[] = [];
  const imports = vector(wasm, sections.get(2));
  for (let n = imports.count; n > 0; n--) {
    const ir = imports.reader;
    const name = `${ir.name()}.${ir.name()}`;
    const kind = ir.u8();
    if (kind === 0) {
      funcTypes.push(ir.u32());
      importedFuncs++;
    } else if (kind === 3) {
      checkValueType(ir.u8(), `import ${name}`);
      ir.u8();
      importedGlobals++;
    } else if (kind === 2) {
      throw new WasmModuleError(`the module imports its memory (${name}); a contract must define its own`);
    } else if (kind === 1) {
      throw new WasmModuleError(`the module imports a table (${name}), which the chain does not provide`);
    } else {
      throw new WasmModuleError(`import ${name} is of kind ${kind} (an exception tag), which the chain does not run`);
    }
  }
  const functions = vector(wasm, sections.get(3));
  for (let i = 0; i < functions.count; i++) funcTypes.push(functions.reader.u32());
  const globals = vector(wasm, sections.get(6));

  // what we add: globals after the module's, functions after the module's, types after the module's
  const gasGlobal = importedGlobals + globals.count;
  const trapGlobal = gasGlobal + 1;
  const firstAdded = importedFuncs + functions.count;
  const ins: Instrumentation = {
    gasGlobal,
    depthGlobal: gasGlobal + 2,
    useGasFunc: firstAdded,
    outOfGasFunc: firstAdded + 1,
    depthExceededFunc: firstAdded + 2,
    maxCallDepth: limits.maxCallDepth,
    typeArity: (typeIndex) => {
      const type = types[typeIndex];
      return type && [type.params.length, type.results.length];
    },
    funcType: (funcIndex) => funcTypes[funcIndex],
    importedFuncs,
  };
  const typeVoid = types.length;
  const typeUseGas = types.length + 1;
  const addedTypes: FuncType[] = [
    { params: new Uint8Array(), results: new Uint8Array() },
    { params: new Uint8Array([0x7e]), results: new Uint8Array() },
  ];
  // the block type that wraps a body: its results (a type of its own when there are several)
  const wrapperTypes = new Map<number, Uint8Array>();
  const wrapperBlockType = (results: Uint8Array, typeIndex: number): Uint8Array => {
    if (results.length === 0) return new Uint8Array([0x40]);
    if (results.length === 1) return results;
    let encoded = wrapperTypes.get(typeIndex);
    if (!encoded) {
      encoded = new ByteWriter(5).s32(types.length + addedTypes.length).finish();
      addedTypes.push({ params: new Uint8Array(), results });
      wrapperTypes.set(typeIndex, encoded);
    }
    return encoded;
  };

  // code
  const bodies = vector(wasm, sections.get(10));
  if (bodies.count !== functions.count) {
    throw new WasmModuleError(`the module declares ${functions.count} functions but has ${bodies.count} bodies`);
  }
  const code = new ByteWriter(Math.ceil(wasm.length * 1.6) + 64).u32(bodies.count + 3);
  for (let i = 0; i < bodies.count; i++) {
    const size = bodies.reader.u32();
    const start = bodies.reader.pos;
    bodies.reader.bytesOf(size);
    const typeIndex = funcTypes[importedFuncs + i];
    const type = types[typeIndex];
    if (!type) throw new WasmModuleError(`function ${importedFuncs + i} has type ${typeIndex}, which is not declared`);
    const body = new ByteReader(wasm, start, start + size);
    code.sized(instrumentBody(body, type.params.length, wrapperBlockType(type.results, typeIndex), ins));
  }
  code.sized(useGasBody(ins)).sized(trapBody(gasGlobal, trapGlobal, TRAP_OUT_OF_GAS)).sized(trapBody(gasGlobal, trapGlobal, TRAP_CALL_DEPTH));

  // assemble, sections in their order
  const w = new ByteWriter(code.length + wasm.length / 4 + 256).bytes(new Uint8Array(MAGIC_AND_VERSION));
  const typeOut = new ByteWriter().u32(types.length + addedTypes.length).bytes(typeVec.entries);
  for (const t of addedTypes) typeOut.u8(0x60).u32(t.params.length).bytes(t.params).u32(t.results.length).bytes(t.results);
  w.section(1, typeOut);
  copySection(w, 2, sections, wasm);
  w.section(3, new ByteWriter().u32(functions.count + 3).bytes(functions.entries).u32(typeUseGas).u32(typeVoid).u32(typeVoid));
  const tables = sections.get(4);
  if (tables) w.section(4, clampTables(new ByteReader(wasm, tables.start, tables.end)));
  const memory = sections.get(5);
  if (memory) w.section(5, clampMemory(new ByteReader(wasm, memory.start, memory.end), limits.maxMemoryPages));
  const globalOut = new ByteWriter().u32(globals.count + 3).bytes(globals.entries);
  globalOut.u8(0x7e).u8(1).u8(0x42).u8(0).u8(0x0b); // gas left: mut i64 = 0
  globalOut.u8(0x7f).u8(1).u8(0x41).u8(0).u8(0x0b); // trap: mut i32 = 0
  globalOut.u8(0x7f).u8(1).u8(0x41).u8(0).u8(0x0b); // call depth: mut i32 = 0
  w.section(6, globalOut);
  w.section(7, exportsWith(vector(wasm, sections.get(7)), gasGlobal));
  copySection(w, 9, sections, wasm);
  copySection(w, 12, sections, wasm);
  w.section(10, code);
  copySection(w, 11, sections, wasm);
  return w.finish().slice();
}

function copySection(w: ByteWriter, id: number, sections: Map<number, Section>, wasm: Uint8Array): void {
  const s = sections.get(id);
  if (s) w.u8(id).u32(s.end - s.start).bytes(wasm.subarray(s.start, s.end));
}

/** the memory section with the maximum clamped to the cap; more than one memory, or a shared or 64-bit one, refused */
function clampMemory(r: ByteReader, maxPages: number): ByteWriter {
  const count = r.u32();
  if (count > 1) throw new WasmModuleError(`the module defines ${count} memories (multi-memory); a contract has one`);
  const w = new ByteWriter(16).u32(count);
  if (count === 0) return w;
  const flags = r.u8();
  if (flags & 0x02) throw new WasmModuleError('the module defines a shared memory (threads), which the chain does not run');
  if (flags & ~0x03) throw new WasmModuleError(`the module defines a memory with flags 0x${flags.toString(16)} (memory64 or custom page sizes), which the chain does not run`);
  const initial = r.u32();
  const maximum = flags & 0x01 ? r.u32() : maxPages;
  if (initial > maxPages) {
    throw new WasmModuleError(`the module's memory starts at ${initial} pages of 64 KiB, above the chain's cap of ${maxPages}`);
  }
  return w.u8(0x01).u32(initial).u32(Math.min(maximum, maxPages));
}

/**
 * Most entries a table may have: a table is references (8 bytes each in V8), grown at a gas per
 * entry, so without a cap one call could allocate V8's 10 million entries. clang and AssemblyScript
 * make one table as large as the functions whose address is taken, never grown.
 */
export const MAX_TABLE_ENTRIES = 65_536;

/** the table section with every table's maximum clamped to MAX_TABLE_ENTRIES */
function clampTables(r: ByteReader): ByteWriter {
  const count = r.u32();
  const w = new ByteWriter(16).u32(count);
  for (let i = 0; i < count; i++) {
    const type = r.u8();
    checkValueType(type, 'a table');
    const flags = r.u8();
    if (flags & ~0x01) throw new WasmModuleError(`the module defines a table with flags 0x${flags.toString(16)} (table64 or shared), which the chain does not run`);
    const initial = r.u32();
    const maximum = flags & 0x01 ? r.u32() : MAX_TABLE_ENTRIES;
    if (initial > MAX_TABLE_ENTRIES) {
      throw new WasmModuleError(`the module's table starts with ${initial} entries, above the chain's cap of ${MAX_TABLE_ENTRIES}`);
    }
    w.u8(type).u8(0x01).u32(initial).u32(Math.min(maximum, MAX_TABLE_ENTRIES));
  }
  return w;
}

/** the module's exports plus the gas, trap and depth globals */
function exportsWith(exports: ReturnType<typeof vector>, gasGlobal: number): ByteWriter {
  for (let n = exports.count; n > 0; n--) {
    const name = exports.reader.name();
    if (name === GAS_GLOBAL || name === TRAP_GLOBAL || name === DEPTH_GLOBAL) throw new WasmModuleError(`the module exports ${name}, a name the chain reserves`);
    exports.reader.u8();
    exports.reader.u32();
  }
  return new ByteWriter()
    .u32(exports.count + 3)
    .bytes(exports.entries)
    .name(GAS_GLOBAL).u8(0x03).u32(gasGlobal)
    .name(TRAP_GLOBAL).u8(0x03).u32(gasGlobal + 1)
    .name(DEPTH_GLOBAL).u8(0x03).u32(gasGlobal + 2);
}

/** (amount: i64) → (): gas -= amount, or out of gas when less is left */
function useGasBody(ins: Instrumentation): ByteWriter {
  const w = new ByteWriter(32).u32(0);
  w.u8(0x23).u32(ins.gasGlobal).u8(0x20).u32(0).u8(0x53); // global.get; local.get 0; i64.lt_s
  w.u8(0x04).u8(0x40).u8(0x10).u32(ins.outOfGasFunc).u8(0x0b);
  w.u8(0x23).u32(ins.gasGlobal).u8(0x20).u32(0).u8(0x7d).u8(0x24).u32(ins.gasGlobal);
  return w.u8(0x0b);
}

/** () → (): records why the module traps, then traps; out of gas also leaves gas at -1 */
function trapBody(gasGlobal: number, trapGlobal: number, reason: number): ByteWriter {
  const w = new ByteWriter(32).u32(0);
  if (reason === TRAP_OUT_OF_GAS) w.u8(0x42).s64(-1n).u8(0x24).u32(gasGlobal);
  w.u8(0x41).s32(reason).u8(0x24).u32(trapGlobal);
  return w.u8(0x00).u8(0x0b);
}
