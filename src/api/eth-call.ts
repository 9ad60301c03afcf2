// eth_call and eth_estimateGas: read-only execution against a block's state.
import type { ApiContext } from './context.ts';
import type { ChainCore } from '../core/core.ts';
import { CallTimeout, type CallContext } from '../exec/call.ts';
import { bytesToHex, hexToBytes, quantity } from '../util/hex.ts';
import { blockNumberOf, blockRefOf, stateHeaderOf, type BlockRef } from './block-param.ts';
import { toCallRequest, type CallObject } from './call-object.ts';
import { invalidParams, revertError, serverError, translate } from './errors.ts';
import { accessListEntries, declaredAccessList, findAccessList } from './access-list.ts';
import type { AccessListEntry, AccessListResult, BlockOverrides, StateOverrides } from '../../generated/types.ts';
import { toStateOverrides } from './state-override-param.ts';

export interface CallLimits {
  /** most gas a call or an estimate may burn (geth's --rpc.gascap); keeps one request from stalling the node */
  gasCap: bigint;
  /** most time one eth_call or a whole eth_estimateGas may take (geth's --rpc.evmtimeout; 0: none; default 5 s) */
  evmTimeoutMs?: number;
}

export const DEFAULT_EVM_TIMEOUT_MS = 5000;

/** A duration as Go prints it (geth's timeout message): 5s, 1.5s, 300ms. */
export function goDuration(ms: number): string {
  return ms >= 1000 ? `${ms / 1000}s` : `${ms}ms`;
}

/** The context a call runs in on `block`'s state: 'pending' is the next block on the head's state, timed now. */
export function callContext(core: ChainCore, block: BlockRef): CallContext {
  const ref = blockRefOf(block);
  const pending = 'number' in ref && blockNumberOf(core.chain, ref.number) === 'pending';
  const header = stateHeaderOf(core.chain, block);
  const now = BigInt(Math.floor(Date.now() / 1000));
  return {
    stateRoot: header.stateRoot,
    number: pending ? header.number + 1n : header.number,
    timestamp: pending ? (now > header.timestamp ? now : header.timestamp) : header.timestamp,
    coinbase: core.nodeKey.address,
    gasLimit: header.gasLimit,
  };
}

/** BlockOverrides fields a call context has no place for (eth_simulateV1 takes them). */
const UNSUPPORTED_BLOCK_OVERRIDES = ['prevRandao', 'baseFeePerGas', 'withdrawals', 'blobBaseFee'] as const;

/**
 * geth's fourth parameter: the block fields the call sees instead of the block's. They are part of
 * the context, so the view interpreter and the call-result cache (keyed by the context) see them too.
 */
export function withBlockOverrides(ctx: CallContext, o: BlockOverrides | null | undefined, name = 'blockOverrides'): CallContext {
  if (o == null) return ctx;
  for (const field of UNSUPPORTED_BLOCK_OVERRIDES) {
    if (o[field] != null) throw invalidParams(`${name}: ${field} is not supported by this method; eth_simulateV1 takes it`);
  }
  return {
    ...ctx,
    number: o.number != null ? BigInt(o.number) : ctx.number,
    timestamp: o.time != null ? BigInt(o.time) : ctx.timestamp,
    gasLimit: o.gasLimit != null ? BigInt(o.gasLimit) : ctx.gasLimit,
    coinbase: o.feeRecipient != null ? hexToBytes(o.feeRecipient) : ctx.coinbase,
  };
}

/** The gas a call may burn: what it asks (default the block gas limit), at most --rpc.gascap. */
export function cappedGas(limits: CallLimits, gas: bigint | undefined, blockGasLimit: bigint): bigint {
  const g = gas ?? blockGasLimit;
  return g < limits.gasCap ? g : limits.gasCap;
}

export function callHandlers({ core }: ApiContext, limits: CallLimits) {
  const contextFor = (block: BlockRef) => callContext(core, block);
  const capped = (gas: bigint | undefined, blockGasLimit: bigint) => cappedGas(limits, gas, blockGasLimit);
  // an estimate is for a transaction, which the chain refuses above its per-transaction limit
  const estimateCap = async (gas: bigint | undefined, blockGasLimit: bigint) => {
    const g = capped(gas, blockGasLimit);
    const { txGasLimit } = await core.headParams();
    return g < txGasLimit ? g : txGasLimit;
  };
  const timeoutMs = limits.evmTimeoutMs ?? DEFAULT_EVM_TIMEOUT_MS;
  const deadline = () => (timeoutMs > 0 ? performance.now() + timeoutMs : Infinity);
  const failed = (e: unknown): never => {
    if (e instanceof CallTimeout) throw serverError(`execution aborted (timeout = ${goDuration(timeoutMs)})`);
    return translate(e);
  };

  return {
    async call(tx: CallObject, block: BlockRef, stateOverrides?: StateOverrides | null, blockOverrides?: BlockOverrides | null) {
      const req = toCallRequest(tx);
      const overrides = toStateOverrides(stateOverrides, core.calls.precompileAddresses());
      const ctx = withBlockOverrides(contextFor(block), blockOverrides);
      const out = await core.calls.call(req, ctx, capped(req.gas, ctx.gasLimit), deadline(), overrides).catch(failed);
      if (out.success) return bytesToHex(out.returnValue);
      if (out.error === 'revert') throw revertError(out.returnValue);
      throw serverError(`execution failed: ${out.error}`);
    },

    /** geth's answer: the list and the gas with it, and the failure as `error` rather than an RPC error */
    async createAccessList(tx: CallObject & { accessList?: AccessListEntry[] | null }, block?: BlockRef): Promise<AccessListResult> {
      const req = toCallRequest(tx);
      const ctx = contextFor(block);
      const found = await findAccessList(core.calls, req, ctx, capped(req.gas, ctx.gasLimit), declaredAccessList(tx.accessList), deadline()).catch(failed);
      const { outcome } = found.trace;
      const error = outcome.success ? undefined : outcome.error === 'revert' ? 'execution reverted' : outcome.error;
      return { accessList: accessListEntries(found.list), gasUsed: quantity(found.gasUsed), ...(error !== undefined ? { error } : {}) };
    },

    async estimateGas(tx: CallObject, block?: BlockRef, stateOverrides?: StateOverrides | null, blockOverrides?: BlockOverrides | null) {
      const req = toCallRequest(tx);
      const overrides = toStateOverrides(stateOverrides, core.calls.precompileAddresses());
      const ctx = withBlockOverrides(contextFor(block ?? 'pending'), blockOverrides);
      const cap = await estimateCap(req.gas, ctx.gasLimit);
      const result = await core.calls.estimate(req, ctx, cap, deadline(), overrides).catch(failed);
      if ('gas' in result) return quantity(result.gas);
      if (result.failure.error === 'revert') throw revertError(result.failure.returnValue);
      throw serverError(`gas required exceeds allowance (${cap}): ${result.failure.error}`);
    },
  };
}
