// What a tracer sees of one transaction's execution on @ethereumjs (the EVM's `step`,
// `beforeMessage` and `afterMessage` events) and how it reports the whole transaction. Tracers
// only record: they never change execution, and one that records too much asks the runner to stop
// (`tooLarge`) rather than grow without bound.
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { StateManagerInterface } from '@ethereumjs/common';

/** The transaction's end as geth's tracers see it (OnTxEnd). */
export interface TxEnd {
  /** gas the transaction used, intrinsic gas included and the refund taken off (the receipt's gasUsed) */
  gasUsed: bigint;
  /** the transaction's gas limit */
  gasLimit: bigint;
  returnValue: Uint8Array;
  /** @ethereumjs's error name when execution failed ('revert', 'out of gas', …) */
  error?: string;
}

export interface EvmTracer {
  /** true: `step` returns a promise the EVM waits for (it reads state); false keeps steps synchronous (faster) */
  readonly readsState?: boolean;
  /** before the transaction changes anything: the accounts it starts from (sender, recipient, coinbase; geth's OnTxStart) */
  start?(state: StateManagerInterface, accounts: Uint8Array[]): Promise<void>;
  step?(step: InterpreterStep): void | Promise<void>;
  enter?(message: Message): void;
  exit?(result: EVMResult): void;
  /** after the transaction ran, on the state it left (before the runner discards it), with the contracts it created */
  end?(state: StateManagerInterface, created: Uint8Array[]): Promise<void>;
  /** set by the tracer once its output passed its byte cap: the runner halts execution, the API answers the reason */
  tooLarge?: string;
  /** the tracer's answer, in geth's shape */
  result(end: TxEnd): unknown;
}

/** Most bytes of output one trace may gather (about: counted as JSON text) before it is halted with an error. */
export const MAX_TRACE_BYTES = 16 * 1024 * 1024;

/** geth's error texts for @ethereumjs's error names, where they differ. */
export function gethError(error: string): string {
  return error === 'revert' ? 'execution reverted' : error;
}
