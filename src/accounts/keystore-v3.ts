// Web3 Secret Storage v3, the key file format geth writes: scrypt + aes-128-ctr + keccak MAC.
// Files written here open in geth and in ethers' Wallet.fromEncryptedJson, and theirs open here.
import { scrypt, scryptAsync } from '@noble/hashes/scrypt.js';
import { ctr } from '@noble/ciphers/aes.js';
import { randomBytes } from 'node:crypto';
import { keccak256 } from '../crypto/keccak.ts';
import { addressOf } from '../crypto/secp256k1.ts';
import { bytesToHex, concatBytes, equalBytes, hexToBytes } from '../util/hex.ts';

export interface KeyFileV3 {
  version: 3;
  id: string;
  address: string; // lowercase hex, no 0x (geth's form)
  crypto: {
    cipher: 'aes-128-ctr';
    ciphertext: string;
    cipherparams: { iv: string };
    kdf: 'scrypt';
    kdfparams: { n: number; r: number; p: number; dklen: number; salt: string };
    mac: string;
  };
}

/** geth's standard and light scrypt costs (--lightkdf). */
export const SCRYPT_STANDARD = { n: 262144, p: 1 };
export const SCRYPT_LIGHT = { n: 4096, p: 6 };

export class WrongPassword extends Error {
  constructor() {
    super('could not decrypt key with given password');
  }
}

function uuid(): string {
  const b = randomBytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function encryptKey(privateKey: Uint8Array, password: string, cost = SCRYPT_STANDARD): KeyFileV3 {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const dk = scrypt(new TextEncoder().encode(password), salt, { N: cost.n, r: 8, p: cost.p, dkLen: 32 });
  const ciphertext = ctr(dk.subarray(0, 16), iv).encrypt(privateKey);
  const mac = keccak256(concatBytes(dk.subarray(16, 32), ciphertext));
  return {
    version: 3,
    id: uuid(),
    address: bytesToHex(addressOf(privateKey)).slice(2),
    crypto: {
      cipher: 'aes-128-ctr',
      ciphertext: bytesToHex(ciphertext).slice(2),
      cipherparams: { iv: bytesToHex(iv).slice(2) },
      kdf: 'scrypt',
      kdfparams: { n: cost.n, r: 8, p: cost.p, dklen: 32, salt: bytesToHex(salt).slice(2) },
      mac: bytesToHex(mac).slice(2),
    },
  };
}

/**
 * Decrypts a v3 key file. scryptAsync yields to the event loop while it works, so one slow unlock
 * does not stall other requests. Throws WrongPassword when the MAC does not match.
 */
export async function decryptKey(file: KeyFileV3, password: string): Promise<Uint8Array> {
  const c = (file as { crypto?: KeyFileV3['crypto']; Crypto?: KeyFileV3['crypto'] }).crypto ?? (file as unknown as { Crypto: KeyFileV3['crypto'] }).Crypto;
  if (!c || c.kdf !== 'scrypt' || c.cipher !== 'aes-128-ctr') throw new Error('unsupported key file: only scrypt + aes-128-ctr v3 files are supported');
  const kp = c.kdfparams;
  const dk = await scryptAsync(new TextEncoder().encode(password), hexToBytes(kp.salt), { N: kp.n, r: kp.r, p: kp.p, dkLen: kp.dklen, asyncTick: 10 });
  const ciphertext = hexToBytes(c.ciphertext);
  const mac = keccak256(concatBytes(dk.subarray(16, 32), ciphertext));
  if (!equalBytes(mac, hexToBytes(c.mac))) throw new WrongPassword();
  return ctr(dk.subarray(0, 16), hexToBytes(c.cipherparams.iv)).decrypt(ciphertext);
}

/** geth's key file name: UTC--<ISO time with - for :>--<address> */
export function keyFileName(address: string, date = new Date()): string {
  const iso = date.toISOString().replace(/:/g, '-');
  return `UTC--${iso}--${address.replace(/^0x/, '').toLowerCase()}`;
}
