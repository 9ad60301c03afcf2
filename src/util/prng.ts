// mulberry32: a small seeded generator, for what must come out the same on every run from one seed:
// randomised tests (a failure is reproducible from its seed) and the p2p fault injection (src/p2p/faults.ts).
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
