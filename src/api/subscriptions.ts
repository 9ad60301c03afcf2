// eth_subscribe / eth_unsubscribe (and chain_): geth-style push subscriptions on a WebSocket
// connection, fed by the same fan-out as the installed filters (FilterService in ./filters.ts).
// They end with unsubscribe, when their connection closes, or when their client stops reading —
// never by the polling timeout.
import type { CallContext } from '../../generated/handlers.ts';
import type * as T from '../../generated/types.ts';
import type { FilterKind } from '../filters/filter-manager.ts';
import type { FilterService } from './filters.ts';
import { invalidParams } from './errors.ts';

const KIND: Record<T.SubscriptionKind, FilterKind> = { newHeads: 'blocks', logs: 'logs', newPendingTransactions: 'pendingTxs' };

export function subscriptionHandlers(svc: FilterService) {
  return {
    subscribe(kind: T.SubscriptionKind, options: T.FilterOptions | undefined, ctx: CallContext) {
      if (kind !== 'logs' && options !== undefined) throw invalidParams(`invalid argument 1 (options): only the logs subscription takes filter options, not ${kind}`);
      const spec = kind === 'logs' ? svc.liveSpec(options ?? {}, '1 (options)') : undefined;
      return svc.subscribe(KIND[kind], spec, ctx);
    },
    unsubscribe: (subscriptionId: string, ctx: CallContext) => svc.unsubscribe(subscriptionId, ctx),
  };
}
