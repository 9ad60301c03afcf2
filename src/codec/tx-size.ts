// The largest signed transaction any node takes: the pool's admission and the network's frames
// follow it, so a transaction one node admits always fits the gossip that carries it.

/** Venachain's TxSize (1 MiB), not geth's 128 KiB: its wasm contracts are deployed whole (S30). */
export const MAX_TX_BYTES = 1024 * 1024;
