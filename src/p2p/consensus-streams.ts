// The consensus channel (N11): iris' messages (src/consensus/iris) among the validators only, on a
// stream protocol of their own (`/chain/iris/1`), as Venachain sends them: to the connected peers
// whose key is a validator of the block after the head. Not a gossip topic — gossipsub sends a topic
// to whoever subscribes to it, so any admitted peer could read every vote and replay it. A stream
// opened by a peer that is no validator is refused (and counted as waste: one promoted a moment
// before this node read the block that promoted it is no attacker). Each validator peer gets one
// long-lived stream, written in order; a message received is judged by the engine through the door:
// accepted ones are relayed to the validator peers that did not send it, ignored ones count as
// waste, invalid ones as faults of the peer (peer-faults.ts).
//
// Each send carries a random tag after the engine's message (wire.ts), so a vote the engine sends
// again is heard again, and copies of one send that arrive by several paths (relays) reach the
// engine once. A message the engine accepted before, sent again under a new tag, is not asked
// about again (a replay costs a hash, not a signature check) and counts as waste.
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import type { Connection, Libp2p, PeerId, Stream } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import type { LengthPrefixedStream } from '@libp2p/utils';
import type { ChainDoor, ConsensusVerdict } from '../core/chain-door.ts';
import type { Logger } from '../util/logger.ts';
import type { FaultInjector } from './faults.ts';
import { bytesToHex } from '../util/hex.ts';
import { frames, isPeerFault } from './frames.ts';
import { addressOfPeerId } from './peer-address.ts';
import { CONSENSUS_PROTOCOL, CONSENSUS_SEND_TAG_BYTES, MAX_CONSENSUS_FRAME, consensusMessageOf, encodeConsensusFrame } from './wire.ts';

/** How long a send is remembered (relayed copies arrive within milliseconds; gossipsub keeps 120 s). */
const SEEN_TTL_MS = 120_000;
const SEEN_MAX = 16_384;
/** Messages the engine accepted, remembered to refuse replays (a height's votes are a few dozen). */
const ACCEPTED_MAX = 4096;
/** Bytes queued for one peer before new messages for it are dropped (the engine's round timer recovers). */
const QUEUE_MAX_BYTES = 32 * 1024 * 1024;
const OPEN_TIMEOUT_MS = 5000;
const WRITE_TIMEOUT_MS = 30_000;
/** Waste charged for a consensus stream opened by a peer that is no validator. */
const NOT_A_VALIDATOR_COST = 16;

export interface ConsensusHooks {
  fault(peer: string, reason: string): void;
  wasted(peer: string, what: string, cost?: number): void;
  /** the peers past the handshake, by peer id */
  peers(): Iterable<string>;
  /** a validator peer sent a vote for a later block than this node's next: this node is behind it */
  ahead(peer: string): void;
  /** the fault injection (faults.ts), when on */
  injected: FaultInjector | undefined;
  log: Logger;
}

type Judged = ConsensusVerdict | 'dropped';

export async function startConsensusStreams(libp2p: Libp2p, door: ChainDoor, hooks: ConsensusHooks): Promise<void> {
  const { fault, wasted, log } = hooks;
  /** send id (hash of message and tag) → the peers it came from */
  const seen = new Map<string, { from: Set<string>; at: number }>();
  const accepted = new Set<string>();
  const senders = new Map<string, Sender>();
  let validators = new Set<string>();
  const addresses = new Map<string, string>();

  /** a peer's chain address (its key's), kept while it is connected */
  const addressOf = (peer: string): string => {
    let a = addresses.get(peer);
    if (a === undefined) {
      const bytes = addressOfPeerId(peerIdFromString(peer));
      addresses.set(peer, (a = bytes === undefined ? '' : bytesToHex(bytes)));
    }
    return a;
  };
  const isValidatorPeer = (peer: string) => validators.has(addressOf(peer));

  const remember = (id: string, from: Set<string>) => {
    const now = Date.now();
    for (const [k, v] of seen) {
      if (seen.size < SEEN_MAX && now - v.at < SEEN_TTL_MS) break;
      seen.delete(k);
    }
    seen.set(id, { from, at: now });
  };
  const judge = (peer: string, message: Uint8Array): Promise<Judged> => door.consensusMessage(message);
  const guarded = hooks.injected ? hooks.injected.guard<string, Uint8Array, Judged>(judge, 'dropped') : judge;

  /** Sends `frame` to every validator peer but those named. */
  const fanOut = (frame: Uint8Array, except: ReadonlySet<string>) => {
    for (const peer of hooks.peers()) {
      if (except.has(peer) || !isValidatorPeer(peer)) continue;
      let sender = senders.get(peer);
      if (sender === undefined) senders.set(peer, (sender = new Sender(libp2p, peerIdFromString(peer), log)));
      sender.send(frame);
    }
  };

  const receive = async (peer: string, frame: Uint8Array) => {
    let message: Uint8Array;
    try {
      message = consensusMessageOf(frame);
    } catch (e) {
      fault(peer, (e as Error).message);
      return;
    }
    const id = bytesToHex(sha256(frame));
    const known = seen.get(id);
    if (known) {
      if (known.from.has(peer)) wasted(peer, 'the same consensus message twice');
      else known.from.add(peer);
      return;
    }
    const from = new Set([peer]);
    remember(id, from);
    const content = bytesToHex(sha256(message));
    if (accepted.has(content)) {
      wasted(peer, 'a consensus message the engine holds already, sent again');
      return;
    }
    const verdict = await guarded(peer, message);
    if (verdict === 'accepted' || verdict === 'ahead') {
      if (accepted.size >= ACCEPTED_MAX) accepted.delete(accepted.values().next().value!);
      accepted.add(content);
      fanOut(frame, from);
      if (verdict === 'ahead') hooks.ahead(peer);
    } else if (verdict === 'ignored') wasted(peer, 'a consensus message of no use (an old view, or not from the set)');
    else if (verdict === 'invalid') fault(peer, 'invalid consensus message');
  };

  await libp2p.handle(
    CONSENSUS_PROTOCOL,
    async (stream: Stream, connection: Connection) => {
      const peer = connection.remotePeer.toString();
      if (!isValidatorPeer(peer)) {
        wasted(peer, 'opened the consensus channel but is no validator', NOT_A_VALIDATOR_COST);
        stream.abort(new Error('not a validator'));
        return;
      }
      const lp = frames(stream, MAX_CONSENSUS_FRAME);
      try {
        // not awaited: a message delayed by the fault injection must not hold up the next
        for (;;) void receive(peer, (await lp.read()).subarray()).catch((e: Error) => log.warn(`p2p: a consensus message from ${peer}: ${e.stack ?? e}`));
      } catch (e) {
        if (isPeerFault(e)) fault(peer, `consensus frame: ${(e as Error).message}`);
        stream.abort(e as Error);
      }
    },
    // one a peer, and room for a new one while a broken one is still being noticed
    { maxInboundStreams: 4 },
  );

  door.onConsensusMessage((message) => {
    const frame = encodeConsensusFrame(message, randomBytes(CONSENSUS_SEND_TAG_BYTES));
    remember(bytesToHex(sha256(frame)), new Set());
    fanOut(frame, new Set());
  });

  libp2p.addEventListener('peer:disconnect', ({ detail: peerId }) => {
    const peer = peerId.toString();
    senders.get(peer)?.close();
    senders.delete(peer);
    addresses.delete(peer);
  });

  // a node becomes or stops being a validator at a block (NodeManagement's records change in one):
  // whenever the head moves — by this node's own block, gossip or sync — the set is read again
  let member = false;
  const follow = () => {
    validators = new Set(door.validators().map(bytesToHex));
    const validator = door.isValidator();
    if (validator === member) return;
    member = validator;
    log.info(`p2p: ${validator ? 'a validator: joined' : 'no longer a validator: left'} the consensus channel`);
  };
  door.onHead(follow);
  follow();
}

/**
 * One validator peer's outbound stream: opened on the first message over the peer's open
 * connection, written in order; a failure drops what was queued (the engine re-sends on its round
 * timer) and the next message opens a stream again.
 */
class Sender {
  private queue: Uint8Array[] = [];
  private bytes = 0;
  private running = false;
  private stream: Stream | undefined;
  private lp: LengthPrefixedStream<Stream> | undefined;

  constructor(
    private readonly libp2p: Libp2p,
    private readonly peer: PeerId,
    private readonly log: Logger,
  ) {}

  send(frame: Uint8Array): void {
    if (this.bytes + frame.length > QUEUE_MAX_BYTES) {
      this.log.debug(`p2p: consensus message to ${this.peer} dropped: ${this.bytes} bytes wait for it already`);
      return;
    }
    this.queue.push(frame);
    this.bytes += frame.length;
    if (!this.running) void this.run();
  }

  close(): void {
    this.stream?.abort(new Error('peer gone'));
    this.stream = undefined;
    this.lp = undefined;
    this.queue = [];
    this.bytes = 0;
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        if (this.lp === undefined || this.stream?.status !== 'open') {
          const connection = this.libp2p.getConnections(this.peer).find((c) => c.status === 'open');
          if (connection === undefined) throw new Error('not connected');
          this.stream = await connection.newStream(CONSENSUS_PROTOCOL, { signal: AbortSignal.timeout(OPEN_TIMEOUT_MS) });
          this.lp = frames(this.stream, MAX_CONSENSUS_FRAME);
        }
        const batch = this.queue;
        this.queue = [];
        this.bytes = 0;
        await this.lp.writeV(batch, { signal: AbortSignal.timeout(WRITE_TIMEOUT_MS) });
      }
    } catch (e) {
      this.log.debug(`p2p: consensus stream to ${this.peer} failed: ${(e as Error).message}`);
      this.close();
    } finally {
      this.running = false;
    }
  }
}
