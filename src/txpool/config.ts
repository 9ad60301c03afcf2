// Pool limits and rules, with geth's defaults and flag names (--txpool.*).

export interface TxPoolConfig {
  /** a replacement (same sender and nonce) must pay at least this many percent more (--txpool.pricebump) */
  priceBump: number;
  /** executable transactions per account that the global pending limit never takes away (--txpool.accountslots) */
  accountSlots: number;
  /** executable transactions in total before accounts above accountSlots are trimmed (--txpool.globalslots) */
  globalSlots: number;
  /** non-executable transactions per account (--txpool.accountqueue) */
  accountQueue: number;
  /** non-executable transactions in total (--txpool.globalqueue) */
  globalQueue: number;
  /** how long an account's queued transactions may wait without progress, in ms (--txpool.lifetime) */
  lifetimeMs: number;
}

export const DEFAULT_TXPOOL_CONFIG: Readonly<TxPoolConfig> = {
  priceBump: 10,
  accountSlots: 16,
  globalSlots: 4096,
  accountQueue: 64,
  globalQueue: 1024,
  lifetimeMs: 3 * 60 * 60 * 1000,
};

/** The transaction journal's file in the datadir (geth's --txpool.journal default) and how often it is rewritten (--txpool.rejournal). */
export const DEFAULT_TX_JOURNAL = 'transactions.rlp';
export const DEFAULT_REJOURNAL_MS = 60 * 60 * 1000;
