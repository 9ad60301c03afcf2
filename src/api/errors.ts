// Core failures → JSON-RPC errors (DESIGN D7). Core modules throw their own error classes; the
// handlers translate here so the core never learns about JSON-RPC.
import { RpcError, executionReverted, invalidParams, serverError } from '../rpc/errors.ts';
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
  if (e instanceof TxRejected || e instanceof PoolError || e instanceof CallError || e instanceof MissingTrieNodeError) throw serverError(e.message);
  throw e;
}

/**
 * The group's handlers with their failures passed through translate: state is read under almost
 * every method, and a damaged database (MissingTrieNodeError) must answer geth's -32000 "missing
 * trie node" wherever it is met, never an internal error or a wrong value. Synchronous handlers
 * stay synchronous.
 */
export function translated<G extends object>(group: G): G {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(group)) {
    if (typeof fn !== 'function') {
      out[name] = fn;
      continue;
    }
    out[name] = function (this: unknown, ...args: unknown[]) {
      try {
        const r = fn.apply(this, args);
        return r instanceof Promise ? r.catch(translate) : r;
      } catch (e) {
        translate(e);
      }
    };
  }
  return out as G;
}
