// All handler groups, built once at start-up over the chain core. `eth` serves eth_ and chain_.
import type { ApiContext } from './context.ts';
import { stateHandlers } from './eth-state.ts';
import { feeHandlers } from './eth-fees.ts';
import { blockHandlers } from './eth-blocks.ts';
import { sealingHandlers } from './eth-sealing.ts';
import { proofHandlers } from './eth-proof.ts';
import { callHandlers, type CallLimits } from './eth-call.ts';
import { simulateHandlers } from './eth-simulate.ts';
import { submitHandlers } from './eth-submit.ts';
import { poolViewHandlers, txpoolHandlers } from './txpool.ts';
import { personalHandlers } from './personal.ts';
import { irisHandlers } from './iris.ts';
import { adminHandlers, netHandlers, rpcHandlers, web3Handlers } from './node-info.ts';
import { FilterService, filterHandlers, type FilterSetup } from './filters.ts';
import { subscriptionHandlers } from './subscriptions.ts';
import { debugHandlers } from './debug.ts';

/** `filters`: built by the caller when it reads them too (metrics); else from `filterSetup`. */
export function buildHandlers(ctx: ApiContext, limits: CallLimits, filterSetup: FilterSetup = {}, filters = new FilterService(ctx, filterSetup)) {
  const calls = callHandlers(ctx, limits);
  return {
    eth: {
      ...stateHandlers(ctx),
      ...feeHandlers(ctx),
      ...blockHandlers(ctx),
      ...sealingHandlers(ctx),
      ...proofHandlers(ctx),
      ...calls,
      ...simulateHandlers(ctx, limits),
      ...submitHandlers(ctx, (tx) => calls.estimateGas(tx)),
      ...poolViewHandlers(ctx),
      ...filterHandlers(filters),
      ...subscriptionHandlers(filters),
    },
    personal: personalHandlers(ctx),
    iris: irisHandlers(ctx),
    admin: adminHandlers(ctx),
    txpool: txpoolHandlers(ctx),
    net: netHandlers(ctx),
    web3: web3Handlers(ctx),
    rpc: rpcHandlers(ctx),
    debug: debugHandlers(ctx, limits),
  };
}
