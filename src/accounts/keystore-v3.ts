// Web3 Secret Storage v3, the key file format geth writes: scrypt + aes-128-ctr + keccak MAC.
// Files written here open in geth and in ethers' Wallet.fromEncryptedJson, and theirs open here.
// scrypt runs off the event loop (./scrypt.ts) so neither encryption nor decryption blocks the node.
// AES is node:crypto's (OpenSSL): @noble/ciphers built its lookup tables whenever the bundle
// loaded, on every start, for a cipher most runs never use (A18).
import { createCipheriv, randomBytes } from 'node:crypto';
import { keccak256 } from '../crypto/keccak.ts';
import { addressOf } from '../crypto/secp256k1.ts';
import { bytesToHex, concatBytes, equalBytes, hexToBytes } from '../util/hex.ts';
import { scryptOffThread } from './scrypt.ts';

export interface KeyFileCrypto {
  cipher: 'aes-128-ctr';
  ciphertext: string;
  cipherparams: { iv: string };
  kdf: 'scrypt';
  kdfparams: { n: number; r: number; p: number; dklen: number; salt: string };
  mac: string;
}

export interface KeyFileV3 {
  version: 3;
  id: string;
  address: string; // lowercase hex, no 0x (geth's form)
  crypto: KeyFileCrypto;
}

/** geth's standard and light scrypt costs (--lightkdf). */
export const SCRYPT_STANDARD = { n: 262144, p: 1 };
export const SCRYPT_LIGHT = { n: 4096, p: 6 };

export class WrongPassword extends Error {
  constructor() {
    super('could not decrypt key with given password');
  }
}

/** The file is not a key file this node can open (another cipher or kdf, malformed fields). */
export class BadKeyFile extends Error {}

function uuid(): string {
  const b = randomBytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const utf8 = (s: string) => new TextEncoder().encode(s);

/** AES-128-CTR; encrypting and decrypting are the same operation. */
function aes128ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
  if (iv.length !== 16) throw new BadKeyFile(`malformed key file: the cipher's iv is ${iv.length} bytes, not 16`);
  const cipher = createCipheriv('aes-128-ctr', key, iv);
  return new Uint8Array(Buffer.concat([cipher.update(data), cipher.final()]));
}

export async function encryptKey(privateKey: Uint8Array, password: string, cost = SCRYPT_STANDARD): Promise<KeyFileV3> {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const dk = await scryptOffThread(utf8(password), salt, { N: cost.n, r: 8, p: cost.p, dkLen: 32 });
  try {
    const ciphertext = aes128ctr(dk.subarray(0, 16), iv, privateKey);
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
  } finally {
    dk.fill(0);
  }
}

/** The `crypto` section; ethers and old geth versions spell it `Crypto`. */
function cryptoOf(file: unknown): KeyFileCrypto {
  const f = file as { crypto?: KeyFileCrypto; Crypto?: KeyFileCrypto };
  const c = f.crypto ?? f.Crypto;
  if (!c || typeof c !== 'object') throw new BadKeyFile('not a v3 key file: no crypto section');
  if (c.kdf !== 'scrypt' || c.cipher !== 'aes-128-ctr') throw new BadKeyFile(`unsupported key file: ${c.kdf}/${c.cipher} (only scrypt + aes-128-ctr)`);
  const kp = c.kdfparams;
  if (!kp || ![kp.n, kp.r, kp.p, kp.dklen].every((x) => Number.isSafeInteger(x) && x > 0) || kp.dklen < 32) throw new BadKeyFile('malformed key file: bad scrypt parameters');
  return c;
}

/**
 * Decrypts a v3 key file. Throws WrongPassword when the MAC does not match, BadKeyFile when the file
 * cannot be read or holds a key of another address than it claims.
 */
export async function decryptKey(file: KeyFileV3, password: string): Promise<Uint8Array> {
  const c = cryptoOf(file);
  const kp = c.kdfparams;
  let dk: Uint8Array;
  try {
    dk = await scryptOffThread(utf8(password), hexToBytes(kp.salt), { N: kp.n, r: kp.r, p: kp.p, dkLen: kp.dklen });
  } catch (e) {
    throw new BadKeyFile(`unsupported key file: ${(e as Error).message}`);
  }
  try {
    const ciphertext = hexToBytes(c.ciphertext);
    const mac = keccak256(concatBytes(dk.subarray(16, 32), ciphertext));
    if (!equalBytes(mac, hexToBytes(c.mac))) throw new WrongPassword();
    const key = aes128ctr(dk.subarray(0, 16), hexToBytes(c.cipherparams.iv), ciphertext);
    if (key.length !== 32) throw new BadKeyFile('malformed key file: the key is not 32 bytes');
    if (bytesToHex(addressOf(key)).slice(2) !== String(file.address).replace(/^0x/, '').toLowerCase()) {
      key.fill(0);
      throw new BadKeyFile('key file content mismatch: the key does not belong to the address the file names');
    }
    return key;
  } finally {
    dk.fill(0);
  }
}

/** geth's key file name: UTC--<ISO time with - for :>--<address> */
export function keyFileName(address: string, date = new Date()): string {
  const iso = date.toISOString().replace(/:/g, '-');
  return `UTC--${iso}--${address.replace(/^0x/, '').toLowerCase()}`;
}
