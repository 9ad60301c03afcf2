// geth's default tracer, the struct logger (eth/tracers/logger): one entry per opcode executed, with
// the gas before it, its cost, the call depth (1 for the transaction's own frame) and, unless
// disabled, the stack, the memory, the return data of the last call and the storage the current
// contract touched so far (at SLOAD and SSTORE only). Values are written as execution-apis'
// OpcodeTransactionTrace spells them (0x-prefixed quantities and 32-byte words).
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { bytesToHex, quantity } from '../util/hex.ts';
import type { StructLog, TraceConfig } from '../../generated/types.ts';
import { gethError, MAX_TRACE_BYTES, type EvmTracer, type TxEnd } from '../exec/tracer.ts';

/** geth's struct logger options; `limit`: most entries recorded (0: none), execution goes on past it. */
export type StructLoggerOptions = Pick<TraceConfig, 'disableStack' | 'disableStorage' | 'enableMemory' | 'enableReturnData' | 'limit'>;

/** The call opcodes whose cost includes the gas they hand the callee (geth's callGas); @ethereumjs charges it on return. */
const FORWARDING = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);
/** EIP-150's stipend a value-carrying call adds for free: not part of the caller's cost */
const CALL_STIPEND = 2300n;

const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

/** The memory as 32-byte words (execution-apis: 0x-prefixed). */
function memoryWords(memory: Uint8Array): string[] {
  const out: string[] = [];
  for (let at = 0; at < memory.length; at += 32) out.push(bytesToHex(memory.subarray(at, at + 32)));
  return out;
}

export class StructLogger implements EvmTracer {
  tooLarge?: string;
  private readonly logs: StructLog[] = [];
  private bytes = 0;
  /** each contract's slots read or written so far (geth keeps them for the whole transaction) */
  private readonly storage = new Map<string, Map<string, string>>();
  /** per open frame: the last return data it received from a call */
  private readonly returnData: Uint8Array[] = [];
  /** an SLOAD's entry waits for the loaded value, on top of the stack at the next step */
  private pendingLoad: { log: StructLog; slots: Map<string, string>; slot: string } | undefined;
  private lastOp: StructLog | undefined;

  constructor(private readonly options: StructLoggerOptions = {}) {}

  step(e: InterpreterStep): void {
    this.settleLoad(e);
    const limit = this.options.limit ?? 0;
    if (this.tooLarge !== undefined || (limit > 0 && this.logs.length >= limit)) return;
    const op = e.opcode.name;
    const log: StructLog = { pc: e.pc, op, gas: Number(e.gasLeft), gasCost: Number(e.opcode.dynamicFee ?? BigInt(e.opcode.fee)), depth: e.depth + 1 };
    if (!this.options.disableStack) log.stack = e.stack.map((v) => quantity(v));
    if (this.options.enableMemory) log.memory = memoryWords(e.memory);
    if (this.options.enableReturnData) {
      const data = this.returnData[this.returnData.length - 1];
      if (data !== undefined && data.length > 0) log.returnData = bytesToHex(data);
    }
    if (!this.options.disableStorage && (op === 'SLOAD' || op === 'SSTORE') && e.stack.length > 0) {
      const address = e.address.toString();
      let slots = this.storage.get(address);
      if (!slots) this.storage.set(address, (slots = new Map()));
      const slot = word(e.stack[e.stack.length - 1]!);
      if (op === 'SSTORE' && e.stack.length > 1) {
        slots.set(slot, word(e.stack[e.stack.length - 2]!));
        log.storage = Object.fromEntries(slots);
      } else if (op === 'SLOAD') this.pendingLoad = { log, slots, slot };
    }
    if (e.gasRefund > 0n) log.refund = Number(e.gasRefund);
    // the entry's JSON length, near enough: fixed fields, then each string with its quotes and comma
    this.bytes += 72 + op.length + (log.returnData?.length ?? 0) + (log.memory?.length ?? 0) * 69 + (log.storage ? Object.keys(log.storage).length * 138 : 0);
    for (const item of log.stack ?? []) this.bytes += item.length + 3;
    if (this.bytes > MAX_TRACE_BYTES) {
      this.tooLarge = `trace exceeds ${MAX_TRACE_BYTES} bytes of struct logs at step ${this.logs.length}: use limit, disableStack, disableStorage or a narrower trace`;
      return;
    }
    this.logs.push(log);
    this.lastOp = log;
  }

  enter(message: Message): void {
    const caller = this.lastOp;
    if (message.depth > 0 && caller?.depth === message.depth && FORWARDING.has(caller.op)) {
      const stipend = message.value > 0n && (caller.op === 'CALL' || caller.op === 'CALLCODE') ? CALL_STIPEND : 0n;
      caller.gasCost += Number(message.gasLimit - stipend);
    }
    this.returnData.push(new Uint8Array(0));
  }

  exit(result: EVMResult): void {
    const depth = this.returnData.length;
    this.returnData.pop();
    if (this.returnData.length > 0) this.returnData[this.returnData.length - 1] = result.execResult.returnValue;
    const error = result.execResult.exceptionError?.error;
    // the failing opcode's entry names the fault (geth's OnFault); a REVERT is no fault
    if (error !== undefined && error !== 'revert' && this.lastOp?.depth === depth && this.lastOp.error === undefined) this.lastOp.error = gethError(error);
  }

  /** The SLOAD just run left its value on top of the stack. */
  private settleLoad(e: InterpreterStep): void {
    const load = this.pendingLoad;
    if (load === undefined) return;
    this.pendingLoad = undefined;
    const value = e.stack[e.stack.length - 1];
    // an SLOAD that ran out of gas ended its frame: the next step is the caller's
    if (value === undefined || e.depth + 1 !== load.log.depth) return;
    load.slots.set(load.slot, word(value));
    load.log.storage = Object.fromEntries(load.slots);
    this.bytes += load.slots.size * 138;
  }

  result(end: TxEnd) {
    return { gas: Number(end.gasUsed), failed: end.error !== undefined, returnValue: bytesToHex(end.returnValue), structLogs: this.logs };
  }
}
