// Key files in DATADIR/keystore and the lock state of the accounts they hold. Files are re-read
// when the folder changes, so key files dropped in while the node runs are picked up. Private keys
// live only in memory, only while unlocked.
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decryptKey, encryptKey, keyFileName, SCRYPT_LIGHT, SCRYPT_STANDARD, type KeyFileV3 } from './keystore-v3.ts';
import { randomPrivateKey } from '../crypto/secp256k1.ts';

interface Unlocked {
  key: Uint8Array;
  timer?: NodeJS.Timeout;
}

export class Keystore {
  private files = new Map<string, string>(); // 0x-address → file path
  private scannedAt = -1;
  private readonly unlocked = new Map<string, Unlocked>();

  constructor(readonly dir: string, private readonly lightKdf: boolean) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  private scan(): void {
    const mtime = statSync(this.dir).mtimeMs;
    if (mtime === this.scannedAt) return;
    const files = new Map<string, string>();
    for (const name of readdirSync(this.dir).sort()) {
      if (name.startsWith('.') || name.endsWith('.tmp')) continue;
      try {
        const json = JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as { address?: string };
        if (typeof json.address === 'string' && /^(0x)?[0-9a-fA-F]{40}$/.test(json.address)) {
          files.set('0x' + json.address.replace(/^0x/, '').toLowerCase(), join(this.dir, name));
        }
      } catch {
        // not a key file: ignored, as geth does
      }
    }
    this.files = files;
    this.scannedAt = mtime;
  }

  /** 0x-lowercase addresses of the key files, in file-name order (creation time). */
  accounts(): string[] {
    this.scan();
    return [...this.files.keys()];
  }

  has(address: string): boolean {
    this.scan();
    return this.files.has(address.toLowerCase());
  }

  isUnlocked(address: string): boolean {
    return this.unlocked.has(address.toLowerCase());
  }

  /** Writes a new key file (atomically, mode 0600) and returns its address. */
  store(privateKey: Uint8Array, password: string): string {
    const file = encryptKey(privateKey, password, this.lightKdf ? SCRYPT_LIGHT : SCRYPT_STANDARD);
    const path = join(this.dir, keyFileName(file.address));
    writeFileSync(path + '.tmp', JSON.stringify(file), { mode: 0o600 });
    renameSync(path + '.tmp', path);
    this.scannedAt = -1;
    return '0x' + file.address;
  }

  newAccount(password: string): string {
    return this.store(randomPrivateKey(), password);
  }

  /** Decrypts the account's key with the password (throws WrongPassword / unknown account). */
  async decrypt(address: string, password: string): Promise<Uint8Array> {
    this.scan();
    const path = this.files.get(address.toLowerCase());
    if (!path) throw new Error(`unknown account ${address}`);
    return decryptKey(JSON.parse(readFileSync(path, 'utf8')) as KeyFileV3, password);
  }

  /** Unlocks for `seconds` (Infinity: for the life of the process). */
  async unlock(address: string, password: string, seconds: number): Promise<void> {
    const key = await this.decrypt(address, password);
    const a = address.toLowerCase();
    this.lock(a);
    const entry: Unlocked = { key };
    if (Number.isFinite(seconds)) {
      entry.timer = setTimeout(() => this.lock(a), seconds * 1000);
      entry.timer.unref();
    }
    this.unlocked.set(a, entry);
  }

  lock(address: string): boolean {
    const a = address.toLowerCase();
    const entry = this.unlocked.get(a);
    if (!entry) return false;
    clearTimeout(entry.timer);
    entry.key.fill(0);
    this.unlocked.delete(a);
    return true;
  }

  /** The private key of an unlocked account, or undefined when locked. */
  unlockedKey(address: string): Uint8Array | undefined {
    return this.unlocked.get(address.toLowerCase())?.key;
  }

  close(): void {
    for (const a of [...this.unlocked.keys()]) this.lock(a);
  }
}
