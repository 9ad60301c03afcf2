// What every handler module gets: the chain core and the node's settings.
import type { ChainCore } from '../core/core.ts';
import type { Network } from '../core/network.ts';

export interface ApiContext {
  core: ChainCore;
  datadir: string;
  clientVersion: string;
  /** p2p listener port (0 while no p2p listener runs) */
  p2pPort: number;
  httpHost: string;
  /** HTTP listener is bound to a loopback address (personal_unlockAccount rule) */
  httpLoopback: boolean;
  allowInsecureUnlock: boolean;
  /** the peer-to-peer network; absent when the node runs none (in-process test nodes) */
  network?: Network;
  /** Throws, naming what is wrong, when `url` is not a peer address (admin_addPeer's enode URL or multiaddr). */
  parsePeerAddress(url: string): Promise<void>;
}
