// Key files in DATADIR/keystore and the lock state of the accounts they hold. The folder is
// re-read when it changes, so key files dropped in while the node runs (from geth, ethers, another
// node) are picked up. Private keys live only in memory, only while unlocked.
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decryptKey, encryptKey, keyFileName, SCRYPT_LIGHT, SCRYPT_STANDARD, type KeyFileV3 } from './keystore-v3.ts';
import { randomPrivateKey } from '../crypto/secp256k1.ts';

interface Unlocked {
  key: Uint8Array;
  /** ms since epoch; Infinity: for the life of the process */
  expiresAt: number;
  timer?: NodeJS.Timeout;
}

interface KeyFileEntry {
  mtimeMs: number;
  /** 0x-lowercase address, or undefined when the file is not (yet) a readable key file */
  address?: string;
}

/** setTimeout's largest delay (~24.8 days); longer unlocks re-arm the timer. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class Keystore {
  readonly dir: string;
  /** file name → what it holds */
  private entries = new Map<string, KeyFileEntry>();
  private dirMtime = -1;
  private readonly unlocked = new Map<string, Unlocked>();
  /** Unlocks still deriving their key, by address: a lock() meanwhile cancels them. */
  private readonly deriving = new Map<string, Set<{ cancelled: boolean }>>();

  constructor(dir: string, private readonly lightKdf: boolean) {
    this.dir = resolve(dir);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  /**
   * Brings the file list up to date. A full re-read happens when the folder's mtime changes; files
   * that did not parse are re-checked on every call, because a tool that writes a key file in place
   * (not by rename) changes the folder once, at creation, possibly before the content is there.
   */
  private scan(): void {
    const mtime = statSync(this.dir).mtimeMs;
    let names: string[];
    if (mtime !== this.dirMtime) {
      names = readdirSync(this.dir).filter((n) => !n.startsWith('.') && !n.endsWith('.tmp'));
      const present = new Set(names);
      for (const old of this.entries.keys()) if (!present.has(old)) this.entries.delete(old);
      this.dirMtime = mtime;
    } else {
      names = [...this.entries].filter(([, e]) => !e.address).map(([n]) => n);
    }
    for (const name of names) {
      const path = join(this.dir, name);
      let fileMtime: number;
      try {
        fileMtime = statSync(path).mtimeMs;
      } catch {
        this.entries.delete(name);
        continue;
      }
      const known = this.entries.get(name);
      if (known && known.mtimeMs === fileMtime) continue;
      this.entries.set(name, { mtimeMs: fileMtime, address: readAddress(path) });
    }
  }

  /** 0x-lowercase address → key file path, in file-name order (creation time); the first file of an address wins. */
  files(): Map<string, string> {
    this.scan();
    const out = new Map<string, string>();
    for (const name of [...this.entries.keys()].sort()) {
      const a = this.entries.get(name)!.address;
      if (a && !out.has(a)) out.set(a, join(this.dir, name));
    }
    return out;
  }

  /** 0x-lowercase addresses of the key files, in file-name order (creation time). */
  accounts(): string[] {
    return [...this.files().keys()];
  }

  /** Key file path of an account, undefined when the keystore has none. */
  fileOf(address: string): string | undefined {
    return this.files().get(address.toLowerCase());
  }

  has(address: string): boolean {
    return this.fileOf(address) !== undefined;
  }

  isUnlocked(address: string): boolean {
    return this.unlocked.has(address.toLowerCase());
  }

  /** When an unlocked account locks again (ms since epoch; Infinity: never), undefined when locked. */
  unlockedUntil(address: string): number | undefined {
    return this.unlocked.get(address.toLowerCase())?.expiresAt;
  }

  /**
   * Writes a new key file (mode 0600, atomically: temp file + rename) and returns its address.
   * `lightKdf` overrides the keystore's setting (the dev account, whose password is empty anyway).
   */
  async store(privateKey: Uint8Array, password: string, lightKdf = this.lightKdf): Promise<string> {
    const file = await encryptKey(privateKey, password, lightKdf ? SCRYPT_LIGHT : SCRYPT_STANDARD);
    const path = join(this.dir, keyFileName(file.address));
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, JSON.stringify(file), { mode: 0o600, flush: true });
      renameSync(tmp, path);
    } catch (e) {
      try {
        unlinkSync(tmp);
      } catch {
        // nothing was written
      }
      throw e;
    }
    return '0x' + file.address;
  }

  async newAccount(password: string, lightKdf = this.lightKdf): Promise<string> {
    const key = randomPrivateKey();
    try {
      return await this.store(key, password, lightKdf);
    } finally {
      key.fill(0);
    }
  }

  /**
   * Decrypts the account's key with the password. Throws WrongPassword, BadKeyFile, or
   * UnknownKeyFile when the keystore holds no file for the address. The caller owns (and zeroes)
   * the returned key.
   */
  async decrypt(address: string, password: string): Promise<Uint8Array> {
    const path = this.fileOf(address);
    if (!path) throw new UnknownKeyFile(address);
    return decryptKey(JSON.parse(readFileSync(path, 'utf8')) as KeyFileV3, password);
  }

  /**
   * Unlocks for `seconds` (Infinity: for the life of the process); replaces an earlier unlock.
   * Throws LockedMeanwhile when a lock() came while the key was deriving: the later call wins, so a
   * client that locks an account right after unlocking it never finds it unlocked (scrypt takes
   * ~1 s, long enough for that to be the usual order of completion, not a corner case).
   */
  async unlock(address: string, password: string, seconds: number): Promise<void> {
    const a = address.toLowerCase();
    const ticket = { cancelled: false };
    let pending = this.deriving.get(a);
    if (!pending) this.deriving.set(a, (pending = new Set()));
    pending.add(ticket);
    let key: Uint8Array;
    try {
      key = await this.decrypt(address, password);
    } finally {
      pending.delete(ticket);
      if (pending.size === 0 && this.deriving.get(a) === pending) this.deriving.delete(a);
    }
    if (ticket.cancelled) {
      key.fill(0);
      throw new LockedMeanwhile(a);
    }
    this.lock(a);
    const entry: Unlocked = { key, expiresAt: Date.now() + seconds * 1000 };
    this.unlocked.set(a, entry);
    this.arm(a, entry);
  }

  private arm(a: string, entry: Unlocked): void {
    if (!Number.isFinite(entry.expiresAt)) return;
    entry.timer = setTimeout(() => {
      if (Date.now() >= entry.expiresAt) this.lock(a);
      else this.arm(a, entry);
    }, Math.min(Math.max(entry.expiresAt - Date.now(), 0), MAX_TIMER_MS));
    entry.timer.unref();
  }

  /** Forgets the key at once and cancels unlocks still deriving it; false when the account was not unlocked. */
  lock(address: string): boolean {
    const a = address.toLowerCase();
    for (const ticket of this.deriving.get(a) ?? []) ticket.cancelled = true;
    const entry = this.unlocked.get(a);
    if (!entry) return false;
    clearTimeout(entry.timer);
    entry.key.fill(0);
    this.unlocked.delete(a);
    return true;
  }

  /**
   * The private key of an unlocked account, or undefined when locked. Use it synchronously: a lock
   * (or expiry) zeroes it.
   */
  unlockedKey(address: string): Uint8Array | undefined {
    return this.unlocked.get(address.toLowerCase())?.key;
  }

  close(): void {
    for (const a of [...this.unlocked.keys(), ...this.deriving.keys()]) this.lock(a);
  }
}

export class LockedMeanwhile extends Error {
  constructor(address: string) {
    super(`account ${address} was locked while this unlock was deriving its key: it stays locked`);
  }
}

export class UnknownKeyFile extends Error {
  constructor(address: string) {
    super(`unknown account ${address}: the keystore holds no key file for it`);
  }
}

/** The address a key file names, or undefined when the file is not a key file (ignored, as geth does). */
function readAddress(path: string): string | undefined {
  try {
    const json = JSON.parse(readFileSync(path, 'utf8')) as { address?: unknown; crypto?: unknown; Crypto?: unknown };
    if (typeof json.address !== 'string' || !/^(0x)?[0-9a-fA-F]{40}$/.test(json.address)) return undefined;
    if (typeof (json.crypto ?? json.Crypto) !== 'object') return undefined;
    return '0x' + json.address.replace(/^0x/, '').toLowerCase();
  } catch {
    return undefined;
  }
}
