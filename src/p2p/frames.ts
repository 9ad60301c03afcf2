// Length-prefixed frames on a libp2p stream with explicit limits, and the one question asked of
// every failure: was it the peer's fault (an oversized or malformed frame: penalise it) or the
// transport's (a reset, a timeout, an early end: not held against it)?
import { lpStream, type LengthPrefixedStream } from '@libp2p/utils';
import type { Stream } from '@libp2p/interface';

/** A peer sent something that is not what the protocol allows. */
export class PeerFaultError extends Error {}

/** @libp2p/utils' errors for a length prefix or frame over the limit, and a read buffer overrun */
const FRAME_LIMIT_ERRORS = new Set(['InvalidDataLengthError', 'InvalidDataLengthLengthError', 'InvalidMessageLengthError', 'StreamBufferError']);

export function isPeerFault(e: unknown): boolean {
  return e instanceof PeerFaultError || FRAME_LIMIT_ERRORS.has((e as Error)?.name);
}

/** `maxBuffer`: the bytes received and not yet read that are allowed — by default one whole frame and its prefix (lpStream's default is 4 MiB). */
export function frames(stream: Stream, maxFrame: number, maxBuffer = maxFrame + 16): LengthPrefixedStream<Stream> {
  return lpStream(stream, { maxDataLength: maxFrame, maxBufferSize: maxBuffer });
}

/** Reads one frame and decodes it; a decode error is the peer's fault. */
export async function readFrame<T>(lp: LengthPrefixedStream<Stream>, decode: (bytes: Uint8Array) => T, signal: AbortSignal): Promise<T> {
  const frame = (await lp.read({ signal })).subarray();
  try {
    return decode(frame);
  } catch (e) {
    throw new PeerFaultError((e as Error).message);
  }
}
