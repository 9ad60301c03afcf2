// The Merkle-Patricia trie's node encoding (Ethereum yellow paper, appendix D), written straight
// into buffers: nibble paths, hex-prefix paths, nodes as RLP lists, and a child as its parent
// holds it (its own encoding under 32 bytes, else its hash). Shared by the one-pass ordered trie
// (transactions and receipts roots) and the batched state-trie update.
import { keccak256 } from '../crypto/keccak.ts';

export function nibbles(key: Uint8Array): number[] {
  const out: number[] = new Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4;
    out[2 * i + 1] = key[i]! & 15;
  }
  return out;
}

/** Compact (hex-prefix) encoding of the nibbles path[from, to). */
export function hexPrefix(path: readonly number[], from: number, to: number, leaf: boolean): Uint8Array {
  const n = to - from;
  const odd = n % 2;
  const out = new Uint8Array(Math.floor(n / 2) + 1);
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = from;
  if (odd) out[0] = out[0]! | path[i++]!;
  for (let j = 1; i < to; j++, i += 2) out[j] = (path[i]! << 4) | path[i + 1]!;
  return out;
}

/** The nibbles of a hex-prefix path and whether it ends in a leaf. */
export function fromHexPrefix(hp: Uint8Array): { path: number[]; leaf: boolean } {
  const flag = hp[0]! >> 4;
  const path: number[] = [];
  if (flag & 1) path.push(hp[0]! & 15);
  for (let i = 1; i < hp.length; i++) path.push(hp[i]! >> 4, hp[i]! & 15);
  return { path, leaf: flag >= 2 };
}

// ---------------------------------------------------------------- RLP written in place

function headerSize(len: number): number {
  if (len < 56) return 1;
  let k = 1;
  for (let x = len; x > 255; x = Math.floor(x / 256)) k++;
  return 1 + k;
}

/** writes the header of an item of `len` payload bytes (`base` 0x80 for a string, 0xc0 for a list) at `at`; returns where the payload goes */
function writeHeader(out: Uint8Array, at: number, len: number, base: number): number {
  if (len < 56) {
    out[at] = base + len;
    return at + 1;
  }
  const k = headerSize(len) - 1;
  out[at] = base + 55 + k;
  for (let i = k, x = len; i >= 1; i--, x = Math.floor(x / 256)) out[at + i] = x % 256;
  return at + 1 + k;
}

function stringSize(b: Uint8Array): number {
  return b.length === 1 && b[0]! < 0x80 ? 1 : headerSize(b.length) + b.length;
}

function writeString(out: Uint8Array, at: number, b: Uint8Array): number {
  if (b.length === 1 && b[0]! < 0x80) {
    out[at] = b[0]!;
    return at + 1;
  }
  at = writeHeader(out, at, b.length, 0x80);
  out.set(b, at);
  return at + b.length;
}

/** a two-string list: a leaf [path, value] */
export function pair(path: Uint8Array, value: Uint8Array): Uint8Array {
  const len = stringSize(path) + stringSize(value);
  const out = new Uint8Array(headerSize(len) + len);
  writeString(out, writeString(out, writeHeader(out, 0, len, 0xc0), path), value);
  return out;
}

/** a list of items already encoded */
export function list(items: Uint8Array[]): Uint8Array {
  let len = 0;
  for (const item of items) len += item.length;
  const out = new Uint8Array(headerSize(len) + len);
  let at = writeHeader(out, 0, len, 0xc0);
  for (const item of items) {
    out.set(item, at);
    at += item.length;
  }
  return out;
}

/** a string as an encoded item */
export function stringItem(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(stringSize(b));
  writeString(out, 0, b);
  return out;
}

/** the empty string: an absent child or branch value */
export const EMPTY_ITEM = Uint8Array.of(0x80);

/** The item a 32-byte hash is in its parent's encoding. */
export function hashItem(hash: Uint8Array): Uint8Array {
  const out = new Uint8Array(33);
  out[0] = 0x80 + 32;
  out.set(hash, 1);
  return out;
}

/** A child as its parent's encoding holds it: the child's own encoding when under 32 bytes, else its hash. */
export function childRef(encoded: Uint8Array): Uint8Array {
  return encoded.length < 32 ? encoded : hashItem(keccak256(encoded));
}
