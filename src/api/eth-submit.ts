// Submitting and node-side signing: sendRawTransaction, and for keys the node holds (unlocked),
// accounts, sign, signTransaction and sendTransaction, with missing fields filled as geth does.
import type { ApiContext } from './context.ts';
import { bytesToHex, hexToBytes, quantity } from '../util/hex.ts';
import { serverError, translate } from './errors.ts';
import { signLegacyTx, signMessage } from '../accounts/signing.ts';
import type { LegacyTx } from '@ethereumjs/tx';

/** The spec's default gas for sendTransaction (unused gas is refunded by execution). */
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

export function formatSignedTx(tx: LegacyTx) {
  return {
    raw: bytesToHex(tx.serialize()),
    tx: {
      nonce: quantity(tx.nonce),
      gasPrice: quantity(tx.gasPrice),
      gas: quantity(tx.gasLimit),
      to: tx.to ? tx.to.toString() : null,
      value: quantity(tx.value),
      input: bytesToHex(tx.data),
      hash: bytesToHex(tx.hash()),
      v: quantity(tx.v!),
      r: quantity(tx.r!),
      s: quantity(tx.s!),
      type: quantity(tx.type),
      chainId: quantity(tx.common.chainId()),
    },
  };
}

export function submitHandlers({ core }: ApiContext) {
  const unlockedKey = (address: string): Uint8Array => {
    if (!core.keystore.has(address)) throw serverError(`unknown account ${address}`);
    const key = core.keystore.unlockedKey(address);
    if (!key) throw serverError(`authentication needed: account ${address} is locked (unlock it with personal_unlockAccount)`);
    return key;
  };

  /** Fills nonce (pool's next), gasPrice (eth_gasPrice), gas (spec default) and signs. */
  const signSend = async (o: SendObject, key: Uint8Array): Promise<LegacyTx> => {
    const payload = o.input ?? o.data;
    return signLegacyTx(
      {
        nonce: o.nonce != null ? BigInt(o.nonce) : await core.pool.pendingNonce(o.from.toLowerCase()),
        gasPrice: o.gasPrice != null ? BigInt(o.gasPrice) : core.minGasPrice,
        gasLimit: o.gas != null ? BigInt(o.gas) : DEFAULT_TX_GAS,
        to: o.to ? hexToBytes(o.to) : undefined,
        value: o.value != null ? BigInt(o.value) : 0n,
        data: payload ? hexToBytes(payload) : new Uint8Array(0),
      },
      key,
      core.common,
    );
  };

  const submit = async (raw: Uint8Array) => bytesToHex((await core.submitRawTransaction(raw).catch(translate)).hash);

  return {
    accounts: () => core.keystore.accounts(),
    sendRawTransaction: (data: string) => submit(hexToBytes(data)),
    async sendTransaction(tx: SendObject) {
      return submit((await signSend(tx, unlockedKey(tx.from))).serialize());
    },
    async signTransaction(tx: SendObject) {
      return formatSignedTx(await signSend(tx, unlockedKey(tx.from)));
    },
    sign(address: string, message: string) {
      return bytesToHex(signMessage(hexToBytes(message), unlockedKey(address)));
    },
    /** internal: used by personal_ with a decrypted key */
    signSend,
    submit,
  };
}
