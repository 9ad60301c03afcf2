// What each wasm instruction costs. The figures are Venachain's (life/exec/gas_table.go: life
// charges them per instruction of its register IR) mapped onto wasm opcodes, so a contract costs
// here about what it cost there. Where life's figure is an artefact of its interpreter it is
// replaced, and the reason is given beside it. Structural opcodes (block, loop, end) cost nothing, as
// they are no instruction in life's IR; the instrumentation this module's caller injects costs nothing.

const table = new Uint16Array(256);
const set = (cost: number, ...opcodes: number[]): void => {
  for (const op of opcodes) table[op] = cost;
};
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

set(1, 0x00, 0x01); // unreachable, nop
set(18, 0x04); // if: life's JmpIf
set(12, 0x05, 0x0c); // else (the then-arm's jump to the end), br: life's Jmp
set(18, 0x0d); // br_if: JmpIf
set(25, 0x0e); // br_table: JmpTable
set(15, 0x0f); // return: ReturnValue
// life charges 1 for a call and 1 for call_indirect; a V8 call builds a frame and (here) checks the
// call depth, about a return's work, and call_indirect adds a table bounds and signature check.
set(15, 0x10);
set(25, 0x11);
set(1, 0x1a); // drop: no instruction in life (a register simply goes unused)
set(21, 0x1b, 0x1c); // select
set(7, 0x20); // local.get
set(13, 0x21, 0x22); // local.set, local.tee
set(8, 0x23); // global.get
set(17, 0x24); // global.set
// loads (f32/f64 loads as life's i32/i64 loads of the same width)
set(25, 0x28, 0x2a);
set(24, 0x29, 0x2b);
set(20, 0x2c, 0x2f);
set(19, 0x2d, 0x30, 0x31);
set(21, 0x2e, 0x32, 0x33);
set(24, 0x34);
set(26, 0x35);
// stores
set(30, 0x36, 0x38, 0x3e);
set(29, 0x37, 0x39);
set(26, 0x3a, 0x3b, 0x3c, 0x3d);
set(1, 0x3f, 0x40); // memory.size; memory.grow (plus MEMORY_PAGE_GAS a page it grows)
set(7, 0x41, 0x42, 0x43, 0x44); // constants
// i32 comparisons and arithmetic
set(8, 0x45);
set(14, ...range(0x46, 0x4f));
set(7, 0x50); // i64.eqz
set(14, ...range(0x51, 0x5a));
set(15, ...range(0x5b, 0x60)); // f32 comparisons
set(14, 0x61, 0x62, 0x63);
set(15, 0x64, 0x65, 0x66); // f64 gt, le, ge
set(8, 0x67, 0x69);
set(7, 0x68);
set(14, 0x6a, 0x6b, 0x6c, 0x71, 0x72, 0x73, 0x74, 0x75, 0x78);
set(15, 0x76, 0x77);
set(17, 0x6d);
set(16, 0x6e, 0x70);
set(18, 0x6f);
// i64 arithmetic
set(8, 0x79, 0x7a, 0x7b);
set(14, 0x7c, 0x7d, 0x7e, 0x83, 0x84, 0x85, 0x86, 0x88, 0x89, 0x8a);
set(15, 0x87);
set(28, 0x7f);
set(25, 0x80, 0x82);
set(26, 0x81);
// f64 arithmetic: abs neg ceil floor trunc nearest sqrt add sub mul div min max copysign
const f64Costs = [8, 8, 8, 8, 8, 8, 80, 15, 15, 15, 85, 18, 18, 17];
f64Costs.forEach((cost, i) => set(cost, 0x99 + i));
// f32 arithmetic: life emulates several f32 operations through float64 (abs 67, min/max 128,
// copysign 127); V8 runs each as one machine instruction, so f32 costs what f64 does — except add,
// sub and mul, where life's own f32 figures (14, 14, 15) are the sane ones.
f64Costs.forEach((cost, i) => set(cost, 0x8b + i));
set(14, 0x92, 0x93);
// conversions: wrap, extend and reinterpret 7; the rest 8–9 (life's f32-source figures of 67–68 are
// the same float64 emulation)
set(7, 0xa7, 0xac, 0xad, ...range(0xbc, 0xbf));
set(9, ...range(0xa8, 0xab));
set(8, ...range(0xae, 0xbb));
set(7, ...range(0xc0, 0xc4)); // sign extension (life: none; as extend)

/** gas of a one-byte opcode (0 for block, loop, end and opcodes the module may not contain) */
export function opcodeGas(opcode: number): number {
  return table[opcode];
}

/** gas of a 0xFC-prefixed opcode before its per-byte or per-element part */
export function prefixedGas(subop: number): number {
  if (subop <= 7) return 9; // saturating float-to-int: as the trapping ones
  if (subop === 9 || subop === 13 || subop === 16) return 8; // data.drop, elem.drop, table.size
  return 30; // memory.init/copy/fill, table.init/copy/grow/fill: as a store, plus the part by size
}

/** memory.grow: gas per 64 KiB page grown — 2,048 words at the EVM's 3 gas a word of memory */
export const MEMORY_PAGE_GAS = 6144n;
/** memory.copy / memory.fill / memory.init: gas per started 32-byte word, the EVM's copy cost */
export const COPY_WORD_GAS = 3n;
/** table.grow / fill / copy / init: gas per element (an 8-byte reference) */
export const TABLE_ELEMENT_GAS = 1n;
