// RLP item headers read and written without decoding or copying the payload: the signing digest
// cuts fields out of a raw transaction, the transaction journal frames raw transactions as they are.

/**
 * [payload start, item end] of the RLP item at `pos`. Unchecked: the caller validated the encoding
 * (the decoder did), or bounds-checks the end itself (a header cut short gives NaN).
 */
export function rlpSpan(b: Uint8Array, pos: number): [number, number] {
  const p = b[pos]!;
  if (p < 0x80) return [pos, pos + 1];
  if (p < 0xb8) return [pos + 1, pos + 1 + p - 0x80];
  if (p < 0xc0) return long(b, pos, p - 0xb7);
  if (p < 0xf8) return [pos + 1, pos + 1 + p - 0xc0];
  return long(b, pos, p - 0xf7);
}

function long(b: Uint8Array, pos: number, lengthBytes: number): [number, number] {
  let len = 0;
  for (let i = 1; i <= lengthBytes; i++) len = len * 256 + b[pos + i]!;
  const start = pos + 1 + lengthBytes;
  return [start, start + len];
}

/** The header of an RLP list (`offset` 0xc0) or byte string (0x80) whose payload is `len` bytes. */
export function rlpHeader(len: number, offset: 0x80 | 0xc0): number[] {
  if (len < 56) return [offset + len];
  const bytes: number[] = [];
  for (let l = len; l > 0; l = Math.floor(l / 256)) bytes.unshift(l % 256);
  return [offset + 55 + bytes.length, ...bytes];
}
