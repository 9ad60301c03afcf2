// Broadcast over gossipsub: the transactions topic carries signed transactions, the blocks topic
// blocks (or, past gossip's size limit, their number and hash). Each arriving message is judged by
// its topic validator before gossipsub delivers or relays it: the chain decides (door), and what
// it says becomes Accept (relay), Ignore (drop quietly) or Reject (drop and penalise the sender).
// A block this node has, or one it could not place, costs the sender waste (peer-faults.ts); a
// block at a height this node has that is not its block there is a fault. Transactions the pool
// knows cost nothing: one sent to several nodes' RPC comes back by gossip from each of them.
import type { PeerId } from '@libp2p/interface';
import { TopicValidatorResult, type GossipSub } from '@libp2p/gossipsub';
import type { ChainDoor, ChainHead } from '../core/chain-door.ts';
import { decodeBlockGossip, encodeBlockGossip, topicsOf } from './wire.ts';
import { bytesToHex, equalBytes } from '../util/hex.ts';
import type { Logger } from '../util/logger.ts';

/** A topic validator as gossipsub calls it. */
export type TopicValidator = (peer: PeerId, msg: { data: Uint8Array }) => Promise<TopicValidatorResult>;

export interface GossipHooks {
  fault(peer: PeerId, reason: string): void;
  /** a message of no use (peer-faults.ts: the waste budget) */
  wasted(peer: PeerId, what: string): void;
  /** each topic's validator goes through it: the fault injection's (faults.ts) when on */
  guard(validate: TopicValidator): TopicValidator;
  /** a peer showed it has a block: its head may have moved */
  peerHead(peer: PeerId, head: ChainHead): void;
  log: Logger;
}

export function startGossip(pubsub: GossipSub, door: ChainDoor, hooks: GossipHooks): void {
  const topics = topicsOf(door.genesisHash);
  const { fault, wasted, peerHead, log, guard } = hooks;
  const validate = (topic: string, validator: TopicValidator) => pubsub.topicValidators.set(topic, guard(validator));

  validate(topics.txs, async (peer, msg) => {
    const outcome = await door.receiveTransaction(msg.data);
    if (outcome.kind === 'added') return TopicValidatorResult.Accept;
    if (outcome.kind === 'ignored') return TopicValidatorResult.Ignore;
    fault(peer, `invalid transaction: ${outcome.reason}`);
    return TopicValidatorResult.Reject;
  });

  validate(topics.blocks, async (peer, msg) => {
    let block: ChainHead & { encoded?: Uint8Array };
    try {
      const gossip = decodeBlockGossip(msg.data);
      if (gossip.kind === 'announcement') block = gossip.head;
      else {
        block = { ...door.blockId(gossip.encoded), encoded: gossip.encoded };
      }
    } catch (e) {
      fault(peer, `block gossip: ${(e as Error).message}`);
      return TopicValidatorResult.Reject;
    }
    const { number, hash, encoded } = block;
    const head = door.head();
    if (number <= head.number) {
      // blocks are final: another block at a height this chain has is forged, not late
      const ours = door.hashAt(number);
      if (ours !== undefined && !equalBytes(ours, hash)) {
        fault(peer, `block ${number} ${bytesToHex(hash)} is not this chain's ${bytesToHex(ours)}`);
        return TopicValidatorResult.Reject;
      }
      wasted(peer, `block ${number}, which this node has`);
      return TopicValidatorResult.Ignore;
    }
    // a block beyond the next, or only announced, is the sync's to fetch (onPeerHead)
    if (number > head.number + 1n || encoded === undefined) {
      peerHead(peer, { number, hash });
      return TopicValidatorResult.Ignore;
    }
    const outcome = await door.importBlocks([encoded]);
    if (outcome.imported > 0) {
      peerHead(peer, { number, hash });
      return TopicValidatorResult.Accept;
    }
    if (outcome.refused?.peerFault) {
      fault(peer, `block ${number}: ${outcome.refused.reason}`);
      return TopicValidatorResult.Reject;
    }
    log.debug(`p2p: block ${number} from ${peer} not imported: ${outcome.refused?.reason ?? 'no reason given'}`, { number, hash, peer: String(peer) });
    wasted(peer, `block ${number}, not imported: ${outcome.refused?.reason ?? 'no reason given'}`);
    peerHead(peer, { number, hash });
    return TopicValidatorResult.Ignore;
  });

  // publish() throws while no peer is subscribed (a fresh node's first seconds, a lone node): a
  // transaction then reaches each peer when it connects, with the rest of the pool (tx-sync.ts);
  // blocks are not held either (a peer that missed one fetches it by range)
  const publish = (topic: string, data: Uint8Array) => {
    pubsub.publish(topic, data).catch((e: Error) => log.debug(`p2p: publish on ${topic} failed: ${e.message}`));
  };
  const publishTx = (raw: Uint8Array) => {
    // asked first: a lone node (a dev chain) would otherwise pay for a thrown error per transaction
    if (pubsub.getSubscribers(topics.txs).length > 0) publish(topics.txs, raw);
  };
  door.onLocalTransaction(publishTx);
  // blocks committed in one turn (a sync's batch) are announced by the last of them: peers only need the head
  let newest: Parameters<typeof encodeBlockGossip>[0] | undefined;
  door.onNewBlock((block) => {
    if (newest === undefined) {
      setImmediate(() => {
        if (pubsub.getSubscribers(topics.blocks).length > 0) publish(topics.blocks, encodeBlockGossip(newest!));
        newest = undefined;
      });
    }
    newest = block;
  });
  pubsub.subscribe(topics.txs);
  pubsub.subscribe(topics.blocks);
}
