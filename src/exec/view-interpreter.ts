// A small, synchronous EVM interpreter for the common case of eth_call and eth_estimateGas: a
// top-level message without value to plain EVM code that computes over calldata and memory, reads
// and writes storage (writes live as long as the message), reads other accounts' balance, code size
// and code hash, and calls other plain EVM contracts and the ecrecover, SHA-256 and identity
// precompiles without value (CALL, STATICCALL, DELEGATECALL: proxies, multicalls, contracts reading
// contracts, signature checks, old solc's memory copies). @ethereumjs spends ~300 µs of set-up,
// journaling and allocation on a call that executes ~100 opcodes (measured,
// A17); this runs the same call in a few µs. It never guesses: anything outside that subset —
// value transfers, other precompiles, CREATE*, CALLCODE, EXTCODECOPY, SELFDESTRUCT, BLOCKHASH, blob
// opcodes, calls nested deeper than MAX_DEPTH — answers `bail`, and the caller runs the message on
// @ethereumjs instead. Gas is charged exactly as Prague charges it, and in the same order against an
// opcode's other checks, so successful, reverted and out-of-gas outcomes carry what @ethereumjs
// reports (estimateGas's search probes below the answer run out of gas by design). An exceptional
// halt (stack, jump, invalid opcode, a state change in a static call) fails a called frame exactly as
// out of gas does (all its gas used, nothing returned, its changes undone); a message that halts goes
// to @ethereumjs for the exact error. The differential test (test/exec-view-interpreter.test.ts)
// holds the two engines to all of that.
//
// State is read through `env.account` and `env.storage`, which answer from memory or undefined; the
// interpreter then stops with `need`/`needAccount`, the caller reads it and runs the message again
// from the start. A view reads a handful of slots early, so re-running is cheaper than making every
// opcode async.
import { createHash } from 'node:crypto';
import { keccak256 } from '../crypto/keccak.ts';
import { ecrecover } from '../tx/common.ts';

export interface ViewEnv {
  address: bigint;
  caller: bigint;
  origin: bigint;
  data: Uint8Array;
  gasPrice: bigint;
  coinbase: bigint;
  timestamp: bigint;
  number: bigint;
  blockGasLimit: bigint;
  chainId: bigint;
  prevRandao: bigint;
  baseFee: bigint;
  /** the precompiles' addresses: warm from the start, as a transaction's are (EIP-2929) */
  precompiles: readonly bigint[];
  /** an account as BALANCE / EXTCODE* see it and as a call runs it; undefined: not read yet */
  account(address: bigint): AccountInfo | undefined;
  /** a storage slot's value at the call's state root; undefined: not read yet */
  storage(address: bigint, slot: bigint): bigint | undefined;
}

export interface AccountInfo {
  balance: bigint;
  /** undefined: code that is not plain EVM (EOF, an EIP-7702 delegation, another engine's), which this interpreter does not run */
  analysis: CodeAnalysis | undefined;
  codeHash: bigint;
  /** no nonce, balance or code (EIP-161): EXTCODEHASH answers 0 */
  empty: boolean;
}

/** Code analysed once per code: valid jump destinations and the value of every PUSH. */
export interface CodeAnalysis {
  readonly code: Uint8Array;
  readonly jumpdests: Uint8Array;
  readonly pushes: (bigint | undefined)[];
}

export type ViewResult =
  | { kind: 'done'; reverted: boolean; returnValue: Uint8Array; gasUsed: number }
  | { kind: 'need'; address: bigint; slot: bigint; gasUsed: number }
  | { kind: 'needAccount'; address: bigint; gasUsed: number }
  | { kind: 'bail'; reason: string }
  /**
   * an exceptional halt (stack, jump, invalid opcode, a state change in a static call): a call
   * frame that halts fails like one out of gas; a message that halts goes to @ethereumjs, for the
   * exact error
   */
  | { kind: 'halt'; reason: string }
  /** all gas used up; @ethereumjs reports the same halt ('out of gas', every unit of the limit used) */
  | { kind: 'outOfGas' };

const MAX_STACK = 1024;
/** Memory beyond this costs more gas than any gas cap allows (3 × 2^20 words + 2^31 quadratic). */
const MAX_MEMORY = 32 * 1024 * 1024;
/** Memory kept between messages; a message that grew it further gets a fresh small buffer after it. */
const RETAINED_MEMORY = 1024 * 1024;
const COLD_SLOAD = 2100;
/** a warm storage read, and a warm account access (EIP-2929 prices both at 100) */
const WARM_SLOAD = 100;
const COLD_ACCOUNT = 2600;
const ADDRESS_MASK = (1n << 160n) - 1n;
/** precompiles live at the lowest addresses; calls to any of these go to @ethereumjs */
export const LOW_ADDRESSES = 0xffffn;
/** The precompiles run here: their gas (Prague) and output, as @ethereumjs computes them. */
const PRECOMPILES = new Map<bigint, { gas(inputLength: number): number; run(input: Uint8Array): Uint8Array }>([
  [0x01n, { gas: () => 3000, run: ecrecoverPrecompile }],
  [0x02n, { gas: (n) => 60 + 12 * words(n), run: (input) => new Uint8Array(createHash('sha256').update(input).digest()) }],
  [0x04n, { gas: (n) => 15 + 3 * words(n), run: (input) => input.slice() }],
]);

/**
 * Deepest call the interpreter runs; deeper ones go to @ethereumjs (its limit is 1024). Each depth
 * keeps a memory and a stack for later messages, so this also bounds what they hold (~12 KiB each).
 */
const MAX_DEPTH = 64;
const EMPTY = new Uint8Array(0);
/** EIP-2200's sentry, and the costs of a write to a clean slot (zero → non-zero, non-zero → other) under EIP-2929 */
const SSTORE_SENTRY = 2300;
const SSTORE_SET = 20_000;
const SSTORE_RESET = 2900;
const TWO256 = 1n << 256n;
const MAX_U256 = TWO256 - 1n;
const TWO255 = 1n << 255n;

export function analyseCode(code: Uint8Array): CodeAnalysis {
  const jumpdests = new Uint8Array(code.length);
  const pushes: bigint[] = new Array<bigint>(code.length).fill(0n);
  for (let pc = 0; pc < code.length; pc++) {
    const op = code[pc]!;
    if (op === 0x5b) jumpdests[pc] = 1;
    else if (op >= 0x60 && op <= 0x7f) {
      const n = op - 0x5f;
      let v = 0n;
      // bytes past the end of the code read as zero (the value is right-padded)
      for (let i = 1; i <= n; i++) v = (v << 8n) | BigInt(code[pc + i] ?? 0);
      pushes[pc] = v;
      pc += n;
    }
  }
  return { code, jumpdests, pushes };
}

const memoryCost = (words: number) => 3 * words + Math.floor((words * words) / 512);

/**
 * The largest gas limit the interpreter takes: memory past MAX_MEMORY is reported as out of gas,
 * which is exact only while that much memory costs more than the limit (~2.15e9 gas).
 */
export const MAX_VIEW_GAS = memoryCost(MAX_MEMORY / 32) - 1;
const words = (bytes: number) => Math.ceil(bytes / 32);
const bail = (reason: string): ViewResult => ({ kind: 'bail', reason });
const halt = (reason: string): ViewResult => ({ kind: 'halt', reason });
const OUT_OF_GAS: ViewResult = { kind: 'outOfGas' };
const toSigned = (v: bigint) => (v >= TWO255 ? v - TWO256 : v);
const u256 = (v: bigint) => BigInt.asUintN(256, v);

/**
 * The message's memory. One instance serves every message: runView is synchronous, so two never
 * overlap, and reusing the buffer spares an allocation (and its garbage) per call.
 */
class Memory {
  bytes = new Uint8Array(4096);
  view = new DataView(this.bytes.buffer);
  words = 0;

  reset(): void {
    if (this.bytes.length > RETAINED_MEMORY) {
      // one message's large memory is not kept for every later one
      this.bytes = new Uint8Array(4096);
      this.view = new DataView(this.bytes.buffer);
    } else {
      this.bytes.fill(0, 0, this.words * 32);
    }
    this.words = 0;
  }

  /** Grows memory to cover [offset, offset+len) and returns the gas that costs (Infinity past MAX_MEMORY). */
  expand(offset: bigint, len: bigint): number {
    if (len === 0n) return 0;
    const end = offset + len;
    if (end > BigInt(MAX_MEMORY)) return Infinity;
    const w = words(Number(end));
    if (w <= this.words) return 0;
    const cost = memoryCost(w) - memoryCost(this.words);
    this.words = w;
    if (this.bytes.length < w * 32) {
      const next = new Uint8Array(Math.max(w * 32, this.bytes.length * 2));
      next.set(this.bytes);
      this.bytes = next;
      this.view = new DataView(next.buffer);
    }
    return cost;
  }

  load32(offset: number): bigint {
    const v = this.view;
    return (v.getBigUint64(offset) << 192n) | (v.getBigUint64(offset + 8) << 128n) | (v.getBigUint64(offset + 16) << 64n) | v.getBigUint64(offset + 24);
  }

  store32(offset: number, x: bigint): void {
    const v = this.view;
    v.setBigUint64(offset, x >> 192n);
    v.setBigUint64(offset + 8, BigInt.asUintN(64, x >> 128n));
    v.setBigUint64(offset + 16, BigInt.asUintN(64, x >> 64n));
    v.setBigUint64(offset + 24, BigInt.asUintN(64, x));
  }

  /** Copies src[from, from+len) to `to`, zero past the end of src (memory already expanded). */
  copyIn(src: Uint8Array, to: number, from: bigint, len: number): void {
    const start = from > BigInt(src.length) ? src.length : Number(from);
    const avail = Math.min(len, src.length - start);
    if (avail > 0) this.bytes.set(src.subarray(start, start + avail), to);
    if (avail < len) this.bytes.fill(0, to + Math.max(avail, 0), to + len);
  }

  slice(offset: bigint, len: bigint): Uint8Array {
    return len === 0n ? new Uint8Array(0) : this.bytes.slice(Number(offset), Number(offset + len));
  }
}

/**
 * Memory and operand stack per call depth, shared by every message: runs are synchronous, and a
 * frame at one depth ends before the next frame at that depth starts.
 */
const memories: Memory[] = [];
const stacks: bigint[][] = [];

/** What one message's frames share: the warm sets, written storage and transient storage, undoable per frame. */
interface MessageState {
  readonly env: ViewEnv;
  /** address → warm slots */
  readonly warmSlots: Map<bigint, Set<bigint>>;
  /**
   * warm addresses: what a transaction warms before it runs (EIP-2929: caller, contract and
   * precompiles; EIP-3651: coinbase), so an estimate is what the transaction uses, then those
   * BALANCE / EXTCODE* / calls touched, and an address with its first warm slot (@ethereumjs's
   * journal.addWarmedStorage)
   */
  readonly warmAccounts: Set<bigint>;
  /** address → slot → value this message wrote (the original values stay what env.storage answers) */
  readonly written: Map<bigint, Map<bigint, bigint>>;
  readonly transient: Map<bigint, Map<bigint, bigint>>;
  /** how to undo each change above, in order: a frame that reverts or fails undoes its own */
  readonly undo: (() => void)[];
  deepest: number;
}

/** Warms `slot` of `address`; true when it was cold. */
function warmSlot(msg: MessageState, address: bigint, slot: bigint): boolean {
  let slots = msg.warmSlots.get(address);
  if (slots === undefined) msg.warmSlots.set(address, (slots = new Set()));
  if (slots.has(slot)) return false;
  slots.add(slot);
  const s = slots;
  msg.undo.push(() => s.delete(slot));
  warmAccount(msg, address);
  return true;
}

/** Warms `address`; true when it was cold. */
function warmAccount(msg: MessageState, address: bigint): boolean {
  if (msg.warmAccounts.has(address)) return false;
  msg.warmAccounts.add(address);
  msg.undo.push(() => msg.warmAccounts.delete(address));
  return true;
}

/** Sets `key` of `address` in one of the message's per-address maps, undoably. */
function setUndoably(msg: MessageState, maps: Map<bigint, Map<bigint, bigint>>, address: bigint, key: bigint, value: bigint): void {
  let m = maps.get(address);
  if (m === undefined) maps.set(address, (m = new Map()));
  const had = m.has(key);
  const before = m.get(key);
  m.set(key, value);
  const map = m;
  msg.undo.push(() => (had ? map.set(key, before!) : map.delete(key)));
}

/** A running call frame: the code, whose storage and balance it sees, who called it, with what. */
interface Frame {
  analysis: CodeAnalysis;
  address: bigint;
  caller: bigint;
  data: Uint8Array;
  isStatic: boolean;
  depth: number;
}

/**
 * Runs `env.data` against `analysis.code` (the code of `env.address`) with `gasLimit` gas. State
 * comes from `env.account` and `env.storage`, which answer undefined for what is not read yet.
 */
export function runView(analysis: CodeAnalysis, env: ViewEnv, gasLimit: number): ViewResult {
  const warmAccounts = new Set([env.caller, env.address, env.coinbase, ...env.precompiles]);
  const msg: MessageState = { env, warmSlots: new Map(), warmAccounts, written: new Map(), transient: new Map(), undo: [], deepest: 0 };
  try {
    return execute(msg, { analysis, address: env.address, caller: env.caller, data: env.data, isStatic: false, depth: 0 }, gasLimit);
  } finally {
    for (let d = 0; d <= msg.deepest; d++) memories[d]!.reset();
  }
}

function execute(msg: MessageState, frame: Frame, gasLimit: number): ViewResult {
  const { env } = msg;
  const { code, jumpdests, pushes } = frame.analysis;
  const depth = frame.depth;
  if (depth > msg.deepest) msg.deepest = depth;
  const mem = (memories[depth] ??= new Memory());
  mem.reset();
  const stack = (stacks[depth] ??= new Array<bigint>(MAX_STACK + 1).fill(0n));
  const codeLength = BigInt(code.length);
  let sp = 0;
  let gas = gasLimit;
  let pc = 0;
  /** what the last call from this frame returned */
  let returnData: Uint8Array = EMPTY;
  const data = frame.data;
  const dataLength = BigInt(data.length);
  const dataView = new DataView(data.buffer, data.byteOffset, data.byteLength);

  for (;;) {
    const op = pc < code.length ? code[pc]! : 0x00;
    // PUSH1…PUSH32, DUP1…DUP16, SWAP1…SWAP16: the bulk of every program
    if (op >= 0x60 && op <= 0x7f) {
      if ((gas -= 3) < 0) return OUT_OF_GAS;
      if (sp >= MAX_STACK) return halt('stack overflow');
      stack[sp++] = pushes[pc]!;
      pc += op - 0x5e;
      continue;
    }
    if (op >= 0x80 && op <= 0x8f) {
      const n = op - 0x7f;
      if ((gas -= 3) < 0) return OUT_OF_GAS;
      if (sp < n) return halt('stack underflow');
      if (sp >= MAX_STACK) return halt('stack overflow');
      stack[sp] = stack[sp - n]!;
      sp++;
      pc++;
      continue;
    }
    if (op >= 0x90 && op <= 0x9f) {
      const n = op - 0x8f;
      if ((gas -= 3) < 0) return OUT_OF_GAS;
      if (sp <= n) return halt('stack underflow');
      const t = stack[sp - 1]!;
      stack[sp - 1] = stack[sp - 1 - n]!;
      stack[sp - 1 - n] = t;
      pc++;
      continue;
    }
    const arity = ARITY[op]!;
    if (arity < 0) return op === 0xfe ? halt('invalid opcode') : bail(`opcode 0x${op.toString(16)} is left to @ethereumjs`);
    if (sp < arity) return halt('stack underflow');
    // RETURNDATACOPY's bounds come before its gas (@ethereumjs checks them in its gas function)
    if (op === 0x3e && stack[sp - 2]! + stack[sp - 3]! > BigInt(returnData.length)) return halt('return data out of bounds');
    if ((gas -= BASE_GAS[op]!) < 0) return OUT_OF_GAS;
    switch (op) {
      case 0x00: // STOP
        return { kind: 'done', reverted: false, returnValue: new Uint8Array(0), gasUsed: gasLimit - gas };
      case 0x01: { sp--; const r = stack[sp - 1]! + stack[sp]!; stack[sp - 1] = r > MAX_U256 ? r - TWO256 : r; break; }
      case 0x02: sp--; stack[sp - 1] = u256(stack[sp - 1]! * stack[sp]!); break;
      // binary operations take a (the top) and b (below it) and leave op(a, b)
      case 0x03: { sp--; const r = stack[sp]! - stack[sp - 1]!; stack[sp - 1] = r < 0n ? r + TWO256 : r; break; }
      case 0x04: { sp--; const b = stack[sp - 1]!; stack[sp - 1] = b === 0n ? 0n : stack[sp]! / b; break; }
      case 0x05: { // SDIV: truncates toward zero; -2^255 / -1 wraps to -2^255
        sp--;
        const a = toSigned(stack[sp]!), b = toSigned(stack[sp - 1]!);
        stack[sp - 1] = b === 0n ? 0n : u256(a / b);
        break;
      }
      case 0x06: { sp--; const b = stack[sp - 1]!; stack[sp - 1] = b === 0n ? 0n : stack[sp]! % b; break; }
      case 0x07: { // SMOD: the sign of the dividend
        sp--;
        const a = toSigned(stack[sp]!), b = toSigned(stack[sp - 1]!);
        stack[sp - 1] = b === 0n ? 0n : u256(a % b);
        break;
      }
      case 0x08: { sp -= 2; const n = stack[sp - 1]!; stack[sp - 1] = n === 0n ? 0n : (stack[sp + 1]! + stack[sp]!) % n; break; }
      case 0x09: { sp -= 2; const n = stack[sp - 1]!; stack[sp - 1] = n === 0n ? 0n : (stack[sp + 1]! * stack[sp]!) % n; break; }
      case 0x0a: { // EXP(base, exponent): 50 gas per byte of the exponent
        sp--;
        let base = stack[sp]!;
        let e = stack[sp - 1]!;
        if ((gas -= 50 * byteLength(e)) < 0) return OUT_OF_GAS;
        let r = 1n;
        while (e > 0n) {
          if (e & 1n) r = u256(r * base);
          base = u256(base * base);
          e >>= 1n;
        }
        stack[sp - 1] = r;
        break;
      }
      case 0x0b: { // SIGNEXTEND(b, x)
        sp--;
        const b = stack[sp]!, x = stack[sp - 1]!;
        if (b < 31n) {
          const bits = Number(b) * 8 + 8;
          stack[sp - 1] = u256(BigInt.asIntN(bits, x));
        }
        break;
      }
      case 0x10: sp--; stack[sp - 1] = stack[sp]! < stack[sp - 1]! ? 1n : 0n; break;
      case 0x11: sp--; stack[sp - 1] = stack[sp]! > stack[sp - 1]! ? 1n : 0n; break;
      case 0x12: sp--; stack[sp - 1] = toSigned(stack[sp]!) < toSigned(stack[sp - 1]!) ? 1n : 0n; break;
      case 0x13: sp--; stack[sp - 1] = toSigned(stack[sp]!) > toSigned(stack[sp - 1]!) ? 1n : 0n; break;
      case 0x14: sp--; stack[sp - 1] = stack[sp]! === stack[sp - 1]! ? 1n : 0n; break;
      case 0x15: stack[sp - 1] = stack[sp - 1]! === 0n ? 1n : 0n; break;
      case 0x16: sp--; stack[sp - 1] = stack[sp]! & stack[sp - 1]!; break;
      case 0x17: sp--; stack[sp - 1] = stack[sp]! | stack[sp - 1]!; break;
      case 0x18: sp--; stack[sp - 1] = stack[sp]! ^ stack[sp - 1]!; break;
      case 0x19: stack[sp - 1] = u256(~stack[sp - 1]!); break;
      case 0x1a: { // BYTE(i, x): byte i counted from the most significant
        sp--;
        const i = stack[sp]!;
        stack[sp - 1] = i >= 32n ? 0n : (stack[sp - 1]! >> (8n * (31n - i))) & 0xffn;
        break;
      }
      case 0x1b: { sp--; const s = stack[sp]!; stack[sp - 1] = s >= 256n ? 0n : u256(stack[sp - 1]! << s); break; }
      case 0x1c: { sp--; const s = stack[sp]!; stack[sp - 1] = s >= 256n ? 0n : stack[sp - 1]! >> s; break; }
      case 0x1d: { // SAR
        sp--;
        const s = stack[sp]!, x = toSigned(stack[sp - 1]!);
        stack[sp - 1] = u256(s >= 256n ? (x < 0n ? -1n : 0n) : x >> s);
        break;
      }
      case 0x20: { // KECCAK256
        sp--;
        const offset = stack[sp]!, len = stack[sp - 1]!;
        if ((gas -= mem.expand(offset, len)) < 0 || (gas -= 6 * words(Number(len))) < 0) return OUT_OF_GAS;
        stack[sp - 1] = toBigInt(keccak256(len === 0n ? new Uint8Array(0) : mem.bytes.subarray(Number(offset), Number(offset + len))));
        break;
      }
      case 0x30: stack[sp++] = frame.address; break;
      case 0x32: stack[sp++] = env.origin; break;
      case 0x33: stack[sp++] = frame.caller; break;
      case 0x34: stack[sp++] = 0n; break; // CALLVALUE: messages and calls carrying value go to @ethereumjs
      case 0x35: { // CALLDATALOAD: 32 bytes, zero past the end
        const i = stack[sp - 1]!;
        if (i + 32n <= dataLength) {
          const o = Number(i);
          stack[sp - 1] = (dataView.getBigUint64(o) << 192n) | (dataView.getBigUint64(o + 8) << 128n) | (dataView.getBigUint64(o + 16) << 64n) | dataView.getBigUint64(o + 24);
        } else {
          let v = 0n;
          const start = i < dataLength ? Number(i) : data.length;
          for (let k = 0; k < 32; k++) v = (v << 8n) | BigInt(data[start + k] ?? 0);
          stack[sp - 1] = v;
        }
        break;
      }
      case 0x36: stack[sp++] = dataLength; break;
      case 0x37: // CALLDATACOPY
      case 0x39: { // CODECOPY
        sp -= 3;
        const to = stack[sp + 2]!, from = stack[sp + 1]!, len = stack[sp]!;
        if ((gas -= mem.expand(to, len)) < 0 || (gas -= 3 * words(Number(len))) < 0) return OUT_OF_GAS;
        if (len > 0n) mem.copyIn(op === 0x37 ? data : code, Number(to), from, Number(len));
        break;
      }
      case 0x38: stack[sp++] = codeLength; break;
      case 0x3a: stack[sp++] = env.gasPrice; break;
      case 0x3d: stack[sp++] = BigInt(returnData.length); break; // RETURNDATASIZE
      case 0x3e: { // RETURNDATACOPY (its bounds are checked above, before its gas)
        sp -= 3;
        const to = stack[sp + 2]!, from = stack[sp + 1]!, len = stack[sp]!;
        if ((gas -= mem.expand(to, len)) < 0 || (gas -= 3 * words(Number(len))) < 0) return OUT_OF_GAS;
        if (len > 0n) mem.copyIn(returnData, Number(to), from, Number(len));
        break;
      }
      case 0x41: stack[sp++] = env.coinbase; break;
      case 0x42: stack[sp++] = env.timestamp; break;
      case 0x43: stack[sp++] = env.number; break;
      case 0x44: stack[sp++] = env.prevRandao; break;
      case 0x45: stack[sp++] = env.blockGasLimit; break;
      case 0x46: stack[sp++] = env.chainId; break;
      case 0x47: { // SELFBALANCE
        const self = env.account(frame.address);
        if (self === undefined) return { kind: 'needAccount', address: frame.address, gasUsed: gasLimit - gas };
        stack[sp++] = self.balance;
        break;
      }
      case 0x31: // BALANCE
      case 0x3b: // EXTCODESIZE
      case 0x3f: { // EXTCODEHASH: each cold the first time an address is touched in this message (EIP-2929)
        const address = stack[sp - 1]! & ADDRESS_MASK;
        if ((gas -= warmAccount(msg, address) ? COLD_ACCOUNT : WARM_SLOAD) < 0) return OUT_OF_GAS;
        const info = env.account(address);
        if (info === undefined) return { kind: 'needAccount', address, gasUsed: gasLimit - gas };
        if (op === 0x31) stack[sp - 1] = info.balance;
        else if (info.analysis === undefined) return bail('code that is not plain EVM');
        else stack[sp - 1] = op === 0x3b ? BigInt(info.analysis.code.length) : info.empty ? 0n : info.codeHash;
        break;
      }
      case 0x48: stack[sp++] = env.baseFee; break;
      case 0x50: sp--; break;
      case 0x51: { // MLOAD
        const offset = stack[sp - 1]!;
        if ((gas -= mem.expand(offset, 32n)) < 0) return OUT_OF_GAS;
        stack[sp - 1] = mem.load32(Number(offset));
        break;
      }
      case 0x52: { // MSTORE
        sp -= 2;
        const offset = stack[sp + 1]!;
        if ((gas -= mem.expand(offset, 32n)) < 0) return OUT_OF_GAS;
        mem.store32(Number(offset), stack[sp]!);
        break;
      }
      case 0x53: { // MSTORE8
        sp -= 2;
        const offset = stack[sp + 1]!;
        if ((gas -= mem.expand(offset, 1n)) < 0) return OUT_OF_GAS;
        mem.bytes[Number(offset)] = Number(stack[sp]! & 0xffn);
        break;
      }
      case 0x54: { // SLOAD: cold the first time in this message (EIP-2929)
        const slot = stack[sp - 1]!;
        const address = frame.address;
        // warming before charging is safe: out of gas ends the message, or undoes the frame's changes
        if (warmSlot(msg, address, slot) && (gas -= COLD_SLOAD - WARM_SLOAD) < 0) return OUT_OF_GAS;
        const v = msg.written.get(address)?.get(slot) ?? env.storage(address, slot);
        if (v === undefined) return { kind: 'need', address, slot, gasUsed: gasLimit - gas };
        stack[sp - 1] = v;
        break;
      }
      case 0x55: { // SSTORE (EIP-2200 with EIP-2929's costs); the writes live as long as the message
        if (frame.isStatic) return halt('SSTORE in a static call');
        // the sentry: at most 2,300 gas left is out of gas before anything is charged
        if (gas <= SSTORE_SENTRY) return OUT_OF_GAS;
        const slot = stack[sp - 1]!, value = stack[sp - 2]!;
        const address = frame.address;
        const original = env.storage(address, slot);
        if (original === undefined) return { kind: 'need', address, slot, gasUsed: gasLimit - gas };
        const current = msg.written.get(address)?.get(slot) ?? original;
        let cost = current === value || original !== current ? WARM_SLOAD : original === 0n ? SSTORE_SET : SSTORE_RESET;
        if (warmSlot(msg, address, slot)) cost += COLD_SLOAD;
        if ((gas -= cost) < 0) return OUT_OF_GAS;
        setUndoably(msg, msg.written, address, slot, value);
        sp -= 2;
        break;
      }
      case 0x56: { // JUMP
        const dest = stack[--sp]!;
        if (dest >= codeLength || jumpdests[Number(dest)] !== 1) return halt('invalid JUMP');
        pc = Number(dest);
        continue;
      }
      case 0x57: { // JUMPI
        sp -= 2;
        if (stack[sp]! !== 0n) {
          const dest = stack[sp + 1]!;
          if (dest >= codeLength || jumpdests[Number(dest)] !== 1) return halt('invalid JUMP');
          pc = Number(dest);
          continue;
        }
        break;
      }
      case 0x58: stack[sp++] = BigInt(pc); break;
      case 0x59: stack[sp++] = BigInt(mem.words * 32); break;
      case 0x5a: stack[sp++] = BigInt(gas); break;
      case 0x5b: break; // JUMPDEST
      case 0x5c: stack[sp - 1] = msg.transient.get(frame.address)?.get(stack[sp - 1]!) ?? 0n; break; // TLOAD
      case 0x5d: // TSTORE
        if (frame.isStatic) return halt('TSTORE in a static call');
        sp -= 2;
        setUndoably(msg, msg.transient, frame.address, stack[sp + 1]!, stack[sp]!);
        break;
      case 0x5e: { // MCOPY
        sp -= 3;
        const to = stack[sp + 2]!, from = stack[sp + 1]!, len = stack[sp]!;
        if ((gas -= mem.expand(to, len)) < 0 || (gas -= mem.expand(from, len)) < 0 || (gas -= 3 * words(Number(len))) < 0) return OUT_OF_GAS;
        if (len > 0n) mem.bytes.copyWithin(Number(to), Number(from), Number(from + len));
        break;
      }
      case 0x5f: stack[sp++] = 0n; break; // PUSH0
      case 0xa0: case 0xa1: case 0xa2: case 0xa3: case 0xa4: { // LOG0…LOG4: nothing keeps an eth_call's logs
        if (frame.isStatic) return halt('LOG in a static call');
        const topics = op - 0xa0;
        const offset = stack[sp - 1]!, len = stack[sp - 2]!;
        sp -= 2 + topics;
        if ((gas -= mem.expand(offset, len)) < 0 || (gas -= 375 * topics + 8 * Number(len)) < 0) return OUT_OF_GAS;
        break;
      }
      case 0xf1: // CALL (without value)
      case 0xf4: // DELEGATECALL
      case 0xfa: { // STATICCALL
        const requested = stack[sp - 1]!, to = stack[sp - 2]! & ADDRESS_MASK;
        const args = op === 0xf1 ? sp - 4 : sp - 3; // CALL has a value between the address and the input
        if (op === 0xf1 && stack[sp - 3]! !== 0n) return bail('a call that carries value');
        const inOffset = stack[args]!, inLength = stack[args - 1]!, outOffset = stack[args - 2]!, outLength = stack[args - 3]!;
        // precompiles other than SHA-256 and identity, and code that is not plain EVM (EIP-7702
        // delegations included), run on @ethereumjs
        const precompile = to <= LOW_ADDRESSES ? PRECOMPILES.get(to) : undefined;
        if (to <= LOW_ADDRESSES && precompile === undefined) return bail('a call to a precompile');
        const target = precompile === undefined ? env.account(to) : undefined;
        if (precompile === undefined && target === undefined) return { kind: 'needAccount', address: to, gasUsed: gasLimit - gas };
        if (target !== undefined && target.analysis === undefined) return bail('a call to code that is not plain EVM');
        if (depth + 1 >= MAX_DEPTH) return bail('calls nested deeper than the interpreter runs');
        // the input's and output's memory, then the target's access (EIP-2929); out of gas if more than is left
        let charge = mem.expand(inOffset, inLength);
        charge += mem.expand(outOffset, outLength);
        charge += warmAccount(msg, to) ? COLD_ACCOUNT : WARM_SLOAD;
        if (charge > gas) return OUT_OF_GAS;
        gas -= charge;
        // all but one 64th of what is left (EIP-150), at most what was asked for
        const allowed = gas - Math.floor(gas / 64);
        const callGas = requested < BigInt(allowed) ? Number(requested) : allowed;
        const input = mem.slice(inOffset, inLength);
        sp -= op === 0xf1 ? 7 : 6;
        returnData = EMPTY;
        let ok = true;
        if (precompile !== undefined) {
          const cost = precompile.gas(input.length);
          if (cost > callGas) {
            gas -= callGas;
            ok = false;
          } else {
            gas -= cost;
            returnData = precompile.run(input);
          }
        } else if (target!.analysis!.code.length > 0) {
          const mark = msg.undo.length;
          const callee: Frame = {
            analysis: target!.analysis!,
            address: op === 0xf4 ? frame.address : to,
            caller: op === 0xf4 ? frame.caller : frame.address,
            data: input,
            isStatic: frame.isStatic || op === 0xfa,
            depth: depth + 1,
          };
          const r = execute(msg, callee, callGas);
          if (r.kind === 'done') {
            gas -= r.gasUsed;
            returnData = r.returnValue;
            ok = !r.reverted;
          } else if (r.kind === 'outOfGas' || r.kind === 'halt') {
            // an exceptional halt: the callee used all its gas and returns nothing
            gas -= callGas;
            ok = false;
          } else if (r.kind === 'bail') {
            return r;
          } else {
            // a read the callee needs: the whole message runs again once it is made
            return { ...r, gasUsed: gasLimit - gas + r.gasUsed };
          }
          if (!ok) while (msg.undo.length > mark) msg.undo.pop()!();
        }
        if (returnData.length > 0 && outLength > 0n) {
          const n = outLength < BigInt(returnData.length) ? Number(outLength) : returnData.length;
          mem.bytes.set(returnData.subarray(0, n), Number(outOffset));
        }
        stack[sp++] = ok ? 1n : 0n;
        break;
      }
      case 0xf3: // RETURN
      case 0xfd: { // REVERT
        sp -= 2;
        const offset = stack[sp + 1]!, len = stack[sp]!;
        if ((gas -= mem.expand(offset, len)) < 0) return OUT_OF_GAS;
        return { kind: 'done', reverted: op === 0xfd, returnValue: mem.slice(offset, len), gasUsed: gasLimit - gas };
      }
      default:
        return bail(`opcode 0x${op.toString(16)} is left to @ethereumjs`);
    }
    if (sp > MAX_STACK) return halt('stack overflow');
    pc++;
  }
}

/**
 * ECRECOVER: the input right-padded (or cut) to 128 bytes — hash, v, r, s; v must be 27 or 28; the
 * signer's address left-padded to 32 bytes, or nothing when no key recovers. The recovery is the
 * one @ethereumjs's precompile calls (our customCrypto.ecrecover), so both fail alike.
 */
function ecrecoverPrecompile(input: Uint8Array): Uint8Array {
  const data = new Uint8Array(128);
  data.set(input.subarray(0, 128));
  const v = toBigInt(data.subarray(32, 64));
  if (v !== 27n && v !== 28n) return EMPTY;
  let publicKey: Uint8Array;
  try {
    publicKey = ecrecover(data.subarray(0, 32), v, data.subarray(64, 96), data.subarray(96, 128));
  } catch {
    return EMPTY;
  }
  const out = new Uint8Array(32);
  out.set(keccak256(publicKey).subarray(12), 12);
  return out;
}

function byteLength(v: bigint): number {
  let n = 0;
  while (v > 0n) {
    n++;
    v >>= 8n;
  }
  return n;
}

function toBigInt(b: Uint8Array): bigint {
  const v = new DataView(b.buffer, b.byteOffset, 32);
  return (v.getBigUint64(0) << 192n) | (v.getBigUint64(8) << 128n) | (v.getBigUint64(16) << 64n) | v.getBigUint64(24);
}

/** Stack items each supported opcode (other than PUSH, DUP, SWAP) takes; -1: not supported. */
const ARITY = new Int8Array(256).fill(-1);
/** Static gas of each supported opcode (Prague). */
const BASE_GAS = new Uint16Array(256);
const define = (ops: number[], arity: number, gas: number) => {
  for (const op of ops) {
    ARITY[op] = arity;
    BASE_GAS[op] = gas;
  }
};
define([0x00], 0, 0);
define([0x01, 0x03], 2, 3); // ADD SUB
define([0x02, 0x04, 0x05, 0x06, 0x07, 0x0b], 2, 5); // MUL DIV SDIV MOD SMOD SIGNEXTEND
define([0x08, 0x09], 3, 8); // ADDMOD MULMOD
define([0x0a], 2, 10); // EXP
define([0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1a, 0x1b, 0x1c, 0x1d], 2, 3);
define([0x15, 0x19], 1, 3); // ISZERO NOT
define([0x20], 2, 30); // KECCAK256
define([0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3a, 0x3d, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x48, 0x58, 0x59, 0x5a, 0x5f], 0, 2);
define([0x47], 0, 5); // SELFBALANCE
define([0x31, 0x3b, 0x3f], 1, 0); // BALANCE EXTCODESIZE EXTCODEHASH (the access cost is dynamic)
define([0x35], 1, 3); // CALLDATALOAD
define([0x37, 0x39, 0x3e], 3, 3); // CALLDATACOPY CODECOPY RETURNDATACOPY
define([0x50], 1, 2); // POP
define([0x51], 1, 3); // MLOAD
define([0x52, 0x53], 2, 3); // MSTORE MSTORE8
define([0x54], 1, WARM_SLOAD); // SLOAD (the cold surcharge is dynamic)
define([0x55], 2, 0); // SSTORE (all of it is dynamic)
define([0x56], 1, 8); // JUMP
define([0x57], 2, 10); // JUMPI
define([0x5b], 0, 1); // JUMPDEST
define([0x5c], 1, 100); // TLOAD
define([0x5d], 2, 100); // TSTORE
define([0x5e], 3, 3); // MCOPY
for (let t = 0; t <= 4; t++) define([0xa0 + t], 2 + t, 375);
define([0xf3, 0xfd], 2, 0); // RETURN REVERT
define([0xf1], 7, 0); // CALL (all of its gas is dynamic)
define([0xf4, 0xfa], 6, 0); // DELEGATECALL STATICCALL
