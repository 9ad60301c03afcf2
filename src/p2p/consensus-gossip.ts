// The consensus channel: iris' messages (src/consensus/iris) on a gossip topic of their own, which
// only validators subscribe to — so they reach the validators and no one else. The engine's
// messages are published to it; a message received goes to the engine through the door, whose
// verdict is gossipsub's: accepted ones are relayed, ignored ones dropped quietly, invalid ones
// (malformed, or not signed by a validator) dropped and counted against the peer. Copies of one send
// reach the engine once: a message's id is its content's hash, and each send carries a tag of its
// own (wire.ts), so a vote sent again is heard again. Published with gossipsub's floodPublish
// (its default): straight to every subscribed peer, not only the mesh — each block takes three
// rounds of messages, so a hop saved is latency saved.
import { randomBytes } from 'node:crypto';
import { TopicValidatorResult, type GossipSub } from '@libp2p/gossipsub';
import type { ChainDoor } from './chain-door.ts';
import type { GossipHooks } from './gossip.ts';
import { CONSENSUS_SEND_TAG_BYTES, decodeConsensusGossip, encodeConsensusGossip, topicsOf } from './wire.ts';

const VERDICT = { accepted: TopicValidatorResult.Accept, ignored: TopicValidatorResult.Ignore, invalid: TopicValidatorResult.Reject } as const;

export function startConsensusGossip(pubsub: GossipSub, door: ChainDoor, hooks: Omit<GossipHooks, 'peerHead'>): void {
  const { consensus: topic } = topicsOf(door.genesisHash);
  const { fault, log, guard } = hooks;

  pubsub.topicValidators.set(
    topic,
    guard(async (peer, msg) => {
      let message: Uint8Array;
      try {
        message = decodeConsensusGossip(msg.data);
      } catch (e) {
        fault(peer, (e as Error).message);
        return TopicValidatorResult.Reject;
      }
      const verdict = await door.consensusMessage(message);
      if (verdict === 'invalid') fault(peer, 'invalid consensus message');
      return VERDICT[verdict];
    }),
  );
  door.onConsensusMessage((message) => {
    // while no other validator listens (a lone validator, one just started) gossipsub throws: the
    // engine's round timer and its re-sent messages are what recovers, not a queue here
    pubsub.publish(topic, encodeConsensusGossip(message, randomBytes(CONSENSUS_SEND_TAG_BYTES))).catch((e: Error) => log.debug(`p2p: consensus message not published: ${e.message}`));
  });

  // a node becomes or stops being a validator at a block (NodeManagement's records change in one):
  // whenever the head moves — by this node's own block, gossip or sync — the subscription follows
  const follow = () => {
    const validator = door.isValidator();
    if (validator === pubsub.getTopics().includes(topic)) return;
    if (validator) pubsub.subscribe(topic);
    else pubsub.unsubscribe(topic);
    log.info(`p2p: ${validator ? 'a validator: joined' : 'no longer a validator: left'} the consensus channel`);
  };
  door.onHead(follow);
  follow();
}
