// A transaction as the pool and the executor hold it: decoded once, sender recovered once.
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import type { Common } from '@ethereumjs/common';
import { Address } from '@ethereumjs/util';
import { keccak256 } from '../crypto/keccak.ts';
import { bytesToHex } from '../util/hex.ts';

export interface PooledTx {
  readonly hash: Uint8Array;
  readonly hashHex: string;
  readonly raw: Uint8Array;
  readonly tx: TypedTransaction;
  readonly sender: Uint8Array;
  readonly senderHex: string;
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  /** legacy gas price, or max fee per gas for EIP-1559 transactions (base fee is always 0) */
  readonly gasPrice: bigint;
  /** max priority fee per gas (EIP-1559), else the gas price: geth's replacement rule bumps both */
  readonly tipCap: bigint;
  /** gasLimit × gasPrice + value: what the sender's balance must cover */
  readonly cost: bigint;
  readonly arrivedAt: number;
}

export class TxDecodeError extends Error {}

/**
 * Decodes a signed transaction and recovers its sender (the expensive step, done once). The sender,
 * public key and hash are pinned on the transaction, so execution, receipts and blocks never
 * recover or hash it again (@ethereumjs recomputes the address from the public key on every call).
 */
export function decodePooledTx(raw: Uint8Array, common: Common): PooledTx {
  let tx: TypedTransaction;
  try {
    tx = createTxFromRLP(raw, { common, freeze: false });
  } catch (e) {
    throw new TxDecodeError(`invalid transaction encoding: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!tx.isSigned()) throw new TxDecodeError('transaction is not signed');
  let sender: Uint8Array;
  try {
    tx.cache.senderPubKey = tx.getSenderPublicKey();
    sender = keccak256(tx.cache.senderPubKey).subarray(12); // native keccak; @ethereumjs's is JavaScript
  } catch {
    throw new TxDecodeError('invalid transaction signature');
  }
  const hash = keccak256(raw);
  tx.cache.hash = hash;
  const senderAddress = new Address(sender);
  Object.defineProperty(tx, 'getSenderAddress', { value: () => senderAddress });
  // frozen as createTxFromRLP would have left it: @ethereumjs only reads its caches on frozen transactions
  Object.freeze(tx);
  const fees = tx as unknown as { gasPrice?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint };
  const gasPrice = fees.gasPrice ?? fees.maxFeePerGas!;
  return {
    hash,
    hashHex: bytesToHex(hash),
    raw,
    tx,
    sender,
    senderHex: bytesToHex(sender),
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    gasPrice,
    tipCap: fees.maxPriorityFeePerGas ?? gasPrice,
    cost: tx.gasLimit * gasPrice + tx.value,
    arrivedAt: Date.now(),
  };
}
