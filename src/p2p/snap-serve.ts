// `/chain/snap/1` (N16): a peer asks for account or storage leaves at a state root, codes by hash,
// or blocks' receipts; one request and one answer frame per stream. Serving is bounded and paced:
// every answer is cut at SNAP_ANSWER_BYTES / SNAP_MAX_ITEMS, a peer has at most PER_PEER requests
// being served or waiting (more are waste), requests are served one at a time, each after a turn
// of the event loop, and a peer gets at most PEER_SHARE of the serving time over a second or so,
// so syncing neighbours cannot take a validator's blocks' time.
import type { Connection, Libp2p, PeerId, Stream } from '@libp2p/interface';
import type { ChainDoor, RangeAnswer } from '../core/chain-door.ts';
import { PeerFaultError, frames, isPeerFault, readFrame } from './frames.ts';
import { decodeItems, decodeRange, decodeSnapRequest, encodeItems, encodeRange, encodeSnapRequest, MAX_SNAP_FRAME, MAX_SNAP_REQUEST, RECEIPTS_ANSWER_BYTES, SNAP_ANSWER_BYTES, SNAP_PROTOCOL, type SnapRequest } from './snap-wire.ts';

export const SNAP_TIMEOUT_MS = 30_000;
const REQUEST_WAIT_MS = 5_000;
/** State requests of one peer being served or waiting; its next is refused. */
export const PER_PEER = 4;

export type SnapAnswer = RangeAnswer | Uint8Array[];

export interface SnapServeOptions {
  fault(peer: PeerId, reason: string): void;
  wasted(peer: PeerId, what: string): void;
  /** test-only fault injection (faults.ts): this node lies in its state answers, or serves them slowly and small */
  injected(): { corrupt: boolean; delayMs: number; maxItems: number } | undefined;
}

/** The share of the event loop one peer's state requests may take over time, and the burst of serving time it may spend at once. */
export const PEER_SHARE = 0.25;
const BURST_MS = 50;

/**
 * One request served at a time, each after a turn of the event loop; at most PER_PEER per peer
 * queued; and a peer whose answers took more than its share of the time lately waits until it is
 * back within it (so two joiners take at most half of a validator's event loop).
 */
export class ServePacer {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly queued = new Map<string, number>();
  /** per peer: serving time spent beyond its share, and when that was reckoned */
  private readonly debt = new Map<string, { ms: number; at: number }>();

  /** undefined: the peer has PER_PEER requests already */
  run<T>(peer: string, work: () => T): Promise<T> | undefined {
    const n = this.queued.get(peer) ?? 0;
    if (n >= PER_PEER) return undefined;
    this.queued.set(peer, n + 1);
    const timed = () => {
      const start = performance.now();
      try {
        return work();
      } finally {
        const d = this.owed(peer, performance.now());
        d.ms += performance.now() - start;
      }
    };
    // a peer over its share waits on its own, not in the line the others' requests wait in
    const wait = (this.owed(peer, performance.now()).ms - BURST_MS) / PEER_SHARE;
    const ready = wait > 0 ? new Promise((r) => setTimeout(r, wait)) : Promise.resolve();
    const done = ready.then(() => {
      const run = this.tail.then(() => new Promise((r) => setImmediate(r))).then(timed);
      this.tail = run.catch(() => undefined);
      return run;
    });
    return done.finally(() => {
      const left = this.queued.get(peer)! - 1;
      if (left === 0) this.queued.delete(peer);
      else this.queued.set(peer, left);
    });
  }

  /** The peer's debt now: it shrinks at PEER_SHARE of the time passed. */
  private owed(peer: string, now: number): { ms: number; at: number } {
    let d = this.debt.get(peer);
    if (!d) this.debt.set(peer, (d = { ms: 0, at: now }));
    d.ms = Math.max(0, d.ms - (now - d.at) * PEER_SHARE);
    d.at = now;
    if (d.ms === 0 && this.queued.get(peer) === undefined) this.debt.delete(peer);
    return d;
  }
}

export function answerOf(door: ChainDoor, req: SnapRequest, corrupt: boolean): Uint8Array {
  switch (req.kind) {
    case 'accounts':
      return encodeRange(lie(door.accountRange(req.root, req.origin, req.limit, req.maxItems, SNAP_ANSWER_BYTES), corrupt));
    case 'storage':
      return encodeRange(lie(door.storageRange(req.root, req.account, req.origin, req.limit, req.maxItems, SNAP_ANSWER_BYTES), corrupt));
    case 'codes': {
      const codes = door.codes(req.hashes, SNAP_ANSWER_BYTES);
      return encodeItems(corrupt ? codes.map(flipped) : codes);
    }
    case 'receipts':
      return encodeItems(door.snapReceipts(req.from, req.count, RECEIPTS_ANSWER_BYTES));
  }
}

/** The fault injection's lie: the first leaf's value changed by one bit (its proof then fails). */
function lie(a: RangeAnswer, corrupt: boolean): RangeAnswer {
  if (!corrupt || a.values.length === 0) return a;
  return { ...a, values: [flipped(a.values[0]!), ...a.values.slice(1)] };
}

function flipped(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(b);
  out[out.length - 1]! ^= 1;
  return out;
}

export async function serveSnap(libp2p: Libp2p, door: ChainDoor, o: SnapServeOptions): Promise<void> {
  const pacer = new ServePacer();
  await libp2p.handle(
    SNAP_PROTOCOL,
    async (stream: Stream, connection: Connection) => {
      const peer = connection.remotePeer;
      try {
        const lp = frames(stream, MAX_SNAP_REQUEST);
        const req = await readFrame(lp, decodeSnapRequest, AbortSignal.timeout(REQUEST_WAIT_MS));
        const faults = o.injected();
        if (faults?.delayMs) await new Promise((r) => setTimeout(r, faults.delayMs));
        if (faults?.maxItems && 'maxItems' in req) req.maxItems = Math.min(req.maxItems, faults.maxItems);
        const answer = pacer.run(peer.toString(), () => answerOf(door, req, faults?.corrupt === true));
        if (answer === undefined) {
          o.wasted(peer, `a state request while ${PER_PEER} of its own wait`);
          stream.abort(new Error(`more than ${PER_PEER} state requests at once`));
          return;
        }
        await lp.write(await answer);
        await stream.close();
      } catch (e) {
        if (isPeerFault(e)) o.fault(peer, `state request: ${(e as Error).message}`);
        stream.abort(e as Error);
      }
    },
    { maxInboundStreams: PER_PEER * 2 },
  );
}

/** One state request to one peer; a malformed answer is a PeerFaultError. */
export async function requestSnap(libp2p: Libp2p, peer: PeerId, req: SnapRequest): Promise<SnapAnswer> {
  const signal = AbortSignal.timeout(SNAP_TIMEOUT_MS);
  const stream = await libp2p.dialProtocol(peer, SNAP_PROTOCOL, { signal });
  try {
    const lp = frames(stream, MAX_SNAP_FRAME);
    await lp.write(encodeSnapRequest(req), { signal });
    const frame = (await lp.read({ signal })).subarray();
    await stream.close({ signal });
    try {
      if (req.kind === 'accounts' || req.kind === 'storage') return decodeRange(frame);
      const items = decodeItems(frame, `${req.kind} answer`);
      if (req.kind === 'codes' && items.length > req.hashes.length) throw new Error(`codes answer holds ${items.length} codes for ${req.hashes.length} asked`);
      if (req.kind === 'receipts' && items.length > req.count) throw new Error(`receipts answer holds ${items.length} blocks for ${req.count} asked`);
      return items;
    } catch (e) {
      throw new PeerFaultError((e as Error).message);
    }
  } catch (e) {
    stream.abort(e as Error);
    throw e;
  }
}
