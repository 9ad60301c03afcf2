// iris consensus messages as Venachain lays them out (consensus/iris/core/types.go, iris/types.go):
//   message     = RLP([code, msg, address, signature, committedSeal])
//   view        = [round, sequence]
//   PREPARE, COMMIT = msg RLP([view, digest]) (digest: the block hash)
//   ROUND_CHANGE    = msg RLP([view(new round, sequence), zero hash])
//   PREPREPARE      = msg RLP([view, block, lockedHash, lockedRound, lockedPrepares])
// where block is the block's RLP list itself (src/chain/block-codec.ts) and lockedPrepares is a
// Venachain messageSet, [[0, 0], [message…]]: the signed votes proving the proposer's lock (no
// messages when unlocked). The signature signs keccak256 of the message with an empty signature; COMMIT
// also carries the committed seal the block will hold. Decoding is strict: the bytes come from
// peers, and anything malformed is refused with a MalformedMessage naming what is wrong.
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../../crypto/keccak.ts';
import { bigIntToBytes, bytesToBigInt, equalBytes } from '../../util/hex.ts';
import { seal65, signerOf } from '../seals.ts';

export const PREPREPARE = 0;
export const PREPARE = 1;
export const COMMIT = 2;
export const ROUND_CHANGE = 3;
export type MessageCode = typeof PREPREPARE | typeof PREPARE | typeof COMMIT | typeof ROUND_CHANGE;
export const CODE_NAMES = ['PREPREPARE', 'PREPARE', 'COMMIT', 'ROUND_CHANGE'] as const;

/** Rounds beyond this are refused as malformed: reaching them would take years even at the capped timeout. */
const MAX_ROUND = 1_000_000;

export interface View {
  round: number;
  sequence: bigint;
}

export interface IrisMessage {
  code: MessageCode;
  msg: Uint8Array;
  address: Uint8Array;
  signature: Uint8Array;
  /** 65 bytes in a COMMIT, empty otherwise */
  committedSeal: Uint8Array;
}

/** PREPARE, COMMIT and ROUND_CHANGE bodies. */
export interface Subject {
  view: View;
  digest: Uint8Array;
}

export interface Preprepare {
  view: View;
  /** the block, encoded as src/chain/block-codec.ts does */
  block: Uint8Array;
  /** zero when the proposer is not locked */
  lockedHash: Uint8Array;
  lockedRound: number;
  lockedPrepares: IrisMessage[];
}

export class MalformedMessage extends Error {}

export const ZERO_DIGEST = new Uint8Array(32);
const EMPTY = new Uint8Array(0);

type Item = Uint8Array | Item[];

function bytesItem(item: Item | undefined, what: string, length?: number): Uint8Array {
  if (!(item instanceof Uint8Array)) throw new MalformedMessage(`${what} must be a byte string`);
  if (length !== undefined && item.length !== length) throw new MalformedMessage(`${what} must be ${length} bytes, not ${item.length}`);
  return item;
}

function listItem(item: Item | undefined, what: string, length?: number): Item[] {
  if (!Array.isArray(item)) throw new MalformedMessage(`${what} must be a list`);
  if (length !== undefined && item.length !== length) throw new MalformedMessage(`${what} must have ${length} items, not ${item.length}`);
  return item;
}

/** An RLP unsigned integer: no leading zero byte (canonical, as Go's rlp demands). */
function uintItem(item: Item | undefined, what: string, maxBytes: number): bigint {
  const b = bytesItem(item, what);
  if (b.length > maxBytes) throw new MalformedMessage(`${what} is larger than ${maxBytes} bytes`);
  if (b.length > 0 && b[0] === 0) throw new MalformedMessage(`${what} has a leading zero byte`);
  return bytesToBigInt(b);
}

function roundItem(item: Item | undefined, what: string): number {
  const r = uintItem(item, what, 8);
  if (r > BigInt(MAX_ROUND)) throw new MalformedMessage(`${what} ${r} is beyond ${MAX_ROUND}`);
  return Number(r);
}

function decodeRlp(bytes: Uint8Array, what: string): Item {
  try {
    return RLP.decode(bytes) as Item;
  } catch (e) {
    throw new MalformedMessage(`${what} is not RLP: ${(e as Error).message}`);
  }
}

function messageFields(m: IrisMessage, signature: Uint8Array): Item[] {
  return [bigIntToBytes(BigInt(m.code)), m.msg, m.address, signature, m.committedSeal];
}

export function encodeMessage(m: IrisMessage): Uint8Array {
  return RLP.encode(messageFields(m, m.signature));
}

function messageFromItem(item: Item, what: string): IrisMessage {
  const [code, msg, address, signature, committedSeal] = listItem(item, what, 5);
  const c = Number(uintItem(code, `${what} code`, 1));
  if (c > ROUND_CHANGE) throw new MalformedMessage(`${what} code ${c} is none of 0–3`);
  const m: IrisMessage = {
    code: c as MessageCode,
    msg: bytesItem(msg, `${what} msg`),
    address: bytesItem(address, `${what} address`, 20),
    signature: bytesItem(signature, `${what} signature`, 65),
    committedSeal: bytesItem(committedSeal, `${what} committed seal`),
  };
  if (m.code === COMMIT ? m.committedSeal.length !== 65 : m.committedSeal.length !== 0) {
    throw new MalformedMessage(`${what}: a committed seal is 65 bytes in a COMMIT and empty otherwise`);
  }
  return m;
}

/** Decodes a message's outer layer (its body is decoded by its handler); throws MalformedMessage. */
export function decodeMessage(bytes: Uint8Array): IrisMessage {
  return messageFromItem(decodeRlp(bytes, 'message'), 'message');
}

/** The digest a message's signature signs. */
function signingDigest(m: IrisMessage): Uint8Array {
  return keccak256(RLP.encode(messageFields(m, EMPTY)));
}

/** A message signed by `key` (whose address is `address`); `committedSeal` only for a COMMIT. */
export function signMessage(code: MessageCode, msg: Uint8Array, address: Uint8Array, key: Uint8Array, committedSeal: Uint8Array = EMPTY): IrisMessage {
  const m: IrisMessage = { code, msg, address, signature: EMPTY, committedSeal };
  m.signature = seal65(signingDigest(m), key);
  return m;
}

/** Whether the message's signature recovers to the address it names. */
export function signedByAddress(m: IrisMessage): boolean {
  const signer = signerOf(m.signature, signingDigest(m));
  return signer !== undefined && equalBytes(signer, m.address);
}

function viewItem(v: View): Item[] {
  return [bigIntToBytes(BigInt(v.round)), bigIntToBytes(v.sequence)];
}

function viewFromItem(item: Item | undefined, what: string): View {
  const [round, sequence] = listItem(item, what, 2);
  return { round: roundItem(round, `${what} round`), sequence: uintItem(sequence, `${what} sequence`, 8) };
}

export function encodeSubject(s: Subject): Uint8Array {
  return RLP.encode([viewItem(s.view), s.digest]);
}

export function decodeSubject(bytes: Uint8Array): Subject {
  const [view, digest] = listItem(decodeRlp(bytes, 'subject'), 'subject', 2);
  return { view: viewFromItem(view, 'subject view'), digest: bytesItem(digest, 'subject digest', 32) };
}

export function encodePreprepare(p: Preprepare): Uint8Array {
  const prepares = [viewItem({ round: 0, sequence: 0n }), p.lockedPrepares.map((m) => messageFields(m, m.signature))];
  return RLP.encode([viewItem(p.view), RLP.decode(p.block) as Item, p.lockedHash, bigIntToBytes(BigInt(p.lockedRound)), prepares]);
}

export function decodePreprepare(bytes: Uint8Array): Preprepare {
  const [view, block, lockedHash, lockedRound, lockedPrepares] = listItem(decodeRlp(bytes, 'preprepare'), 'preprepare', 5);
  const [, messages] = listItem(lockedPrepares, 'preprepare locked prepares', 2);
  return {
    view: viewFromItem(view, 'preprepare view'),
    block: RLP.encode(listItem(block, 'preprepare block')),
    lockedHash: bytesItem(lockedHash, 'preprepare locked hash', 32),
    lockedRound: roundItem(lockedRound, 'preprepare locked round'),
    lockedPrepares: listItem(messages, 'preprepare locked prepares').map((m, i) => messageFromItem(m, `locked prepare ${i}`)),
  };
}

export function compareViews(a: View, b: View): number {
  if (a.sequence !== b.sequence) return a.sequence < b.sequence ? -1 : 1;
  return a.round - b.round;
}
