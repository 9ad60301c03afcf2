// Reused memory for large responses assembled as bytes (log lists, F7, F8).
//
// Why: a fresh buffer of a few hundred KiB is new memory from the OS, and its first touch costs a
// page fault per 4 KiB page. Measured here (bench/logs.ts, 1,000 logs = 455 KiB): assembling into a
// fresh buffer took 1.0–1.8 ms of faults per answer, into a reused one 0.09 ms; server CPU per
// request fell from ~3 ms to ~0.5 ms.
//
// The contract is ownership, never timing: a buffer goes back to the pool only when its last user
// hands it back with releaseReply() — a transport that has copied the bytes out (uWebSockets.js
// copies synchronously in end()/send()), or a batch that has copied its parts. Forgetting to release
// is always safe (the garbage collector takes it and the pool makes a new one); releasing what is
// still in use would not be, so only code that knows the bytes are consumed calls it.
import type { RpcReply } from './types.ts';

/** Below this, allocation is cheap (Node's slab pool, or few pages): not pooled. */
const MIN_POOLED = 64 * 1024;
/** Above this, an answer is rare enough to pay for its own memory. */
const MAX_POOLED = 16 * 1024 * 1024;
/** Bytes the free lists may hold in all. */
const MAX_RETAINED = 32 * 1024 * 1024;

/** Free buffers by size class (a power of two from MIN_POOLED to MAX_POOLED). */
const free = new Map<number, ArrayBuffer[]>();
/** Buffers handed out and not yet released: only these can come back. */
const lent = new WeakSet<ArrayBuffer>();
let retained = 0;

function sizeClass(size: number): number {
  let c = MIN_POOLED;
  while (c < size) c *= 2;
  return c;
}

/**
 * A buffer of exactly `size` bytes (contents undefined) for a reply, from the pool when it is large
 * enough to be worth it. Hand it back with releaseReply() once its bytes are consumed.
 */
export function replyBuffer(size: number): Buffer {
  if (size < MIN_POOLED || size > MAX_POOLED) return Buffer.allocUnsafe(size);
  const c = sizeClass(size);
  let ab = free.get(c)?.pop();
  if (ab !== undefined) retained -= c;
  else ab = Buffer.allocUnsafeSlow(c).buffer as ArrayBuffer; // its own ArrayBuffer of exactly c bytes
  lent.add(ab);
  return Buffer.from(ab, 0, size);
}

/** Gives a reply's memory back to the pool: call only when nothing reads these bytes any more. */
export function releaseReply(reply: RpcReply | undefined): void {
  if (reply === undefined || typeof reply === 'string') return;
  const ab = reply.buffer as ArrayBuffer;
  if (!lent.delete(ab)) return; // not from the pool, or already back
  const c = ab.byteLength;
  if (retained + c > MAX_RETAINED) return;
  let list = free.get(c);
  if (list === undefined) free.set(c, (list = []));
  list.push(ab);
  retained += c;
}
