// Core chain records. Byte strings are Uint8Array, integers bigint; no wire encoding here.
import type { Header } from './header.ts';

/** [address, topics, data] */
export type LogRecord = [Uint8Array, Uint8Array[], Uint8Array];

export interface StoredReceipt {
  status: 0 | 1;
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
  logs: LogRecord[];
  contractAddress: Uint8Array | null;
  from: Uint8Array;
  to: Uint8Array | null;
  type: number;
  effectiveGasPrice: bigint;
}

export interface BlockRecord {
  hash: Uint8Array;
  header: Header;
  /** signed transaction serializations (legacy RLP or typed envelope) */
  txs: Uint8Array[];
  /** sender of each transaction, recovered once at admission */
  senders: Uint8Array[];
  /** hash of each transaction where already known (a block sealed here: admission hashed them); else computed at commit */
  txHashes?: Uint8Array[];
}
