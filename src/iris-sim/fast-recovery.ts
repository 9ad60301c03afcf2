// The simulator runs every validator in one process, so each signed message is recovered by all
// N − 1 receivers from the same bytes; a real network recovers it once per host. Memoising the
// native binding's recovery (a pure function of its inputs) keeps the crypto real and the
// simulator's cost per message near a real node's (I15). Only the simulator calls this.
import { createRequire } from 'node:module';

interface Binding {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

const MAX_ENTRIES = 200_000;
let installed = false;

export function memoiseRecovery(): void {
  if (installed) return;
  installed = true;
  let binding: Binding;
  try {
    binding = createRequire(import.meta.url)('secp256k1/bindings') as Binding;
  } catch {
    return; // noble's fallback: slower, still correct
  }
  const recover = binding.ecdsaRecover.bind(binding);
  const cache = new Map<string, Uint8Array>();
  binding.ecdsaRecover = (sig, recid, msg32, compressed) => {
    const key = Buffer.from(sig).toString('latin1') + Buffer.from(msg32).toString('latin1') + recid + (compressed ? 'c' : 'u');
    let pub = cache.get(key);
    if (pub === undefined) {
      pub = recover(sig, recid, msg32, compressed);
      if (cache.size >= MAX_ENTRIES) cache.clear();
      cache.set(key, pub);
    }
    return pub;
  };
}
