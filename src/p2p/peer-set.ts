// What the block sync (src/p2p/sync.ts) needs of the connected peers, implemented by the libp2p
// host (src/p2p/host.ts): their heads from the handshake and announcements, range requests, and a
// way to punish a peer that served a bad block.
import type { ChainHead } from '../core/chain-door.ts';
import type { SnapRequest } from './snap-wire.ts';
import type { SnapAnswer } from './snap-serve.ts';

export interface PeerHead {
  /** libp2p peer id (text) */
  id: string;
  head: ChainHead;
}

export interface PeerSet {
  /** connected peers that passed the handshake, with the head each last told us */
  peers(): PeerHead[];
  /** A peer's head moved (handshake, a block announcement): a sync may be due. */
  onPeerHead(listener: (peer: PeerHead) => void): void;
  /** Encoded blocks `from`…, at most `count` (the peer may send fewer; none when it has none). Rejects on a transport failure or a malformed answer (the peer is then penalised by the host, and the error's `penalised` is true). */
  requestBlocks(peerId: string, from: bigint, count: number): Promise<Uint8Array[]>;
  /** A state sync's request (N16): rejects as requestBlocks does. */
  requestState(peerId: string, request: SnapRequest): Promise<SnapAnswer>;
  /** The peer served data that cannot be honest (a range whose proof fails, code of another hash, short seals): disconnected and refused for a while. */
  drop(peerId: string, reason: string): void;
  /** The peer sent something wrong (a block refused with peerFault): lower its score, drop it when it goes on. */
  penalise(peerId: string, reason: string): void;
  /** The peer did not serve the head it claimed: its head counts as this node's until it tells a higher one. */
  distrust(peerId: string): void;
}
