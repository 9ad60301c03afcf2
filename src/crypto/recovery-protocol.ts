// Messages between the main thread and a sender-recovery thread (signature-recovery.ts,
// recovery-thread.ts). One message carries a batch, packed into flat byte arrays that are moved,
// not copied: n digests (32 bytes each), n signatures r‖s (64) and n recovery ids.

export interface RecoveryRequest {
  id: number;
  digests: Uint8Array;
  signatures: Uint8Array;
  recids: Uint8Array;
}

/** keys: n uncompressed public keys without the 0x04 prefix (64 bytes each); ok[i] = 0 where none was recovered */
export interface RecoveryAnswer {
  id: number;
  keys: Uint8Array;
  ok: Uint8Array;
}
