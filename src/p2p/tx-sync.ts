// `/chain/txs/1`: a peer that just connected gets this node's pending transactions (geth's
// syncTransactions). Gossip reaches only the peers subscribed when a transaction is published, so a
// node that starts, restarts or comes back from a partition would never see what waits in its
// peers' pools — and a proposer might never propose it. Right after a handshake each side opens a
// stream and pushes one frame per signed transaction (door.pendingTransactions: sender by sender in
// nonce order, at most TX_PUSH_COUNT and TX_PUSH_BYTES), then an empty frame. Whole transactions,
// not hashes to fetch: a transfer is ~100 bytes, so an announcement round would save little and
// cost a round trip. The receiver admits them through the door as the transactions topic does —
// an invalid one is a fault of its sender — but relays none: every node pushes its own pool to each
// new peer, so a relay would only repeat what the other peers were sent or gossiped.
import type { Connection, Libp2p, PeerId, Stream } from '@libp2p/interface';
import type { ChainDoor } from '../core/chain-door.ts';
import type { Logger } from '../util/logger.ts';
import { MAX_TX_FRAME, TXS_PROTOCOL, TX_PUSH_BYTES, TX_PUSH_COUNT } from './wire.ts';
import { PeerFaultError, frames, isPeerFault } from './frames.ts';

/** How long one push may take to cross (4 MiB at most). */
const PUSH_TIMEOUT_MS = 30_000;

/**
 * The receiver's side: reads the whole push, then admits each transaction in order. Read first: a
 * push is many small frames that yamux delivers a window (256 KiB) at a time, more than one frame's
 * buffer holds while each waits for its admission — so the buffer holds a whole push. A malformed
 * frame, one over the limits or an invalid transaction is a fault of the sender.
 */
export async function servePendingTransactions(libp2p: Libp2p, door: ChainDoor, fault: (peer: PeerId, reason: string) => void, log: Logger): Promise<void> {
  await libp2p.handle(
    TXS_PROTOCOL,
    async (stream: Stream, connection: Connection) => {
      try {
        // each frame's length prefix: at most 3 bytes for MAX_TX_FRAME
        const lp = frames(stream, MAX_TX_FRAME, TX_PUSH_BYTES + 3 * TX_PUSH_COUNT + 16);
        const signal = AbortSignal.timeout(PUSH_TIMEOUT_MS);
        const txs: Uint8Array[] = [];
        let bytes = 0;
        for (;;) {
          const raw = (await lp.read({ signal })).subarray();
          if (raw.length === 0) break;
          bytes += raw.length;
          if (txs.push(raw) > TX_PUSH_COUNT) throw new PeerFaultError(`more than ${TX_PUSH_COUNT} transactions`);
          if (bytes > TX_PUSH_BYTES) throw new PeerFaultError(`more than ${TX_PUSH_BYTES} bytes of transactions`);
        }
        await stream.close({ signal });
        const started = performance.now();
        let added = 0;
        for (const raw of txs) {
          const outcome = await door.receiveTransaction(raw);
          if (outcome.kind === 'invalid') throw new PeerFaultError(`invalid transaction: ${outcome.reason}`);
          if (outcome.kind === 'added') added++;
        }
        log.debug(`p2p: ${txs.length} transactions (${bytes} bytes) pushed by ${connection.remotePeer}: ${added} new, admitted in ${(performance.now() - started).toFixed(0)} ms`);
      } catch (e) {
        if (isPeerFault(e)) fault(connection.remotePeer, `pushed transactions: ${(e as Error).message}`);
        stream.abort(e as Error);
      }
    },
    { maxInboundStreams: 2 },
  );
}

/** The sender's side: pushes this node's pending transactions to a peer just handshaked (nothing when the pool has none). */
export async function pushPendingTransactions(connection: Connection, door: ChainDoor): Promise<number> {
  const txs = door.pendingTransactions(TX_PUSH_COUNT, TX_PUSH_BYTES);
  if (txs.length === 0) return 0;
  const signal = AbortSignal.timeout(PUSH_TIMEOUT_MS);
  const stream = await connection.newStream(TXS_PROTOCOL, { signal });
  try {
    const lp = frames(stream, MAX_TX_FRAME);
    await lp.writeV([...txs, new Uint8Array(0)], { signal });
    await stream.close({ signal });
    return txs.length;
  } catch (e) {
    stream.abort(e as Error);
    throw e;
  }
}
