// Submitting and node-side signing: sendRawTransaction, and for accounts the node signs for
// (unlocked key files, opened Ledger devices) accounts, sign, signTransaction and sendTransaction,
// with missing fields filled as geth does. personal_ reuses the same path with a password.
import type { ApiContext } from './context.ts';
import type { CallObject } from './call-object.ts';
import type { ChainCore } from '../core/core.ts';
import { bytesToHex, hexToBytes, quantity, ZERO_ADDRESS } from '../util/hex.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { typedDataDigestParam } from './typed-data-param.ts';
import { invalidParams, serverError, translate } from './errors.ts';
import { AccountError } from '../accounts/manager.ts';
import { unsignedLegacyTx, type TxFields } from '../accounts/signing.ts';
import type { LegacyTx } from '@ethereumjs/tx';

/**
 * The spec's default gas for sendTransaction (unused gas is refunded by execution), capped at the
 * chain's per-transaction limit: the cap changes nothing a sender pays.
 */
export const DEFAULT_TX_GAS = 1_500_000_000n;

export interface SendObject {
  from: string;
  to?: string | null;
  gas?: string | null;
  gasPrice?: string | null;
  value?: string | null;
  nonce?: string | null;
  data?: string | null;
  input?: string | null;
}

/** raw and fields of a node-made transaction; an unsigned one (fillTransaction) has zero V, R, S, as geth shows it. */
export function formatLegacyTx(tx: LegacyTx) {
  const raw = tx.serialize();
  return {
    raw: bytesToHex(raw),
    tx: {
      nonce: quantity(tx.nonce),
      gasPrice: quantity(tx.gasPrice),
      gas: quantity(tx.gasLimit),
      to: tx.to ? tx.to.toString() : null,
      value: quantity(tx.value),
      input: bytesToHex(tx.data),
      hash: bytesToHex(keccak256(raw)),
      v: quantity(tx.v ?? 0n),
      r: quantity(tx.r ?? 0n),
      s: quantity(tx.s ?? 0n),
      type: quantity(tx.type),
      chainId: quantity(tx.common.chainId()),
    },
  };
}

const MAX_UINT64 = 2n ** 64n - 1n;
const MAX_UINT256 = 2n ** 256n - 1n;

/** A transaction field as a bigint (undefined when not given), refused over what a transaction can carry. */
function bounded(hex: string | null | undefined, field: string, max: bigint): bigint | undefined {
  if (hex == null) return undefined;
  const v = BigInt(hex);
  if (v > max) throw invalidParams(`invalid argument 0 (transaction): ${field} ${hex.length > 80 ? hex.slice(0, 80) + '…' : hex} is over the largest a transaction can carry (${quantity(max)})`);
  return v;
}

/** Account failures (unknown, locked, wrong password, device refused) → -32000 with their message. */
export function accountErrors(e: unknown): never {
  if (e instanceof AccountError) throw serverError(e.message);
  throw e;
}

/**
 * One send at a time per sender (geth's nonce lock): filling the nonce from the pool and
 * submitting must not interleave, or two concurrent sends would get the same nonce.
 */
const senderLocks = new WeakMap<ChainCore, Map<string, Promise<unknown>>>();

function withSenderLock<T>(core: ChainCore, sender: string, fn: () => Promise<T>): Promise<T> {
  let locks = senderLocks.get(core);
  if (!locks) senderLocks.set(core, (locks = new Map()));
  const before = locks.get(sender) ?? Promise.resolve();
  const run = before.then(fn, fn);
  const tail = run.catch(() => undefined);
  locks.set(sender, tail);
  void tail.then(() => {
    if (locks.get(sender) === tail) locks.delete(sender);
  });
  return run;
}

/** Signing and sending as an account the node signs for; shared by eth_, personal_ and resend. */
export function txSender({ core }: ApiContext) {
  const { accounts } = core;

  /** The payload: `input` (preferred) or `data`; both given must agree (geth's rule). */
  const payload = (o: SendObject): string | null | undefined => {
    if (o.input != null && o.data != null && o.input.toLowerCase() !== o.data.toLowerCase()) {
      throw invalidParams('invalid argument 0 (transaction): both "data" and "input" are set and not equal; use "input" to pass the payload');
    }
    return o.input ?? o.data;
  };

  /**
   * Fills nonce (the pool's next for the sender), gasPrice (eth_gasPrice) and gas (the spec's
   * default). Runs before any key is decrypted, so a field no transaction can carry is refused
   * before a password costs a key derivation.
   */
  const fill = async (o: SendObject): Promise<TxFields> => {
    const data = payload(o);
    // the schema bounds the 256-bit fields to 64 hex digits; what it lets through is checked here
    const gasPrice = o.gasPrice != null ? BigInt(o.gasPrice) : core.minGasPrice;
    const { txGasLimit } = await core.headParams();
    const gasLimit = bounded(o.gas, 'gas', MAX_UINT64) ?? (DEFAULT_TX_GAS < txGasLimit ? DEFAULT_TX_GAS : txGasLimit);
    if (gasPrice * gasLimit > MAX_UINT256) throw invalidParams('invalid argument 0 (transaction): gas × gasPrice is over 2^256-1');
    return {
      // EIP-2681: a nonce of 2^64-1 could never be followed by another
      nonce: bounded(o.nonce, 'nonce', MAX_UINT64 - 1n) ?? (await core.pool.pendingNonce(o.from.toLowerCase())),
      gasPrice,
      gasLimit,
      to: o.to ? hexToBytes(o.to) : undefined,
      // @ethereumjs refuses a value of 2^256-1 itself
      value: bounded(o.value, 'value', MAX_UINT256 - 1n) ?? 0n,
      data: data ? hexToBytes(data) : new Uint8Array(0),
    };
  };

  /**
   * Signs as `o.from`: with `password`, its key file decrypted by it; without, a key the node
   * holds unlocked or an open Ledger account.
   */
  const signAs = async (o: SendObject, password?: string): Promise<LegacyTx> => {
    payload(o);
    if (password === undefined) await accounts.requireSigner(o.from).catch(accountErrors);
    return accounts.signTx(o.from, await fill(o), password).catch(accountErrors);
  };

  /** `local`: the node signed it (geth's locals: the pool never evicts its sender); raw submissions are remote. */
  const submit = async (raw: Uint8Array, local = false) => bytesToHex((await core.submitRawTransaction(raw, local).catch(translate)).hash);

  /** Signs and submits under the sender's lock; a nonce already pending is replaced (the pool's rule). */
  const sendAs = (o: SendObject, password?: string): Promise<string> =>
    withSenderLock(core, o.from.toLowerCase(), async () => submit((await signAs(o, password)).serialize(), true));

  return { payload, fill, signAs, sendAs, submit };
}

/** `estimateGas`: eth_estimateGas, which fillTransaction asks for a gas limit as geth's does. */
export function submitHandlers(ctx: ApiContext, estimateGas: (tx: CallObject) => Promise<string>) {
  const { accounts } = ctx.core;
  const { payload, fill, signAs, sendAs, submit } = txSender(ctx);
  return {
    accounts: () => accounts.accounts(),
    sendRawTransaction: (data: string) => submit(hexToBytes(data)),
    sendTransaction: (tx: SendObject) => sendAs(tx),
    async signTransaction(tx: SendObject) {
      return formatLegacyTx(await signAs(tx));
    },
    /** geth: the transaction `sendTransaction` would sign, unsigned, with the estimated gas unless given; any sender (the zero address when none), no key needed */
    async fillTransaction(tx: Omit<SendObject, 'from'> & { from?: string | null }) {
      const o = { ...tx, from: tx.from ?? ZERO_ADDRESS };
      // geth estimates the gas of a transaction it fills (clients such as viem send what it answers);
      // eth_sendTransaction keeps Venachain's default
      const gas = o.gas ?? (await estimateGas({ from: o.from, to: o.to ?? undefined, value: o.value ?? undefined, gasPrice: o.gasPrice ?? undefined, data: payload(o) } as CallObject));
      return formatLegacyTx(unsignedLegacyTx(await fill({ ...o, gas }), ctx.core.common));
    },
    async sign(address: string, message: string) {
      return bytesToHex(await accounts.signText(address, hexToBytes(message)).catch(accountErrors));
    },
    async signTypedData_v4(address: string, typedData: unknown) {
      return bytesToHex(await accounts.signTypedData(address, typedDataDigestParam(typedData, 1)).catch(accountErrors));
    },
  };
}
