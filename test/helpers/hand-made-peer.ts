// Hand-made libp2p peers in the test process, for the hostile-peer tests: a bare libp2p host that
// speaks the chain's protocols as the test writes them, made a static peer of a real node (so it
// is admitted), and the checks that the node handshook with it or dropped and refused it.
import * as assert from 'uvu/assert';
import type { Libp2p, Stream } from '@libp2p/interface';
import type { GossipSub } from '@libp2p/gossipsub';
import type { TestNode } from './node.ts';
import type { Status } from '../../src/p2p/wire.ts';

export type Peer = Libp2p<{ pubsub: GossipSub }>;
type Lib = Awaited<ReturnType<typeof loadLibp2p>>;
type Wire = typeof import('../../src/p2p/wire.ts');

// libp2p's packages are ESM-only: loaded with import() (in test.before), as the node loads them (uvu -r tsx require()s test files)
export async function loadLibp2p() {
  await import('../../src/p2p/promise-with-resolvers.ts'); // libp2p calls Promise.withResolvers, which Node 20 lacks
  return {
    ...(await import('libp2p')),
    ...(await import('@libp2p/tcp')),
    ...(await import('@chainsafe/libp2p-noise')),
    ...(await import('@chainsafe/libp2p-yamux')),
    ...(await import('@libp2p/identify')),
    ...(await import('@libp2p/gossipsub')),
    ...(await import('@libp2p/utils')),
    ...(await import('@multiformats/multiaddr')),
    ...(await import('@noble/hashes/sha2.js')),
    ...(await import('@libp2p/crypto/keys')),
    ...(await import('@libp2p/peer-id')),
  };
}

/**
 * A bare libp2p host of the chain whose genesis is `genesisHash` (its status answers a node's
 * handshake: by default level with that genesis, so no node's sync asks it for blocks), subscribed
 * to the transactions and blocks topics. `key`: a 32-byte secp256k1 node key (default: a new
 * Ed25519 identity, a stranger to every chain).
 */
export async function createPeer(lib: Lib, wire: Wire, genesisHash: Uint8Array, status: Partial<Status> = {}, key?: Uint8Array): Promise<Peer> {
  const peer = (await lib.createLibp2p({
    ...(key ? { privateKey: lib.privateKeyFromRaw(key) } : {}),
    addresses: { listen: ['/ip4/127.0.0.1/tcp/0'] },
    transports: [lib.tcp()],
    connectionEncrypters: [lib.noise()],
    streamMuxers: [lib.yamux()],
    connectionMonitor: { enabled: false },
    services: {
      identify: lib.identify(),
      pubsub: lib.gossipsub({ globalSignaturePolicy: 'StrictNoSign', msgIdFn: (m) => lib.sha256(m.data), allowPublishToZeroTopicPeers: true }),
    },
  })) as Peer;
  await peer.handle(wire.STATUS_PROTOCOL, async (stream: Stream) => {
    const lp = lib.lpStream(stream);
    await lp.read();
    await lp.write(wire.encodeStatus(statusOf(genesisHash, status)));
    await stream.close();
  });
  const topics = wire.topicsOf(genesisHash);
  peer.services.pubsub.subscribe(topics.txs);
  peer.services.pubsub.subscribe(topics.blocks);
  return peer;

  function statusOf(genesis: Uint8Array, s: Partial<Status>): Status {
    return { networkId: 300n, genesisHash: genesis, head: { number: 0n, hash: genesis }, name: 'hostile', ...s };
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with what `probe` finds; gives up after `timeoutMs` (a give-up, not a pace: a loaded machine took over 10 s). */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export interface HandMadePeers {
  lib: Lib;
  wire: Wire;
  /** the node's listening multiaddr */
  nodeAddr: string;
  /** A peer of the node's chain; `status` answers the node's handshake (default: the node's genesis, head the genesis). */
  peer(status?: Partial<Status>): Promise<Peer>;
  /** Makes the peer a static peer of the node and waits until the node has done its handshake with it. */
  admitted(peer: Peer): Promise<void>;
  /** The node dropped the peer and refuses it: no connection, and a new dial of its own is closed at once. */
  refused(peer: Peer): Promise<void>;
  /** Whether the node lists the peer as handshaken. */
  listed(peer: Peer): boolean;
  stop(): Promise<void>;
}

/** Hand-made peers of `node` (its network on), whose chain starts at `genesisHash`. */
export async function handMadePeers(node: TestNode, genesisHash: Uint8Array): Promise<HandMadePeers> {
  const wire: Wire = await import('../../src/p2p/wire.ts');
  const lib = await loadLibp2p();
  const nodeAddr = node.network!.nodeInfo().multiaddrs[0]!;
  const started: Peer[] = [];
  const listed = (peer: Peer) => node.network!.peers().some((p) => p.id === peer.peerId.toString());
  return {
    lib,
    wire,
    nodeAddr,
    listed,
    async peer(status) {
      const peer = await createPeer(lib, wire, genesisHash, status);
      started.push(peer);
      return peer;
    },
    async admitted(peer) {
      assert.is(await node.rpc('admin_addPeer', [peer.getMultiaddrs()[0]!.toString()]), true);
      await until('the handshake', () => listed(peer));
    },
    async refused(peer) {
      await until('the peer to be dropped', () => peer.getConnections().length === 0 && !listed(peer));
      await peer.dial(lib.multiaddr(nodeAddr)).catch(() => {});
      await until('the redial to be refused', () => peer.getConnections().length === 0);
      await sleep(1200); // the node's dial loop passes over a banned static peer
      assert.is(listed(peer), false);
      assert.is(peer.getConnections().length, 0);
    },
    async stop() {
      for (const peer of started) await peer.stop();
    },
  };
}
