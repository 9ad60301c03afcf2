// All handler groups, built once at start-up over the chain core. `eth` serves eth_ and chain_.
import type { ApiContext } from './context.ts';
import { stateHandlers } from './eth-state.ts';
import { blockHandlers } from './eth-blocks.ts';
import { callHandlers, type CallLimits } from './eth-call.ts';
import { submitHandlers } from './eth-submit.ts';
import { poolViewHandlers, txpoolHandlers } from './txpool.ts';
import { personalHandlers } from './personal.ts';
import { irisHandlers } from './iris.ts';
import { adminHandlers, netHandlers, web3Handlers } from './node-info.ts';
import { filterHandlers } from './filters.ts';

export function buildHandlers(ctx: ApiContext, limits: CallLimits) {
  const { signSend: _signSend, submit: _submit, ...submit } = submitHandlers(ctx);
  return {
    eth: {
      ...stateHandlers(ctx),
      ...blockHandlers(ctx),
      ...callHandlers(ctx, limits),
      ...submit,
      ...poolViewHandlers(ctx),
      ...filterHandlers(ctx),
    },
    personal: personalHandlers(ctx),
    iris: irisHandlers(ctx),
    admin: adminHandlers(ctx),
    txpool: txpoolHandlers(ctx),
    net: netHandlers(ctx),
    web3: web3Handlers(ctx),
  };
}
