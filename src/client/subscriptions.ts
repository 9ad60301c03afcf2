// What each eth_subscribe kind delivers (openrpc.json, SubscriptionNotification): the item type
// a subscribe() listener receives. `satisfies` makes a new kind in the document a type error here.
import type { BlockHeader, Bytes32, Log, SubscriptionKind } from '../../generated/types.ts';

export interface SubscriptionItems {
  /** One header per sealed block. */
  newHeads: BlockHeader;
  /** Each log matching the subscription's filter, as its block is sealed. */
  logs: Log;
  /** The hash of each transaction that becomes pending. */
  newPendingTransactions: Bytes32;
}

// Compile-time check only: every kind of the document has an item type and no other key exists.
export type CheckedKinds = [SubscriptionKind] extends [keyof SubscriptionItems] ? ([keyof SubscriptionItems] extends [SubscriptionKind] ? true : never) : never;
export const subscriptionKindsCovered: CheckedKinds = true;
