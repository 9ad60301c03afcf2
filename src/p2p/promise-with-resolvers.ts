// Node 20 has no Promise.withResolvers (Node 22 does) and libp2p's stack calls it when a node starts
// (it-queue, yamux, @libp2p/utils, ping): installed before any libp2p code runs (host.ts imports it first).
const P = Promise as unknown as { withResolvers?: () => unknown };
P.withResolvers ??= function withResolvers<T>() {
  let resolve!: (value: T | PromiseLike<T>) => void;
  let reject!: (reason?: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};

export {};
