// Messages between the main thread and a sender-recovery thread (signature-recovery.ts,
// recovery-thread.ts). One message carries a batch. Signatures are packed into flat byte arrays that
// are moved, not copied: n digests (32 bytes each), n signatures r‖s (64) and n recovery ids.
// Transactions (a block's, to import) go raw and come back decoded, checked and recovered.
import type { TxFacts } from './pooled-tx.ts';

export interface SignaturesRequest {
  id: number;
  kind: 'signatures';
  digests: Uint8Array;
  signatures: Uint8Array;
  recids: Uint8Array;
}

/** `raws`: signed transactions of a chain with id `chainId` (their Common is made from it) */
export interface TransactionsRequest {
  id: number;
  kind: 'transactions';
  chainId: bigint;
  raws: Uint8Array[];
}

export type RecoveryRequest = SignaturesRequest | TransactionsRequest;

/** keys: n uncompressed public keys without the 0x04 prefix (64 bytes each); ok[i] = 0 where none was recovered */
export interface SignaturesAnswer {
  id: number;
  keys: Uint8Array;
  ok: Uint8Array;
}

/** per transaction what the main thread needs, or why it is refused */
export interface TransactionsAnswer {
  id: number;
  txs: (TxFacts | string)[];
}

export type RecoveryAnswer = SignaturesAnswer | TransactionsAnswer;
