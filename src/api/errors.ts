// Core failures → JSON-RPC errors (D7). Core modules throw their own error classes; the
// handlers translate here so the core never learns about JSON-RPC.
import { RpcError, executionReverted, invalidParams, serverError } from '../codec/jsonrpc-errors.ts';
import { TxRejected } from '../txpool/admission.ts';
import { PoolError } from '../txpool/pool.ts';
import { CallError } from '../exec/call.ts';
import { MissingTrieNodeError } from '../state/trie-db.ts';
import { bytesToHex } from '../util/hex.ts';
import { decodeRevertReason } from './revert.ts';

export { invalidParams, serverError };

/** geth's shape: code 3, "execution reverted: <reason>", data = the revert bytes. */
export function revertError(returnValue: Uint8Array): RpcError {
  return executionReverted(bytesToHex(returnValue), decodeRevertReason(returnValue));
}

/** Maps the core's expected failures; anything else is rethrown (→ internal error). */
export function translate(e: unknown): never {
  if (e instanceof RpcError) throw e;
  if (e instanceof TxRejected || e instanceof PoolError || e instanceof CallError) throw serverError(e.message);
  throw e;
}

/**
 * The answer to a failure any method may meet, wherever state is read (the dispatcher's
 * `failureAnswer`): a damaged database answers geth's -32000 "missing trie node", never an internal
 * error or a wrong value.
 */
export function failureAnswer(e: unknown): RpcError | undefined {
  return e instanceof MissingTrieNodeError ? serverError(e.message) : undefined;
}
