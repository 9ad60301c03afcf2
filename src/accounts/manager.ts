// Every account the node can sign for: key files in the keystore and the accounts of opened Ledger
// devices. The API handlers go through here. AccountError messages are meant for the client; they
// never carry a key or a password.
import type { Common } from '@ethereumjs/common';
import type { LegacyTx } from '@ethereumjs/tx';
import { Keystore, LockedMeanwhile, UnknownKeyFile } from './keystore.ts';
import { BadKeyFile, WrongPassword } from './keystore-v3.ts';
import type { LedgerHub } from './ledger.ts';
import { addressOf } from '../crypto/secp256k1.ts';
import { bytesToHex } from '../util/hex.ts';
import { signingPayload, signDigest, signMessage, unsignedLegacyTx, withSignature, type TxFields } from './signing.ts';

export class AccountError extends Error {}

export interface WalletView {
  url: string;
  status: string;
  failure?: string;
  accounts: { address: string; url: string }[];
}

export class AccountManager {
  constructor(
    readonly keystore: Keystore,
    readonly ledger: LedgerHub,
    /** the Common transactions are signed with (chain id) */
    private readonly common: Common,
  ) {}

  /** Keystore accounts, then the accounts of opened hardware wallets (0x-lowercase). */
  async accounts(): Promise<string[]> {
    const out = this.keystore.accounts();
    for (const w of await this.ledger.list()) for (const a of w.accounts) if (!out.includes(a.address)) out.push(a.address);
    return out;
  }

  /** geth's listing: one wallet per key file (`keystore://<file>`), then each connected Ledger. */
  async wallets(): Promise<WalletView[]> {
    const out: WalletView[] = [...this.keystore.files()].map(([address, path]) => {
      const url = `keystore://${path}`;
      return { url, status: this.keystore.isUnlocked(address) ? 'Unlocked' : 'Locked', accounts: [{ address, url }] };
    });
    for (const w of await this.ledger.list()) {
      out.push({ url: w.url, status: w.status, ...(w.failure ? { failure: w.failure } : {}), accounts: w.accounts.map((a) => ({ address: a.address, url: a.url })) });
    }
    return out;
  }

  /**
   * Opens a hardware wallet. A Ledger takes no password (its PIN is entered on the device), so the
   * password is not used. Key file wallets need no opening (as in geth).
   */
  async openWallet(url: string, _password?: string): Promise<void> {
    if (url.startsWith('keystore://') && [...this.keystore.files().values()].some((path) => `keystore://${path}` === url)) return;
    const wallet = await this.ledger.find(url);
    if (!wallet) throw new AccountError(`unknown wallet ${url} (personal_listWallets lists the wallets)`);
    try {
      await wallet.open();
    } catch (e) {
      throw new AccountError(`could not open ${url}: ${(e as Error).message}`);
    }
  }

  async newAccount(password: string): Promise<string> {
    return this.keystore.newAccount(password);
  }

  /** A key given in clear into a key file (geth's personal_importRawKey); an address already held is refused. */
  async importKey(privateKey: Uint8Array, password: string): Promise<string> {
    const address = bytesToHex(addressOf(privateKey));
    if ((await this.accounts()).includes(address)) throw new AccountError(`account already exists: ${address}`);
    return this.keystore.store(privateKey, password);
  }

  /** Decrypts the key file of `address`; the caller zeroes the key. */
  private async decrypt(address: string, password: string): Promise<Uint8Array> {
    try {
      return await this.keystore.decrypt(address, password);
    } catch (e) {
      if (e instanceof WrongPassword) throw new AccountError(`could not decrypt key for ${address} with given password`);
      throw this.accountError(e, address);
    }
  }

  private accountError(e: unknown, address: string): unknown {
    if (e instanceof UnknownKeyFile) return new AccountError(this.unknownMessage(address));
    if (e instanceof BadKeyFile) return new AccountError(`key file of ${address}: ${e.message}`);
    if (e instanceof LockedMeanwhile) return new AccountError(e.message);
    return e;
  }

  private unknownMessage(address: string): string {
    return `unknown account ${address}: the node holds no key file for it and no open hardware wallet has it`;
  }

  /** Unlocks a key file account for `seconds`; false when the password does not decrypt the key. */
  async unlock(address: string, password: string, seconds: number): Promise<boolean> {
    if (!this.keystore.has(address)) {
      if (await this.ledger.accountOf(address)) throw new AccountError(`account ${address} is on a hardware wallet: it needs no unlock, the device confirms each signature`);
      throw new AccountError(this.unknownMessage(address));
    }
    try {
      await this.keystore.unlock(address, password, seconds);
      return true;
    } catch (e) {
      if (e instanceof WrongPassword) return false;
      throw this.accountError(e, address);
    }
  }

  /** true when the account was unlocked and is now locked, false otherwise (also for unknown accounts). */
  lock(address: string): boolean {
    return this.keystore.lock(address);
  }

  /**
   * Fails fast, before the caller fills and signs anything, when `from` cannot sign without a
   * password: unknown, or a key file account that is locked.
   */
  async requireSigner(from: string): Promise<void> {
    if (this.keystore.has(from)) {
      if (!this.keystore.isUnlocked(from)) throw this.locked(from);
      return;
    }
    if (!(await this.ledger.accountOf(from))) throw new AccountError(this.unknownMessage(from));
  }

  private locked(address: string): AccountError {
    return new AccountError(`authentication needed: account ${address} is locked (unlock it with personal_unlockAccount)`);
  }

  /**
   * Signs an EIP-155 legacy transaction as `from`: with a password, the key file decrypted by it
   * (whatever the lock state); without, an unlocked key file. Accounts of an open Ledger sign on the
   * device (the password, if any, is not used).
   */
  async signTx(from: string, fields: TxFields, password?: string): Promise<LegacyTx> {
    const tx = unsignedLegacyTx(fields, this.common);
    if (this.keystore.has(from)) {
      if (password !== undefined) {
        const key = await this.decrypt(from, password);
        try {
          return tx.sign(key);
        } finally {
          key.fill(0);
        }
      }
      // read and used synchronously: a lock or an expiry cannot zero the key half-way
      const key = this.keystore.unlockedKey(from);
      if (!key) throw this.locked(from);
      return tx.sign(key);
    }
    const onDevice = await this.ledger.accountOf(from);
    if (!onDevice) throw new AccountError(this.unknownMessage(from));
    let signed: LegacyTx;
    try {
      const { recid, r, s } = await onDevice.wallet.signTx(onDevice.account, signingPayload(tx), this.common.chainId());
      signed = withSignature(tx, recid, r, s);
    } catch (e) {
      throw new AccountError((e as Error).message);
    }
    if (signed.getSenderAddress().toString() !== from.toLowerCase()) throw new AccountError(`${onDevice.wallet.url} signed with another key than the one of ${from}`);
    return signed;
  }

  /** Signs a message by the spec's rule (signing.ts): with the key file decrypted by `password`, or an unlocked one. */
  signText(address: string, message: Uint8Array, password?: string): Promise<Uint8Array> {
    return this.signWithKeyFile(address, `messages only with Ethereum's "\\x19Ethereum Signed Message" prefix, not this chain's`, password, (key) => signMessage(message, key));
  }

  /** Signs an EIP-712 digest (src/crypto/typed-data.ts) the same way. */
  signTypedData(address: string, digest: Uint8Array, password?: string): Promise<Uint8Array> {
    return this.signWithKeyFile(address, 'no EIP-712 typed data through this node', password, (key) => signDigest(digest, key));
  }

  /** `sign` with the key of a key file account; a Ledger account is refused, saying what its device does not sign. */
  private async signWithKeyFile(address: string, onLedger: string, password: string | undefined, sign: (key: Uint8Array) => Uint8Array): Promise<Uint8Array> {
    if (!this.keystore.has(address)) {
      if (await this.ledger.accountOf(address)) throw new AccountError(`account ${address} is on a Ledger, which signs ${onLedger}`);
      throw new AccountError(this.unknownMessage(address));
    }
    if (password !== undefined) {
      const key = await this.decrypt(address, password);
      try {
        return sign(key);
      } finally {
        key.fill(0);
      }
    }
    const key = this.keystore.unlockedKey(address);
    if (!key) throw this.locked(address);
    return sign(key);
  }

  async close(): Promise<void> {
    this.keystore.close();
    await this.ledger.close();
  }
}
