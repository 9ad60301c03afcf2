// Root of a Merkle-Patricia trie keyed by rlp(index) — the transactions and receipts roots.
// Built in one pass over the sorted keys instead of one trie insert per item: @ethereumjs/mpt's
// async put re-encodes and re-hashes the path on every insert, which was a large share of block
// assembly time (measured). Each node is written straight into one buffer of its RLP encoding
// (a generic encoder over nested arrays copied every value twice more and was half of the time
// left, P10's profile). Same roots as the MPT (tested against it).
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/keccak.ts';
import { EMPTY_TRIE_ROOT } from './header.ts';

function nibbles(key: Uint8Array): number[] {
  const out: number[] = new Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4;
    out[2 * i + 1] = key[i]! & 15;
  }
  return out;
}

/** Compact (hex-prefix) encoding of a nibble path. */
function hexPrefix(path: number[], from: number, to: number, leaf: boolean): Uint8Array {
  const n = to - from;
  const odd = n % 2;
  const out = new Uint8Array(Math.floor(n / 2) + 1);
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = from;
  if (odd) out[0] = out[0]! | path[i++]!;
  for (let j = 1; i < to; j++, i += 2) out[j] = (path[i]! << 4) | path[i + 1]!;
  return out;
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
function pair(path: Uint8Array, value: Uint8Array): Uint8Array {
  const len = stringSize(path) + stringSize(value);
  const out = new Uint8Array(headerSize(len) + len);
  writeString(out, writeString(out, writeHeader(out, 0, len, 0xc0), path), value);
  return out;
}

/** a list of items already encoded */
function list(items: Uint8Array[]): Uint8Array {
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

const EMPTY_ITEM = Uint8Array.of(0x80);

/** A child as its parent's encoding holds it: the child's own encoding when under 32 bytes, else its hash (a 32-byte string). */
function ref(encoded: Uint8Array): Uint8Array {
  if (encoded.length < 32) return encoded;
  const out = new Uint8Array(33);
  out[0] = 0x80 + 32;
  out.set(keccak256(encoded), 1);
  return out;
}

/** The RLP encoding of the node over keys[lo, hi), all equal in their first `depth` nibbles. */
function build(keys: number[][], values: Uint8Array[], lo: number, hi: number, depth: number): Uint8Array {
  const first = keys[lo]!;
  if (hi - lo === 1) return pair(hexPrefix(first, depth, first.length, true), values[lo]!);
  // common prefix of the (sorted) range = common prefix of its first and last key
  const last = keys[hi - 1]!;
  let d = depth;
  while (d < first.length && d < last.length && first[d] === last[d]) d++;
  if (d > depth) {
    const path = hexPrefix(first, depth, d, false);
    const child = ref(build(keys, values, lo, hi, d));
    return list([stringItem(path), child]);
  }
  // keys are RLP encodings, so none is a prefix of another: a branch never holds a value
  const branch: Uint8Array[] = new Array(17).fill(EMPTY_ITEM);
  let i = lo;
  while (i < hi) {
    const nib = keys[i]![depth]!;
    let j = i + 1;
    while (j < hi && keys[j]![depth] === nib) j++;
    branch[nib] = ref(build(keys, values, i, j, depth + 1));
    i = j;
  }
  return list(branch);
}

function stringItem(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(stringSize(b));
  writeString(out, 0, b);
  return out;
}

export function orderedTrieRoot(values: Uint8Array[]): Uint8Array {
  if (values.length === 0) return EMPTY_TRIE_ROOT;
  const entries = values.map((v, i) => ({ key: nibbles(RLP.encode(i)), v }));
  entries.sort((a, b) => {
    const n = Math.min(a.key.length, b.key.length);
    for (let i = 0; i < n; i++) if (a.key[i] !== b.key[i]) return a.key[i]! - b.key[i]!;
    return a.key.length - b.key.length;
  });
  return keccak256(build(entries.map((e) => e.key), entries.map((e) => e.v), 0, entries.length, 0));
}
