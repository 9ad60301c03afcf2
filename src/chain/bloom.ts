// The 2048-bit log bloom (yellow paper §4.3.1): three bits per address and per topic.
import { keccak256 } from '../crypto/keccak.ts';
import type { LogRecord } from './types.ts';

/** The three bits an item sets, as [byte index, mask] pairs flattened: [i0, m0, i1, m1, i2, m2]. */
export type BloomBits = ArrayLike<number>;

/** Where an item's bits are; computed once per filter so checking a block's bloom costs no hash. */
export function bloomBits(item: Uint8Array): number[] {
  const h = keccak256(item);
  const out: number[] = [];
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    out.push(255 - (bit >> 3), 1 << (bit & 7));
  }
  return out;
}

/** Whether the bloom has an item's bits: bloomBits' six numbers, at `at` in `b` (many items' bits can share one array). */
export function bloomHasBits(bloom: Uint8Array, b: BloomBits, at = 0): boolean {
  return (bloom[b[at]!]! & b[at + 1]!) !== 0 && (bloom[b[at + 2]!]! & b[at + 3]!) !== 0 && (bloom[b[at + 4]!]! & b[at + 5]!) !== 0;
}

export function addToBloom(bloom: Uint8Array, item: Uint8Array): void {
  const b = bloomBits(item);
  for (let i = 0; i < 6; i += 2) bloom[b[i]!] = bloom[b[i]!]! | b[i + 1]!;
}

export function logsBloom(logs: readonly LogRecord[]): Uint8Array {
  const bloom = new Uint8Array(256);
  for (const [address, topics] of logs) {
    addToBloom(bloom, address);
    for (const t of topics) addToBloom(bloom, t);
  }
  return bloom;
}

export function bloomContains(bloom: Uint8Array, item: Uint8Array): boolean {
  return bloomHasBits(bloom, bloomBits(item));
}
