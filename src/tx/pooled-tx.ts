// A transaction as the pool and the executor hold it: decoded once, sender recovered once.
import { Capability, createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import type { Common } from '@ethereumjs/common';
import { Address, SECP256K1_ORDER_DIV_2, bigIntToUnpaddedBytes } from '@ethereumjs/util';
import { keccak256 } from '../crypto/keccak.ts';
import { signingDigest } from './signing-digest.ts';
import { bytesToHex, padLeft } from '../util/hex.ts';
import { InvalidSignature, recoverHere, recoveryId } from '../crypto/secp256k1.ts';
import type { SignatureRecovery } from './signature-recovery.ts';
import { checkInitCodeSize, DECODE_OPTIONS } from './init-code.ts';

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
  /** EIP-2718 type (0: legacy) */
  readonly type: number;
  /** the recipient; undefined for a contract creation */
  readonly to: Address | undefined;
  readonly value: bigint;
  /** no data, no access list, type ≤ 2: the shape of a plain value transfer (src/exec/value-transfer.ts) */
  readonly plain: boolean;
  /** sent by a peer, not through this node's RPC: this node's journal does not keep it */
  fromPeer?: true;
}

export class TxDecodeError extends Error {}

const INVALID_SIGNATURE = 'invalid transaction signature';

/** A signed transaction decoded and checked, its sender not yet recovered. */
export interface SignedTx {
  readonly raw: Uint8Array;
  readonly tx: TypedTransaction;
  readonly hash: Uint8Array;
  /** what the sender signed, the signature r‖s and its recovery id: the input of recovery */
  readonly digest: Uint8Array;
  readonly rs: Uint8Array;
  readonly recid: number;
}

/** Decodes a signed transaction and checks its signature's form (all @ethereumjs's getSenderPublicKey checks before recovery). */
export function decodeSignedTx(raw: Uint8Array, common: Common): SignedTx {
  let tx: TypedTransaction;
  try {
    tx = createTxFromRLP(raw, { common, freeze: false, ...DECODE_OPTIONS });
    checkInitCodeSize(tx);
  } catch (e) {
    throw new TxDecodeError(`invalid transaction encoding: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!tx.isSigned()) throw new TxDecodeError('transaction is not signed');
  // EIP-2: a signature's mirror image (s above n/2) is refused, so a transaction has one hash
  if (tx.s! > SECP256K1_ORDER_DIV_2) throw new TxDecodeError(INVALID_SIGNATURE);
  const eip155ChainId = tx.supports(Capability.EIP155ReplayProtection) ? common.chainId() : undefined;
  const recid = recoveryId(tx.v!, eip155ChainId);
  if (recid === undefined) throw new TxDecodeError(INVALID_SIGNATURE);
  const rs = new Uint8Array(64);
  rs.set(padLeft(bigIntToUnpaddedBytes(tx.r!), 32), 0);
  rs.set(padLeft(bigIntToUnpaddedBytes(tx.s!), 32), 32);
  return { raw, tx, hash: keccak256(raw), digest: signingDigest(raw, eip155ChainId), rs, recid };
}

/**
 * Pins the sender's public key and address and the hash on a decoded transaction, so execution,
 * receipts and blocks never recover or hash it again (@ethereumjs recomputes the address from the
 * public key on every call).
 */
function pinned(tx: TypedTransaction, publicKey: Uint8Array, hash: Uint8Array, sender: Uint8Array): TypedTransaction {
  tx.cache.senderPubKey = publicKey;
  tx.cache.hash = hash;
  const senderAddress = new Address(sender);
  Object.defineProperty(tx, 'getSenderAddress', { value: () => senderAddress });
  // frozen as createTxFromRLP would have left it: @ethereumjs only reads its caches on frozen transactions
  Object.freeze(tx);
  return tx;
}

/** What a pooled transaction holds besides its @ethereumjs object: all that block execution reads. */
export interface TxFacts {
  hash: Uint8Array;
  publicKey: Uint8Array;
  sender: Uint8Array;
  type: number;
  nonce: bigint;
  gasLimit: bigint;
  gasPrice: bigint;
  tipCap: bigint;
  value: bigint;
  /** the recipient's 20 bytes; null for a contract creation */
  to: Uint8Array | null;
  plain: boolean;
}

function factsOf(tx: TypedTransaction, hash: Uint8Array, publicKey: Uint8Array, sender: Uint8Array): TxFacts {
  const fees = tx as unknown as { gasPrice?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint; accessList?: unknown[] };
  const gasPrice = fees.gasPrice ?? fees.maxFeePerGas!;
  return {
    hash,
    publicKey,
    sender,
    type: tx.type,
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    gasPrice,
    tipCap: fees.maxPriorityFeePerGas ?? gasPrice,
    value: tx.value,
    to: tx.to?.bytes ?? null,
    plain: tx.type <= 2 && tx.data.length === 0 && (fees.accessList?.length ?? 0) === 0,
  };
}

function pooledOf(raw: Uint8Array, f: TxFacts, tx: () => TypedTransaction): PooledTx {
  return {
    hash: f.hash,
    hashHex: bytesToHex(f.hash),
    raw,
    get tx() {
      return tx();
    },
    sender: f.sender,
    senderHex: bytesToHex(f.sender),
    nonce: f.nonce,
    gasLimit: f.gasLimit,
    gasPrice: f.gasPrice,
    tipCap: f.tipCap,
    cost: f.gasLimit * f.gasPrice + f.value,
    arrivedAt: Date.now(),
    type: f.type,
    to: f.to === null ? undefined : new Address(f.to),
    value: f.value,
    plain: f.plain,
  };
}

/** The pooled form of a decoded transaction whose sender's public key is known. */
export function pooledTx({ raw, tx, hash }: SignedTx, publicKey: Uint8Array): PooledTx {
  const sender = keccak256(publicKey).subarray(12); // native keccak; @ethereumjs's is JavaScript
  const done = pinned(tx, publicKey, hash, sender);
  return pooledOf(raw, factsOf(done, hash, publicKey, sender), () => done);
}

/**
 * Decodes and checks `raw` and recovers its sender on this thread, as decodePooledTx does, for
 * another thread (a recovery thread decoding a block's transactions): what the main thread needs,
 * cloneable, or the refusal in words.
 */
export function decodeTxFacts(raw: Uint8Array, common: Common): TxFacts | string {
  try {
    const signed = decodeSignedTx(raw, common);
    let publicKey: Uint8Array;
    try {
      publicKey = recoverHere(signed.digest, signed.rs, signed.recid);
    } catch {
      return INVALID_SIGNATURE;
    }
    return factsOf(signed.tx, signed.hash, publicKey, keccak256(publicKey).subarray(12));
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * The pooled form of a transaction another thread decoded and checked (decodeTxFacts): its
 * @ethereumjs object is made only when something asks for it — block execution of plain transfers
 * and receipts never does (decoding was ~35 µs of the event loop a transaction in a sync, measured).
 */
export function pooledFromFacts(raw: Uint8Array, facts: TxFacts, common: Common): PooledTx {
  let tx: TypedTransaction | undefined;
  return pooledOf(raw, facts, () => (tx ??= pinned(createTxFromRLP(raw, { common, freeze: false, ...DECODE_OPTIONS }), facts.publicKey, facts.hash, facts.sender)));
}

/** A recovery that found no key is the transaction's fault; anything else is the node's. */
function refusal(e: unknown): unknown {
  return e instanceof InvalidSignature ? new TxDecodeError(INVALID_SIGNATURE) : e;
}

/** Decodes a signed transaction and recovers its sender on this thread. */
export function decodePooledTx(raw: Uint8Array, common: Common): PooledTx {
  const signed = decodeSignedTx(raw, common);
  let publicKey: Uint8Array;
  try {
    publicKey = recoverHere(signed.digest, signed.rs, signed.recid);
  } catch (e) {
    throw refusal(e);
  }
  return pooledTx(signed, publicKey);
}

/** Decodes a signed transaction and recovers its sender with `recovery` (on a recovery thread when it has them). */
export async function decodePooledTxWith(raw: Uint8Array, common: Common, recovery: SignatureRecovery): Promise<PooledTx> {
  const signed = decodeSignedTx(raw, common);
  let publicKey: Uint8Array;
  try {
    publicKey = await recovery.recover(signed.digest, signed.rs, signed.recid);
  } catch (e) {
    throw refusal(e);
  }
  return pooledTx(signed, publicKey);
}
