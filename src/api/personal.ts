// personal_: the accounts the node holds. Password-taking methods decrypt the key file with the
// given password whatever the lock state, and a wrong password never signs anything.
import { SECP256K1_ORDER } from '@ethereumjs/util';
import type { ApiContext } from './context.ts';
import { recoverMessageSigner } from '../accounts/signing.ts';
import { bytesToHex, hexToBytes } from '../util/hex.ts';
import { invalidParams, serverError } from './errors.ts';
import { typedDataDigestParam } from './typed-data-param.ts';
import { accountErrors, formatLegacyTx, txSender, type SendObject } from './eth-submit.ts';

/** The spec: a duration of 0 (or none) unlocks for 300 seconds. */
export const DEFAULT_UNLOCK_SECONDS = 300;

/** geth's message, plus the way out. */
export const INSECURE_UNLOCK_MESSAGE =
  'account unlock with HTTP access is forbidden: the HTTP listener is not on a loopback address (start the node with --allow-insecure-unlock to allow it)';

/** The same rule for signing with a password, which decrypts the key just as an unlock does. */
export const INSECURE_SIGNING_MESSAGE =
  'signing with a password over HTTP access is forbidden: the HTTP listener is not on a loopback address (start the node with --allow-insecure-unlock to allow it)';

export function personalHandlers(ctx: ApiContext) {
  const { accounts } = ctx.core;
  const { signAs, sendAs } = txSender(ctx);
  // geth's rule: keys unlocked behind a listener others can reach could be used by anyone, and a
  // password sent to such a listener crossed the network in clear
  const insecure = !ctx.httpLoopback && !ctx.allowInsecureUnlock;
  const refuseInsecure = (message: string): void => {
    if (insecure) throw serverError(message);
  };

  return {
    listAccounts: () => accounts.accounts(),
    listWallets: () => accounts.wallets(),
    async openWallet(url: string, password?: string) {
      await accounts.openWallet(url, password).catch(accountErrors);
      return null;
    },
    newAccount: (password: string) => accounts.newAccount(password),
    async importRawKey(privateKey: string, password: string) {
      const key = hexToBytes(privateKey.startsWith('0x') ? privateKey : '0x' + privateKey);
      try {
        const k = BigInt(bytesToHex(key));
        if (k === 0n || k >= SECP256K1_ORDER) throw invalidParams('invalid argument 0 (privateKey): not a secp256k1 private key (0 or not below the curve order)');
        return await accounts.importKey(key, password).catch(accountErrors);
      } finally {
        key.fill(0);
      }
    },

    async unlockAccount(address: string, password: string, duration?: number | null) {
      refuseInsecure(INSECURE_UNLOCK_MESSAGE);
      return accounts.unlock(address, password, duration || DEFAULT_UNLOCK_SECONDS).catch(accountErrors);
    },
    lockAccount: (address: string) => accounts.lock(address),

    async sendTransaction(tx: SendObject, password: string) {
      refuseInsecure(INSECURE_SIGNING_MESSAGE);
      return sendAs(tx, password);
    },
    async signAndSendTransaction(tx: SendObject, password: string) {
      refuseInsecure(INSECURE_SIGNING_MESSAGE);
      return sendAs(tx, password);
    },
    async signTransaction(tx: SendObject, password: string) {
      refuseInsecure(INSECURE_SIGNING_MESSAGE);
      return formatLegacyTx(await signAs(tx, password));
    },
    async sign(message: string, address: string, password: string) {
      refuseInsecure(INSECURE_SIGNING_MESSAGE);
      return bytesToHex(await accounts.signText(address, hexToBytes(message), password).catch(accountErrors));
    },
    /** without a password, an unlocked account signs (as eth_signTypedData_v4) */
    async signTypedData(typedData: unknown, address: string, password?: string | null) {
      const digest = typedDataDigestParam(typedData, 0);
      if (password != null) refuseInsecure(INSECURE_SIGNING_MESSAGE);
      return bytesToHex(await accounts.signTypedData(address, digest, password ?? undefined).catch(accountErrors));
    },
    ecRecover(message: string, signature: string) {
      try {
        return bytesToHex(recoverMessageSigner(hexToBytes(message), hexToBytes(signature)));
      } catch (e) {
        throw invalidParams(`invalid argument 1 (signature): ${(e as Error).message}`);
      }
    },
  };
}
