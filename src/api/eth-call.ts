// eth_call and eth_estimateGas: read-only execution against a block's state.
import type { ApiContext } from './context.ts';
import type { CallContext } from '../exec/call.ts';
import { bytesToHex, quantity } from '../util/hex.ts';
import { blockNumberOf, stateHeader, type BlockParam } from './block-param.ts';
import { toCallRequest, type CallObject } from './call-object.ts';
import { revertError, serverError, translate } from './errors.ts';

export interface CallLimits {
  /** most gas a call or an estimate may burn (geth's --rpc.gascap); keeps one request from stalling the node */
  gasCap: bigint;
}

export function callHandlers({ core }: ApiContext, limits: CallLimits) {
  const { chain } = core;

  const contextFor = (block: BlockParam): CallContext => {
    const pending = blockNumberOf(chain, block) === 'pending';
    const header = stateHeader(chain, block);
    const now = BigInt(Math.floor(Date.now() / 1000));
    return {
      stateRoot: header.stateRoot,
      number: pending ? header.number + 1n : header.number,
      timestamp: pending ? (now > header.timestamp ? now : header.timestamp) : header.timestamp,
      coinbase: core.nodeKey.address,
      gasLimit: header.gasLimit,
    };
  };
  const capped = (gas: bigint | undefined, blockGasLimit: bigint) => {
    const g = gas ?? blockGasLimit;
    return g < limits.gasCap ? g : limits.gasCap;
  };

  return {
    async call(tx: CallObject, block: BlockParam) {
      const req = toCallRequest(tx);
      const ctx = contextFor(block);
      const out = await core.calls.call(req, ctx, capped(req.gas, ctx.gasLimit)).catch(translate);
      if (out.success) return bytesToHex(out.returnValue);
      if (out.error === 'revert') throw revertError(out.returnValue);
      throw serverError(`execution failed: ${out.error}`);
    },

    async estimateGas(tx: CallObject, block?: BlockParam) {
      const req = toCallRequest(tx);
      const ctx = contextFor(block ?? 'pending');
      const result = await core.calls.estimate(req, ctx, capped(req.gas, ctx.gasLimit)).catch(translate);
      if ('gas' in result) return quantity(result.gas);
      if (result.failure.error === 'revert') throw revertError(result.failure.returnValue);
      throw serverError(`gas required exceeds allowance (${capped(req.gas, ctx.gasLimit)}): ${result.failure.error}`);
    },
  };
}
