// The 2048-bit log bloom (yellow paper §4.3.1): three bits per address and per topic.
import { keccak256 } from '../crypto/keccak.ts';
import type { LogRecord } from './types.ts';

export function addToBloom(bloom: Uint8Array, item: Uint8Array): void {
  const h = keccak256(item);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    bloom[255 - (bit >> 3)] = bloom[255 - (bit >> 3)]! | (1 << (bit & 7));
  }
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
  const h = keccak256(item);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    if ((bloom[255 - (bit >> 3)]! & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}
