// Peer addresses as users write them — Venachain's enode URLs (`enode://<128 hex>@ip:port`) and
// libp2p multiaddrs with `/p2p/<peer id>` — and the two names of one secp256k1 node key: the
// enode id (the uncompressed public key without its 0x04, what NodeManagement records hold) and
// the libp2p peer id (which embeds the compressed key). One key, so each follows from the other.
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr';
import { publicKeyFromRaw } from '@libp2p/crypto/keys';
import { peerIdFromPublicKey, peerIdFromString } from '@libp2p/peer-id';
import type { PeerId } from '@libp2p/interface';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { isIP } from 'node:net';
import { bytesToHex, hexToBytes } from '../util/hex.ts';
import { addressOfPublicKey } from '../crypto/secp256k1.ts';

export interface PeerAddress {
  peerId: PeerId;
  /** where to dial it, ending in /p2p/<peer id> */
  addr: Multiaddr;
}

/** The peer id of an enode id (128 hex digits); throws when they are not a point of the curve. */
export function peerIdOfNodeId(nodeId: string): PeerId {
  const point = secp256k1.Point.fromBytes(hexToBytes('0x04' + nodeId));
  return peerIdFromPublicKey(publicKeyFromRaw(point.toBytes(true)));
}

/** The enode id (128 hex digits) of a secp256k1 peer id; undefined for another kind of key. */
export function nodeIdOfPeerId(peerId: PeerId): string | undefined {
  if (peerId.type !== 'secp256k1') return undefined;
  return bytesToHex(secp256k1.Point.fromBytes(peerId.publicKey.raw).toBytes(false)).slice(4);
}

/** The chain address of a secp256k1 peer id (keccak of its public point, as a validator's address); undefined for another kind of key. */
export function addressOfPeerId(peerId: PeerId): Uint8Array | undefined {
  if (peerId.type !== 'secp256k1') return undefined;
  return addressOfPublicKey(secp256k1.Point.fromBytes(peerId.publicKey.raw).toBytes(false).subarray(1));
}

/** The libp2p multiaddr of a TCP endpoint. */
export function tcpAddr(ip: string, port: number): string {
  return `/ip${isIP(ip) === 6 ? 6 : 4}/${ip}/tcp/${port}`;
}

/** Parses an enode URL or a multiaddr with /p2p/<id>; throws an Error saying why it is not one. */
export function parsePeerAddress(url: string): PeerAddress {
  if (url.startsWith('enode://')) {
    const m = /^enode:\/\/([0-9a-fA-F]{128})@([^:?]+|\[[0-9a-fA-F:.]+\]):(\d{1,5})(\?.*)?$/.exec(url);
    if (!m) throw new Error('an enode URL is enode://<128 hex digits>@<ip>:<port>');
    const ip = m[2]!.replace(/^\[|\]$/g, '');
    const port = Number(m[3]);
    if (isIP(ip) === 0) throw new Error(`enode host "${ip}" is not an IP address`);
    if (port < 1 || port > 65535) throw new Error(`enode port ${port} is not a TCP port (1–65535)`);
    let peerId: PeerId;
    try {
      peerId = peerIdOfNodeId(m[1]!.toLowerCase());
    } catch {
      throw new Error('the enode id is not a secp256k1 public key');
    }
    return { peerId, addr: multiaddr(`${tcpAddr(ip, port)}/p2p/${peerId}`) };
  }
  if (!url.startsWith('/')) throw new Error('a peer address is an enode URL (enode://…) or a multiaddr (/ip4/…/tcp/…/p2p/…)');
  let addr: Multiaddr;
  try {
    addr = multiaddr(url);
  } catch (e) {
    throw new Error(`not a multiaddr: ${(e as Error).message}`);
  }
  const id = addr.getComponents().findLast((c) => c.name === 'p2p')?.value;
  if (id === undefined) throw new Error('the multiaddr has no /p2p/<peer id>');
  let peerId: PeerId;
  try {
    peerId = peerIdFromString(id);
  } catch {
    throw new Error(`"${id}" is not a peer id`);
  }
  return { peerId, addr };
}
