// personal_: key files held by the node. Password-taking methods decrypt with the given password
// whatever the lock state, and a wrong password never signs anything.
import type { ApiContext } from './context.ts';
import { WrongPassword } from '../accounts/keystore-v3.ts';
import { recoverMessageSigner, signMessage } from '../accounts/signing.ts';
import { bytesToHex, hexToBytes } from '../util/hex.ts';
import { invalidParams, serverError } from './errors.ts';
import { formatSignedTx, type SendObject, submitHandlers } from './eth-submit.ts';

/** The spec: a duration of 0 (or none) unlocks for 300 seconds. */
export const DEFAULT_UNLOCK_SECONDS = 300;

export function personalHandlers(ctx: ApiContext) {
  const { keystore } = ctx.core;
  const submit = submitHandlers(ctx);

  const decrypt = async (address: string, password: string): Promise<Uint8Array> => {
    if (!keystore.has(address)) throw serverError(`unknown account ${address}`);
    try {
      return await keystore.decrypt(address, password);
    } catch (e) {
      if (e instanceof WrongPassword) throw serverError(`could not decrypt key for ${address} with given password`);
      throw e;
    }
  };

  const sendWithPassword = async (tx: SendObject, password: string) => {
    const key = await decrypt(tx.from, password);
    try {
      return await submit.submit((await submit.signSend(tx, key)).serialize());
    } finally {
      key.fill(0);
    }
  };

  return {
    listAccounts: () => keystore.accounts(),
    listWallets: () =>
      keystore.accounts().map((address) => ({
        url: `keystore://${keystore.dir}/${address}`,
        status: keystore.isUnlocked(address) ? 'Unlocked' : 'Locked',
        accounts: [{ address, url: `keystore://${keystore.dir}/${address}` }],
      })),
    openWallet(url: string) {
      throw serverError(`no hardware wallet at ${url}`);
    },
    newAccount: (password: string) => keystore.newAccount(password),

    async unlockAccount(address: string, password: string, duration?: number | null) {
      if (!ctx.httpLoopback && !ctx.allowInsecureUnlock) {
        throw serverError('account unlock with HTTP access is forbidden: the HTTP listener is not on a loopback address (start the node with --allow-insecure-unlock to allow it)');
      }
      if (!keystore.has(address)) throw serverError(`unknown account ${address}`);
      const seconds = !duration ? DEFAULT_UNLOCK_SECONDS : duration;
      try {
        await keystore.unlock(address, password, seconds);
        return true;
      } catch (e) {
        if (e instanceof WrongPassword) return false;
        throw e;
      }
    },
    lockAccount: (address: string) => keystore.lock(address),

    sendTransaction: (tx: SendObject, password: string) => sendWithPassword(tx, password),
    signAndSendTransaction: (tx: SendObject, password: string) => sendWithPassword(tx, password),
    async signTransaction(tx: SendObject, password: string) {
      const key = await decrypt(tx.from, password);
      try {
        return formatSignedTx(await submit.signSend(tx, key));
      } finally {
        key.fill(0);
      }
    },
    async sign(message: string, address: string, password: string) {
      const key = await decrypt(address, password);
      try {
        return bytesToHex(signMessage(hexToBytes(message), key));
      } finally {
        key.fill(0);
      }
    },
    ecRecover(message: string, signature: string) {
      const sig = hexToBytes(signature);
      if (sig.length !== 65) throw invalidParams('invalid argument 1 (signature): must be 65 bytes (R ‖ S ‖ V)');
      try {
        return bytesToHex(recoverMessageSigner(hexToBytes(message), sig));
      } catch (e) {
        throw invalidParams(`invalid argument 1 (signature): ${(e as Error).message}`);
      }
    },
  };
}
