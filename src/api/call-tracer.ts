// geth's callTracer (eth/tracers/native/call.go): the transaction as a tree of call frames, each
// with its type (the opcode that made it), caller, callee, gas given and used, input and output,
// the error and decoded revert reason of a failed frame and, with `withLog`, the logs it emitted
// (`position`: how many of its calls came before each). A failed frame's logs, and its calls'
// logs, are dropped: they never happened. `onlyTopCall` records the transaction's frame alone.
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { bytesToHex, quantity } from '../util/hex.ts';
import { gethError, MAX_TRACE_BYTES, type EvmTracer, type TxEnd } from '../exec/tracer.ts';
import { decodeRevertReason } from './revert.ts';

export interface CallTracerOptions {
  onlyTopCall?: boolean;
  withLog?: boolean;
}

export interface CallLog {
  address: string;
  topics: string[];
  data: string;
  position: string;
}

/** generated CallFrame's fields in geth's order (gen_callframe_json.go), its nested frames typed (the schema checks them one level deep). */
export interface CallFrame {
  type: string;
  from: string;
  gas: string;
  gasUsed: string;
  to?: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
  logs?: CallLog[];
  value?: string;
}

const FRAME_OPS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']);

export class CallTracer implements EvmTracer {
  tooLarge?: string;
  private readonly open: CallFrame[] = [];
  private top: CallFrame | undefined;
  /** frames open, recorded or not */
  private depth = 0;
  /** the last opcode run: the one that opened the next frame */
  private lastOp = '';
  private bytes = 0;

  constructor(private readonly options: CallTracerOptions = {}) {}

  step(e: InterpreterStep): void {
    this.lastOp = e.opcode.name;
    if (!this.options.withLog || !e.opcode.name.startsWith('LOG')) return;
    const frame = this.recording(e.depth);
    const stack = e.stack;
    const offset = Number(stack[stack.length - 1] ?? 0n);
    const size = Number(stack[stack.length - 2] ?? 0n);
    // a log this large cannot pay for its memory: the step fails, and there is nothing to record
    if (frame === undefined || size > MAX_TRACE_BYTES) return;
    const topics: string[] = [];
    for (let i = 0; i < Number(e.opcode.name.slice(3)); i++) topics.push(`0x${(stack[stack.length - 3 - i] ?? 0n).toString(16).padStart(64, '0')}`);
    // memory not yet grown to cover the data reads as zeros, as the opcode will
    const data = new Uint8Array(size);
    data.set(e.memory.subarray(offset, offset + size));
    this.grow(size * 2 + topics.length * 70 + 120);
    (frame.logs ??= []).push({ address: e.address.toString(), topics, data: bytesToHex(data), position: quantity(frame.calls?.length ?? 0) });
  }

  enter(message: Message): void {
    if (this.depth++ > 0 && this.options.onlyTopCall) return;
    const parent = this.open[this.open.length - 1];
    const type = message.depth === 0 ? (message.to === undefined ? 'CREATE' : 'CALL') : FRAME_OPS.has(this.lastOp) ? this.lastOp : 'CALL';
    const frame: CallFrame = {
      type,
      // the running contract makes the call (under DELEGATECALL @ethereumjs names its caller instead)
      from: parent?.to ?? message.caller.toString(),
      gas: quantity(message.gasLimit),
      gasUsed: '0x0',
      to: message.to === undefined ? undefined : message.codeAddress.toString(),
      input: bytesToHex(message.data),
    };
    if (type !== 'STATICCALL') frame.value = quantity(message.value);
    this.grow(200 + message.data.length * 2);
    if (parent) (parent.calls ??= []).push(frame);
    this.open.push(frame);
  }

  exit(result: EVMResult): void {
    if (--this.depth > 0 && this.options.onlyTopCall) return;
    const frame = this.open.pop()!;
    if (this.open.length === 0) this.top = frame;
    const ex = result.execResult;
    frame.gasUsed = quantity(ex.executionGasUsed);
    if (result.createdAddress && frame.to === undefined) frame.to = result.createdAddress.toString();
    const error = ex.exceptionError?.error;
    if (error === undefined) {
      if (ex.returnValue.length > 0) frame.output = bytesToHex(ex.returnValue);
      this.grow(ex.returnValue.length * 2);
      return;
    }
    frame.error = gethError(error);
    if (frame.type === 'CREATE' || frame.type === 'CREATE2') delete frame.to;
    dropLogs(frame);
    if (error !== 'revert' || ex.returnValue.length === 0) return;
    frame.output = bytesToHex(ex.returnValue);
    const reason = decodeRevertReason(ex.returnValue);
    if (reason !== undefined) frame.revertReason = reason;
  }

  /** The frame a step at @ethereumjs depth `depth` belongs to, if it is recorded. */
  private recording(depth: number): CallFrame | undefined {
    return this.open.length === depth + 1 ? this.open[depth] : undefined;
  }

  private grow(bytes: number): void {
    this.bytes += bytes;
    if (this.bytes > MAX_TRACE_BYTES && this.tooLarge === undefined) this.tooLarge = `trace exceeds ${MAX_TRACE_BYTES} bytes of call frames: use onlyTopCall or a narrower trace`;
  }

  result(end: TxEnd): CallFrame {
    const top = this.top ?? this.open[0];
    if (top === undefined) throw new Error('callTracer saw no call');
    // the transaction's frame reports the transaction's gas: its limit and what the receipt says it used
    top.gas = quantity(end.gasLimit);
    top.gasUsed = quantity(end.gasUsed);
    return top;
  }
}

function dropLogs(frame: CallFrame): void {
  delete frame.logs;
  for (const call of frame.calls ?? []) dropLogs(call);
}
