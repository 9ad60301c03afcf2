// `/chain/status/1`, right after a connection opens: the dialler sends its status (network id,
// genesis hash, head, client name) and the listener answers with its own, so both learn the
// other's head from one stream. Whether the two belong together is the host's to judge
// (statusMismatch): both sides check, so both hang up on a peer of another chain.
import type { Connection, Libp2p, Stream } from '@libp2p/interface';
import { equalBytes, bytesToHex } from '../util/hex.ts';
import { MAX_SMALL_FRAME, STATUS_PROTOCOL, decodeStatus, encodeStatus, type Status } from './wire.ts';
import { frames, readFrame } from './frames.ts';

/** How long a handshake may take (a frame each way on an open connection). */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/** Why a peer's status does not fit this node's chain, or undefined when it does. */
export function statusMismatch(local: Status, remote: Status): string | undefined {
  if (remote.networkId !== local.networkId) return `network id ${remote.networkId}, this node's is ${local.networkId}`;
  if (!equalBytes(remote.genesisHash, local.genesisHash)) return `genesis ${bytesToHex(remote.genesisHash)}, this node's is ${bytesToHex(local.genesisHash)}`;
  return undefined;
}

/** The listener's side: answers each dialler's status with this node's and hands the peer's on. Errors reach `failed`. */
export async function serveStatus(libp2p: Libp2p, local: () => Status, received: (connection: Connection, status: Status) => void, failed: (connection: Connection, e: unknown) => void): Promise<void> {
  await libp2p.handle(
    STATUS_PROTOCOL,
    async (stream: Stream, connection: Connection) => {
      try {
        const lp = frames(stream, MAX_SMALL_FRAME);
        const signal = AbortSignal.timeout(HANDSHAKE_TIMEOUT_MS);
        const remote = await readFrame(lp, decodeStatus, signal);
        await lp.write(encodeStatus(local()), { signal });
        await stream.close({ signal });
        received(connection, remote);
      } catch (e) {
        stream.abort(e as Error);
        failed(connection, e);
      }
    },
    { maxInboundStreams: 2 },
  );
}

/** The dialler's side: sends this node's status on a new stream and reads the peer's. */
export async function exchangeStatus(connection: Connection, local: Status): Promise<Status> {
  const signal = AbortSignal.timeout(HANDSHAKE_TIMEOUT_MS);
  const stream = await connection.newStream(STATUS_PROTOCOL, { signal });
  try {
    const lp = frames(stream, MAX_SMALL_FRAME);
    await lp.write(encodeStatus(local), { signal });
    const remote = await readFrame(lp, decodeStatus, signal);
    await stream.close({ signal });
    return remote;
  } catch (e) {
    stream.abort(e as Error);
    throw e;
  }
}
