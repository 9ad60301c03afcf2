// The libp2p host: this node's place in the network. One secp256k1 node key is its identity (peer
// id, address and enode), TCP + noise + yamux carry identify, ping, gossipsub (gossip.ts) and the
// chain's own protocols (handshake.ts, block-ranges.ts, tx-sync.ts, snap-serve.ts). Admission follows Venachain
// (admission.ts), misbehaviour is counted (peer-faults.ts), and a dial loop keeps the bootnodes,
// static peers and consensus nodes connected — libp2p 3 has no autodial. Validators also carry the
// consensus channel (consensus-streams.ts). Tests may inject faults (faults.ts). It implements what
// the RPC needs (Network) and what the sync needs (PeerSet). Inbound connections are rate-limited
// per address before their handshake (inbound-limit.ts).
import './promise-with-resolvers.ts'; // first: libp2p calls Promise.withResolvers, which Node 20 lacks
import { createLibp2p } from 'libp2p';
import { tcp } from '@libp2p/tcp';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { identify } from '@libp2p/identify';
import { ping } from '@libp2p/ping';
import { gossipsub, TopicValidatorResult, type GossipSub } from '@libp2p/gossipsub';
import { privateKeyFromRaw } from '@libp2p/crypto/keys';
import { peerIdFromString } from '@libp2p/peer-id';
import type { Connection, Libp2p, PeerId } from '@libp2p/interface';
import { sha256 } from '@noble/hashes/sha2.js';
import type { ChainDoor, ChainHead } from '../core/chain-door.ts';
import type { PeerHead, PeerSet } from './peer-set.ts';
import type { LocalNodeInfo, Network, PeerInfo } from '../core/network.ts';
import type { NodeKey } from '../crypto/node-key.ts';
import type { Logger } from '../util/logger.ts';
import { bytesToHex, equalBytes } from '../util/hex.ts';
import { Admission } from './admission.ts';
import { PeerFaults } from './peer-faults.ts';
import { isPeerFault } from './frames.ts';
import { exchangeStatus, serveStatus, statusMismatch, HANDSHAKE_TIMEOUT_MS } from './handshake.ts';
import { requestBlockRange, serveBlockRanges } from './block-ranges.ts';
import { pushPendingTransactions, servePendingTransactions } from './tx-sync.ts';
import { requestSnap, serveSnap } from './snap-serve.ts';
import { startGossip, type TopicValidator } from './gossip.ts';
import { startConsensusStreams } from './consensus-streams.ts';
import { InboundLimit, DEFAULT_INBOUND_RATE } from './inbound-limit.ts';
import { FaultInjector, watchFaultFile } from './faults.ts';
import { parsePeerAddress, nodeIdOfPeerId, tcpAddr } from './peer-address.ts';
import { CHAIN_PROTOCOL, MAX_GOSSIP_MESSAGE, topicsOf, type Status } from './wire.ts';

/** How often the dial loop looks for a target that is not connected. */
const DIAL_INTERVAL_MS = 1000;
const DIAL_TIMEOUT_MS = 5000;
/**
 * How long this node's head may stand still before it asks a peer (the next, in turn) for its
 * status. Peers' heads are otherwise learnt from the handshake and block gossip only: an announcement
 * lost — or ignored by validators that decided the block themselves, so not relayed — would leave a
 * node behind for good, and a validator behind cannot take part in its peers' rounds.
 */
const HEAD_CHECK_MS = 2000;
/** A validator that hears votes for a later block asks their sender for its head at once, this often at most (I19). */
const AHEAD_ASK_MS = 1000;

export interface NetworkOptions {
  key: NodeKey;
  /** addr: resolved by the node (127.0.0.1 on a dev chain, 0.0.0.0 on a genesis-file chain); port 0: a free one */
  /** faults: a fault file (faults.ts), for tests only */
  /** inboundRate / inboundExempt: --p2p.inboundrate and its exempt CIDRs (inbound-limit.ts) */
  config: { addr: string; port: number; bootnodes: string[]; maxPeers: number; inboundRate?: number; inboundExempt?: string[]; faults?: string };
  door: ChainDoor;
  /** the genesis' firstValidatorNode (an enode URL; '' or port 0: none): dialled like a bootnode */
  firstValidatorNode: string;
  /** this node's client name (web3_clientVersion), told to peers in the handshake */
  name: string;
  log: Logger;
}

export type NetworkHost = Network & PeerSet;

interface HandshakedPeer {
  head: ChainHead;
  name: string;
}

export async function startNetwork(o: NetworkOptions): Promise<NetworkHost> {
  const { door, log } = o;
  const privateKey = privateKeyFromRaw(o.key.privateKey);
  let libp2p!: Libp2p<{ pubsub: GossipSub }>;
  const handshaked = new Map<string, HandshakedPeer>();
  const headListeners: ((peer: PeerHead) => void)[] = [];
  const faults = new PeerFaults((id, reason) => {
    log.info(`p2p: peer ${id} refused for a while: ${reason}`, { peer: String(id) });
    disconnect(peerIdFromString(id), reason);
  });
  // aborted, not closed: a graceful close waits for the peer to end its streams (gossipsub's never end)
  const disconnect = (peer: PeerId, reason: string) => {
    for (const connection of libp2p.getConnections(peer)) connection.abort(new Error(reason));
  };
  const fault = (peer: PeerId | string, reason: string) => {
    log.debug(`p2p: fault of ${peer}: ${reason}`, { peer: String(peer) });
    faults.fault(peer.toString(), reason);
  };
  const wasted = (peer: PeerId | string, what: string, cost?: number) => {
    if (faults.wasted(peer.toString(), what, cost)) log.debug(`p2p: fault of ${peer}: waste, the last: ${what}`, { peer: String(peer) });
  };
  const inbound = new InboundLimit(o.config.inboundRate ?? DEFAULT_INBOUND_RATE, o.config.inboundExempt ?? []);

  libp2p = await createLibp2p({
    privateKey,
    addresses: { listen: [tcpAddr(o.config.addr, o.config.port)] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    connectionGater: {
      denyDialPeer: (peer) => refused(peer.toString()),
      denyOutboundEncryptedConnection: (peer) => refused(peer.toString()),
      // before the noise handshake: a closed socket costs nothing, a handshake does
      denyInboundConnection: (maConn) => !inbound.admit(ipOf(maConn.remoteAddr)),
      denyInboundEncryptedConnection: (peer, maConn) => {
        const deny = refused(peer.toString()) || !admitsInbound(peer.toString());
        if (deny) inbound.refused(ipOf(maConn.remoteAddr));
        return deny;
      },
    },
    connectionManager: {
      // the per-address limit is InboundLimit's (the gater above), loopback included; libp2p's own
      // (5 a second) would hold registered peers behind one address to it, and its allow list also
      // lifts maxConnections
      inboundConnectionThreshold: Number.MAX_SAFE_INTEGER,
      maxConnections: Math.max(o.config.maxPeers, 1) * 2 + 8,
    },
    // a node busy executing a batch answers pings late: that is no reason to drop it (libp2p-facts)
    connectionMonitor: { abortConnectionOnPingFailure: false },
    services: {
      identify: identify(),
      ping: ping(),
      pubsub: gossipsub({
        // blocks and transactions carry their own signatures; a message's id is its content's hash
        globalSignaturePolicy: 'StrictNoSign',
        msgIdFn: (msg) => sha256(msg.data),
        fastMsgIdFn: (msg) => bytesToHex(sha256(msg.data ?? new Uint8Array(0))),
        ignoreDuplicatePublishError: true,
        maxInboundDataLength: MAX_GOSSIP_MESSAGE,
        // messages and subscriptions on any other topic are dropped unread (and take no memory)
        allowedTopics: Object.values(topicsOf(door.genesisHash)),
      }),
    },
    start: false,
  });
  const selfId = libp2p.peerId.toString();
  const admission = new Admission(selfId);
  const injected = o.config.faults === undefined ? undefined : new FaultInjector(selfId);
  /** refused both ways: banned, or cut off by an injected partition */
  function refused(id: string): boolean {
    return faults.banned(id) || injected?.separated(id) === true;
  }

  function admitsInbound(id: string): boolean {
    if (!admission.admits(id)) return false;
    return handshaked.size < o.config.maxPeers || admission.isStatic(id) || admission.isConsensus(id);
  }

  for (const url of [o.firstValidatorNode, ...o.config.bootnodes]) {
    // a dev chain created with --p2p.port 0 names its first validator without a port
    if (url === '' || /:0(\?.*)?$/.test(url)) continue;
    try {
      const { peerId, addr } = parsePeerAddress(url);
      admission.addStatic(peerId.toString(), addr);
    } catch (e) {
      log.warn(`p2p: bootnode ${url} ignored: ${(e as Error).message}`);
    }
  }
  const refreshRecords = async () => {
    admission.setRecords(await door.nodeRecords());
    // a peer whose record went (deleted or removed) and that is no bootnode or static peer is dropped
    for (const peer of libp2p.getPeers()) {
      if (!admission.admits(peer.toString())) {
        log.info(`p2p: peer ${peer} has no NodeManagement record in force any more: disconnected`, { peer: String(peer) });
        disconnect(peer, 'no NodeManagement record in force');
      }
    }
  };
  await refreshRecords();
  door.onNodeRecordsChanged(() => void refreshRecords().catch((e) => log.warn(`p2p: reading NodeManagement's records failed: ${(e as Error).message}`)));

  const localStatus = (): Status => ({ networkId: door.networkId, genesisHash: door.genesisHash, head: door.head(), name: o.name });
  const noteHead = (peer: PeerId | string, head: ChainHead) => {
    const p = handshaked.get(peer.toString());
    if (!p || head.number <= p.head.number) return;
    p.head = head;
    for (const l of headListeners) l({ id: peer.toString(), head });
  };
  const handshakeDone = (connection: Connection, remote: Status) => {
    const id = connection.remotePeer.toString();
    const mismatch = statusMismatch(localStatus(), remote);
    if (mismatch) {
      faults.ban(id, `handshake: ${mismatch}`);
      return;
    }
    // a handshake again (a peer's head check asks for the status anew) is no new peer: its pool was pushed
    const known = handshaked.has(id);
    handshaked.set(id, { head: remote.head, name: remote.name });
    for (const l of headListeners) l({ id, head: remote.head });
    if (known) return;
    pushPendingTransactions(connection, door).then(
      (sent) => sent > 0 && log.debug(`p2p: ${sent} pending transactions pushed to ${id}`),
      (e: Error) => log.debug(`p2p: pushing pending transactions to ${id} failed: ${e.message}`),
    );
  };
  const handshakeFailed = (connection: Connection, e: unknown) => {
    if (isPeerFault(e)) fault(connection.remotePeer, `handshake: ${(e as Error).message}`);
    else log.debug(`p2p: handshake with ${connection.remotePeer} failed: ${(e as Error).message}`, { peer: String(connection.remotePeer) });
    connection.abort(new Error('handshake failed'));
  };
  await serveStatus(libp2p, localStatus, handshakeDone, handshakeFailed);
  await serveBlockRanges(libp2p, door, fault);
  await servePendingTransactions(libp2p, door, fault, log);
  await serveSnap(libp2p, door, { fault, wasted, injected: () => injected?.stateServing() });

  libp2p.addEventListener('connection:open', ({ detail: connection }) => {
    if (connection.direction === 'outbound') {
      exchangeStatus(connection, localStatus()).then((remote) => handshakeDone(connection, remote), (e) => handshakeFailed(connection, e));
      return;
    }
    // an inbound peer that never sends its status holds a connection for nothing
    setTimeout(() => {
      if (connection.status === 'open' && !handshaked.has(connection.remotePeer.toString())) connection.abort(new Error('no handshake'));
    }, HANDSHAKE_TIMEOUT_MS).unref();
  });
  libp2p.addEventListener('peer:disconnect', ({ detail: peer }) => handshaked.delete(peer.toString()));

  let stopWatchingFaults: (() => void) | undefined;
  if (injected) {
    log.warn(`p2p: fault injection is on (${o.config.faults}): for tests only — gossip from peers may be dropped, delayed, duplicated, and peers cut off`);
    stopWatchingFaults = await watchFaultFile(
      o.config.faults!,
      (plan) => {
        injected.setPlan(plan);
        for (const peer of libp2p.getPeers()) if (injected.separated(peer.toString())) disconnect(peer, 'partitioned (fault injection)');
      },
      log,
    );
  }
  const guard = (validate: TopicValidator) => (injected ? injected.guard(validate, TopicValidatorResult.Ignore) : validate);

  /** Asks a peer for its status: a head it moved on to starts the sync (noteHead). */
  const askHead = (id: string) => {
    const connection = libp2p.getConnections(peerIdFromString(id))[0];
    if (connection === undefined) return;
    exchangeStatus(connection, localStatus()).then(
      (remote) => noteHead(id, remote.head),
      (e: Error) => log.debug(`p2p: asking ${id} for its head failed: ${e.message}`),
    );
  };
  // a validator that missed a block's end cannot take part in the next one's rounds: it asks at once
  let askedAheadAt = 0;
  const ahead = (id: string) => {
    const now = Date.now();
    if (now - askedAheadAt < AHEAD_ASK_MS) return;
    askedAheadAt = now;
    askHead(id);
  };
  await startConsensusStreams(libp2p, door, { fault, wasted, ahead, peers: () => handshaked.keys(), injected, log });
  door.onHead(() => faults.newHead());
  await libp2p.start();
  startGossip(libp2p.services.pubsub, door, { fault, wasted, peerHead: noteHead, log, guard });

  // the dial loop: every target that is not connected (nor being dialled, nor banned) is dialled
  const dialling = new Set<string>();
  const dialLoop = setInterval(() => {
    for (const [id, target] of admission.targets()) {
      if (dialling.has(id) || refused(id) || libp2p.getConnections(peerIdFromString(id)).length > 0) continue;
      if (!target.static && handshaked.size >= o.config.maxPeers) continue;
      dialling.add(id);
      libp2p
        .dial(target.addr, { signal: AbortSignal.timeout(DIAL_TIMEOUT_MS) })
        .catch((e: Error) => log.debug(`p2p: dialling ${target.addr} failed: ${e.message}`))
        .finally(() => dialling.delete(id));
    }
  }, DIAL_INTERVAL_MS);

  let standing = door.head().hash;
  let asked = 0;
  const headCheck = setInterval(() => {
    const head = door.head().hash;
    if (!equalBytes(head, standing)) {
      standing = head;
      return;
    }
    const ids = [...handshaked.keys()];
    const id = ids[asked++ % ids.length];
    if (id !== undefined) askHead(id);
  }, HEAD_CHECK_MS);

  const listenAddrs = libp2p.getMultiaddrs();
  const port = Number(listenAddrs[0] ? tcpPortOf(listenAddrs[0]) : o.config.port);
  // listening on every interface: the enode names the first that is not loopback
  const ip = o.config.addr === '0.0.0.0' || o.config.addr === '::' ? (listenAddrs.map(ipOf).find((a) => a !== undefined && !a.startsWith('127.')) ?? '127.0.0.1') : o.config.addr;
  const enode = `enode://${o.key.id}@${hostPort(ip, port)}`;
  log.info(`p2p: listening on ${o.config.addr}:${port}, ${enode}, peer id ${selfId}`);

  let closed = false;
  const host: NetworkHost = {
    get listening() {
      return !closed;
    },
    peerCount: () => handshaked.size,
    adminPeers(): PeerInfo[] {
      return libp2p.getPeers().flatMap((peer) => {
        // two nodes that dialled each other at once hold two connections: the peer is listed once
        const connection = libp2p.getConnections(peer)[0];
        if (!connection) return [];
        const id = peer.toString();
        const p = handshaked.get(id);
        return [
          {
            id: nodeIdOfPeerId(peer) ?? id,
            name: p?.name ?? '',
            caps: [`${CHAIN_PROTOCOL.name}/${CHAIN_PROTOCOL.version}`],
            network: {
              // libp2p does not tell a connection's local port: the listener's address stands for it
              localAddress: hostPort(ip, port),
              remoteAddress: endpoint(connection),
              inbound: connection.direction === 'inbound',
              trusted: false,
              static: admission.isStatic(id),
              consensus: admission.isConsensus(id),
            },
            protocols: { [CHAIN_PROTOCOL.name]: p ? { version: CHAIN_PROTOCOL.version, number: Number(p.head.number), head: bytesToHex(p.head.hash) } : 'handshake' },
          },
        ];
      });
    },
    nodeInfo(): LocalNodeInfo {
      return {
        id: o.key.id,
        enode,
        ip,
        ports: { discovery: 0, listener: port },
        listenAddr: hostPort(o.config.addr, port),
        multiaddrs: libp2p.getMultiaddrs().map(String),
        peerId: selfId,
      };
    },
    async addPeer(url) {
      let address;
      try {
        address = parsePeerAddress(url);
      } catch {
        return false;
      }
      admission.addStatic(address.peerId.toString(), address.addr);
      return true;
    },
    async removePeer(url) {
      let address;
      try {
        address = parsePeerAddress(url);
      } catch {
        return false;
      }
      const known = admission.removeStatic(address.peerId.toString());
      if (known) disconnect(address.peerId, 'removed (admin_removePeer)');
      return known;
    },
    peers: () => [...handshaked].map(([id, p]) => ({ id, head: p.head })),
    onPeerHead(listener) {
      headListeners.push(listener);
    },
    async requestBlocks(peerId, from, count) {
      try {
        return await requestBlockRange(libp2p, peerIdFromString(peerId), from, count);
      } catch (e) {
        if (isPeerFault(e)) {
          fault(peerId, `block range answer: ${(e as Error).message}`);
          throw Object.assign(e as Error, { penalised: true });
        }
        throw e;
      }
    },
    async requestState(peerId, request) {
      try {
        return await requestSnap(libp2p, peerIdFromString(peerId), request);
      } catch (e) {
        if (isPeerFault(e)) {
          fault(peerId, `state answer: ${(e as Error).message}`);
          throw Object.assign(e as Error, { penalised: true });
        }
        throw e;
      }
    },
    drop(peerId, reason) {
      log.debug(`p2p: ${peerId} served data that does not verify: ${reason}`, { peer: peerId });
      faults.ban(peerId, reason);
    },
    penalise: fault,
    distrust(peerId) {
      // level with this node: it is asked for blocks again once it tells a head above
      const p = handshaked.get(peerId);
      if (p) p.head = door.head();
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(dialLoop);
      clearInterval(headCheck);
      stopWatchingFaults?.();
      await libp2p.stop();
    },
  };
  return host;
}

function ipOf(addr: { getComponents(): { name: string; value?: string }[] }): string | undefined {
  return addr.getComponents().find((c) => c.name === 'ip4' || c.name === 'ip6')?.value;
}

function tcpPortOf(addr: { getComponents(): { name: string; value?: string }[] }): string {
  return addr.getComponents().find((c) => c.name === 'tcp')?.value ?? '0';
}

/** `ip:port`, an IPv6 address in brackets (as enode URLs and admin_peers write them) */
function hostPort(ip: string, port: number | string): string {
  return `${ip.includes(':') ? `[${ip}]` : ip}:${port}`;
}

function endpoint(connection: Connection): string {
  return hostPort(ipOf(connection.remoteAddr) ?? '', tcpPortOf(connection.remoteAddr));
}
