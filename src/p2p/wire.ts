// The chain's messages between nodes and their limits: the status handshake, block range requests
// and the gossip topics' payloads. RLP, decoded strictly: every byte here comes from a peer, and a
// decode error names what was wrong (the host penalises the sender for it).
import { RLP } from '@ethereumjs/rlp';
import { bigIntToBytes, bytesToBigInt, bytesToHex } from '../util/hex.ts';
import type { ChainHead } from '../core/chain-door.ts';

/** The chain protocol's name and version in admin_peers / admin_nodeInfo (caps `chain/1`). */
export const CHAIN_PROTOCOL = { name: 'chain', version: 1 } as const;
export const STATUS_PROTOCOL = '/chain/status/1';
export const BLOCKS_PROTOCOL = '/chain/blocks/1';
export const TXS_PROTOCOL = '/chain/txs/1';
/** The consensus channel among validators (consensus-streams.ts). */
export const CONSENSUS_PROTOCOL = '/chain/iris/1';

/** Most blocks one range request may ask for. */
export const MAX_RANGE_COUNT = 256;
/** What a range answer holds at most, about (the server stops adding blocks past it). */
export const RANGE_ANSWER_BYTES = 8 * 1024 * 1024;
/** Largest frame on the blocks protocol: one block (Venachain's message limit is 10 MiB). */
export const MAX_BLOCK_FRAME = 10 * 1024 * 1024;
/** Largest status or range request frame: a few hashes and numbers. */
export const MAX_SMALL_FRAME = 1024;
/** Most transactions a new peer is pushed (tx-sync.ts; geth sends all its pending)… */
export const TX_PUSH_COUNT = 4096;
/** …and most bytes of them together. */
export const TX_PUSH_BYTES = 4 * 1024 * 1024;
/** Largest frame on the txs protocol: one signed transaction (the pool's own size limit). */
export const MAX_TX_FRAME = 128 * 1024;
/** Blocks larger than this go by announcement and range request: gossip cannot send 4 MiB. */
export const MAX_GOSSIP_BLOCK = 3.5 * 1024 * 1024;
/** Gossip's receive limit (a block plus the RPC envelope). */
export const MAX_GOSSIP_MESSAGE = 4 * 1024 * 1024;

/** Topic names carry the genesis hash, so two chains never mix. */
export function topicsOf(genesisHash: Uint8Array): { txs: string; blocks: string } {
  const g = bytesToHex(genesisHash).slice(2);
  return { txs: `/chain/${g}/txs/1`, blocks: `/chain/${g}/blocks/1` };
}

export interface Status {
  networkId: bigint;
  genesisHash: Uint8Array;
  head: ChainHead;
  /** the sender's client name (admin_peers `name`) */
  name: string;
}

export function encodeStatus(s: Status): Uint8Array {
  return RLP.encode([bigIntToBytes(BigInt(CHAIN_PROTOCOL.version)), bigIntToBytes(s.networkId), s.genesisHash, bigIntToBytes(s.head.number), s.head.hash, new TextEncoder().encode(s.name)]);
}

export function decodeStatus(bytes: Uint8Array): Status {
  const [version, networkId, genesisHash, number, hash, name] = byteItems(bytes, 6, 'status');
  if (bytesToBigInt(version!) !== BigInt(CHAIN_PROTOCOL.version)) throw new Error(`status: protocol version ${bytesToBigInt(version!)}, this node speaks ${CHAIN_PROTOCOL.version}`);
  hash32(genesisHash!, 'status genesis hash');
  hash32(hash!, 'status head hash');
  return { networkId: integer(networkId!, 'status network id'), genesisHash: genesisHash!, head: { number: integer(number!, 'status head number'), hash: hash! }, name: new TextDecoder().decode(name!).slice(0, 200) };
}

export interface RangeRequest {
  from: bigint;
  count: number;
}

export function encodeRangeRequest(r: RangeRequest): Uint8Array {
  return RLP.encode([bigIntToBytes(r.from), bigIntToBytes(BigInt(r.count))]);
}

export function decodeRangeRequest(bytes: Uint8Array): RangeRequest {
  const [from, count] = byteItems(bytes, 2, 'range request');
  const n = integer(count!, 'range request count');
  if (n < 1n || n > BigInt(MAX_RANGE_COUNT)) throw new Error(`range request count ${n} is not 1–${MAX_RANGE_COUNT}`);
  return { from: integer(from!, 'range request start'), count: Number(n) };
}

/** The blocks topic: a whole block (tag 0), or only its number and hash (tag 1) when it is too big for gossip. */
export type BlockGossip = { kind: 'block'; encoded: Uint8Array } | { kind: 'announcement'; head: ChainHead };

export function encodeBlockGossip(block: { number: bigint; hash: Uint8Array; encoded: Uint8Array }): Uint8Array {
  if (block.encoded.length <= MAX_GOSSIP_BLOCK) {
    const out = new Uint8Array(block.encoded.length + 1);
    out.set(block.encoded, 1);
    return out;
  }
  const announcement = RLP.encode([bigIntToBytes(block.number), block.hash]);
  const out = new Uint8Array(announcement.length + 1);
  out[0] = 1;
  out.set(announcement, 1);
  return out;
}

export function decodeBlockGossip(bytes: Uint8Array): BlockGossip {
  if (bytes[0] === 0) return { kind: 'block', encoded: bytes.subarray(1) };
  if (bytes[0] !== 1) throw new Error(`block gossip: unknown tag ${bytes[0] ?? '(empty message)'}`);
  const [number, hash] = byteItems(bytes.subarray(1), 2, 'block announcement');
  hash32(hash!, 'block announcement hash');
  return { kind: 'announcement', head: { number: integer(number!, 'block announcement number'), hash: hash! } };
}

/** Random bytes after each consensus message on its channel: each send is its own message. */
export const CONSENSUS_SEND_TAG_BYTES = 8;
/** Largest consensus frame: a PREPREPARE carries a whole block, plus its locked prepares. */
export const MAX_CONSENSUS_FRAME = MAX_BLOCK_FRAME + 256 * 1024;

/**
 * A frame of the consensus channel: the engine's message, then a tag of its own per send. Copies of
 * one send (relays) are one message, known by the frame's hash; without the tag an engine that sends
 * the same signed vote again (as Venachain's COMMIT for an old block) would be taken for a copy.
 */
export function encodeConsensusFrame(message: Uint8Array, tag: Uint8Array): Uint8Array {
  const out = new Uint8Array(message.length + CONSENSUS_SEND_TAG_BYTES);
  out.set(message);
  out.set(tag.subarray(0, CONSENSUS_SEND_TAG_BYTES), message.length);
  return out;
}

export function consensusMessageOf(frame: Uint8Array): Uint8Array {
  if (frame.length <= CONSENSUS_SEND_TAG_BYTES) throw new Error(`consensus frame of ${frame.length} bytes: no message before its ${CONSENSUS_SEND_TAG_BYTES}-byte tag`);
  return frame.subarray(0, frame.length - CONSENSUS_SEND_TAG_BYTES);
}

function byteItems(bytes: Uint8Array, count: number, what: string): Uint8Array[] {
  let items: unknown;
  try {
    items = RLP.decode(bytes);
  } catch (e) {
    throw new Error(`${what} is not RLP: ${(e as Error).message}`);
  }
  if (!Array.isArray(items) || items.length !== count || !items.every((i) => i instanceof Uint8Array)) throw new Error(`${what} must be an RLP list of ${count} byte strings`);
  return items as Uint8Array[];
}

function integer(b: Uint8Array, what: string): bigint {
  if (b.length > 8 || (b.length > 0 && b[0] === 0)) throw new Error(`${what} is not a canonical 64-bit integer`);
  return bytesToBigInt(b);
}

function hash32(b: Uint8Array, what: string): void {
  if (b.length !== 32) throw new Error(`${what} has ${b.length} bytes, not 32`);
}
