// keccak-256. The native binding (`keccak` package, prebuilt) is 1.7x (32 B) to 3x (532 B, a
// trie node) faster than @noble/hashes (measured here); trie hashing dominates block commits.
// The package's own wrapper builds a stream (readable-stream Transform) per hash, which costs as
// much as the hashing itself (4.7 µs vs 2.4 µs for 32 B, measured), so we drive the addon's
// KeccakState directly: one state, re-initialised per hash (JavaScript runs one hash at a time).
// @noble/hashes is the fallback when the binding does not load.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';

interface KeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  absorbLastFewBits(bits: number): void;
  squeeze(length: number): Buffer;
}

function loadNative(): KeccakState | undefined {
  try {
    // The addon is found the way the package's bindings.js finds it, without loading bindings.js
    // (it builds the stream API on readable-stream: ~8 ms of start-up, measured).
    const bindings = createRequire(import.meta.url).resolve('keccak/bindings.js');
    const addon: unknown = createRequire(bindings)('node-gyp-build')(dirname(bindings));
    // bindings.js's own check: runtimes without N-API hand back an object, not the class
    if (typeof addon !== 'function') return undefined;
    return new (addon as new () => KeccakState)();
  } catch {
    return undefined;
  }
}

const state = loadNative();

/** keccak-256 rate and capacity in bits, and the padding suffix that makes it keccak, not SHA-3 */
const RATE = 1088;
const CAPACITY = 512;
const KECCAK_SUFFIX = 0x01;

export const keccak256: (data: Uint8Array) => Uint8Array = state
  ? (data) => {
      state.initialize(RATE, CAPACITY);
      state.absorb(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      state.absorbLastFewBits(KECCAK_SUFFIX);
      const out = state.squeeze(32);
      return new Uint8Array(out.buffer, out.byteOffset, 32);
    }
  : (data) => keccak_256(data);
