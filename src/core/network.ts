// What the RPC layer (admin_, net_) sees of the network, implemented by the libp2p host.

/** admin_peers' item (Venachain's p2p.PeerInfo). */
export interface PeerInfo {
  /** 128 hex digits: the peer's node public key (its enode id) */
  id: string;
  name: string;
  caps: string[];
  network: { localAddress: string; remoteAddress: string; inbound: boolean; trusted: boolean; static: boolean; consensus: boolean };
  /** the chain protocol's view of the peer: its head once the handshake is done, else "handshake" */
  protocols: Record<string, { version: number; number: number; head: string } | 'handshake'>;
}

/** admin_nodeInfo's network part. */
export interface LocalNodeInfo {
  /** 128 hex digits */
  id: string;
  enode: string;
  ip: string;
  ports: { discovery: number; listener: number };
  listenAddr: string;
  /** the libp2p multiaddrs this node listens on, with its peer id */
  multiaddrs: string[];
  peerId: string;
}

export interface Network {
  readonly listening: boolean;
  peerCount(): number;
  /** admin_peers (named apart from PeerSet.peers, which the same host implements for the sync) */
  adminPeers(): PeerInfo[];
  nodeInfo(): LocalNodeInfo;
  /** admin_addPeer: an enode URL or a multiaddr with /p2p/<id>; kept as a static peer (redialled). false: not a peer address. */
  addPeer(url: string): Promise<boolean>;
  /** admin_removePeer: forgets a static peer and disconnects it. */
  removePeer(url: string): Promise<boolean>;
  close(): Promise<void>;
}
