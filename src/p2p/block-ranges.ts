// `/chain/blocks/1`: a peer asks for [from, count] blocks; the answer is one frame per encoded block
// (door.blocks: at most count, about RANGE_ANSWER_BYTES) and an empty frame to end it. One request
// per stream. The client side is PeerSet.requestBlocks, with a deadline and frame/total limits.
import type { Libp2p, PeerId, Stream, Connection } from '@libp2p/interface';
import type { ChainDoor } from '../core/chain-door.ts';
import { BLOCKS_PROTOCOL, MAX_BLOCK_FRAME, MAX_SMALL_FRAME, RANGE_ANSWER_BYTES, decodeRangeRequest, encodeRangeRequest } from './wire.ts';
import { PeerFaultError, frames, isPeerFault, readFrame } from './frames.ts';

/** How long a request may take, its answer included. */
export const RANGE_TIMEOUT_MS = 30_000;
/** How long a server waits for the request frame once the stream is open. */
const REQUEST_WAIT_MS = 5_000;

export async function serveBlockRanges(libp2p: Libp2p, door: ChainDoor, fault: (peer: PeerId, reason: string) => void): Promise<void> {
  await libp2p.handle(
    BLOCKS_PROTOCOL,
    async (stream: Stream, connection: Connection) => {
      try {
        const lp = frames(stream, MAX_SMALL_FRAME);
        const req = await readFrame(lp, decodeRangeRequest, AbortSignal.timeout(REQUEST_WAIT_MS));
        const blocks = door.blocks(req.from, req.count, RANGE_ANSWER_BYTES);
        await lp.writeV([...blocks, new Uint8Array(0)]);
        await stream.close();
      } catch (e) {
        if (isPeerFault(e)) fault(connection.remotePeer, `block range request: ${(e as Error).message}`);
        stream.abort(e as Error);
      }
    },
    { maxInboundStreams: 16 },
  );
}

/** Blocks from `from` on, at most `count`, from one peer; a malformed answer is a PeerFaultError. */
export async function requestBlockRange(libp2p: Libp2p, peer: PeerId, from: bigint, count: number): Promise<Uint8Array[]> {
  const signal = AbortSignal.timeout(RANGE_TIMEOUT_MS);
  const stream = await libp2p.dialProtocol(peer, BLOCKS_PROTOCOL, { signal });
  try {
    const lp = frames(stream, MAX_BLOCK_FRAME);
    await lp.write(encodeRangeRequest({ from, count }), { signal });
    const blocks: Uint8Array[] = [];
    let bytes = 0;
    for (;;) {
      const frame = (await lp.read({ signal })).subarray();
      if (frame.length === 0) break;
      blocks.push(frame);
      bytes += frame.length;
      if (blocks.length > count) throw new PeerFaultError(`block range answer holds more than the ${count} blocks asked for`);
      // the server stops adding blocks past RANGE_ANSWER_BYTES, so one block more is the most it may exceed it by
      if (bytes > RANGE_ANSWER_BYTES + MAX_BLOCK_FRAME) throw new PeerFaultError(`block range answer exceeds ${RANGE_ANSWER_BYTES + MAX_BLOCK_FRAME} bytes`);
    }
    await stream.close({ signal });
    return blocks;
  } catch (e) {
    stream.abort(e as Error);
    throw e;
  }
}
