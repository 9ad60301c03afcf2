// Bad blocks over the wire to a FOLLOWER (a node that imports): hand-made libp2p peers, made static
// peers of the follower, send it forged copies of the validator's blocks both ways a block arrives.
// Gossiped as head+1 — a bad proposer seal, too few committed seals, a wrong state root — each is
// refused and counted against the sender, who is dropped at the third; a block with an unknown
// parent is ignored and not counted. Served as a range answer to the follower's sync (the peer
// claims a higher head) with a wrong state root: refused, the server penalised each time and
// dropped at the third. Nothing bad is relayed, the follower's head stays at genesis and RPC keeps
// answering; an honest peer (the validator) then syncs it to the validator's chain.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Stream } from '@libp2p/interface';
import { startTestNode, testKey, type TestNode } from './helpers/node.ts';
import { resealed, sealTransferBlocks, signedTransfer, undialledGenesis, withCommittedSeals } from './helpers/blocks.ts';
import { handMadePeers, until, type HandMadePeers, type Peer } from './helpers/hand-made-peer.ts';
import type { NodeConfig } from '../src/node/config.ts';
import { CoreChainDoor } from '../src/core/core-chain-door.ts';
import { decodeBlock } from '../src/chain/block-codec.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

const BLOCKS = 3;
const FOLLOWER_KEY = '77'.repeat(32);
const STRANGER = hexToBytes('0x' + '42'.repeat(32));
const genesis = undialledGenesis(1);
/** a network on loopback, on a free port, with no bootnode */
const withNetwork = (): Partial<NodeConfig> => ({ p2p: { addr: '127.0.0.1', bootnodes: [], maxPeers: 10 }, p2pPort: 0 });

let validator: TestNode;
let follower: TestNode;
let handMade: HandMadePeers;
let genesisHead: { number: 0n; hash: Uint8Array };
let topics: { txs: string; blocks: string };
/** the validator's blocks 1…BLOCKS, as its door serves them */
let honest: Uint8Array[];
/** the follower's log lines (debug: its faults and ignored blocks are logged there) */
const logged: string[] = [];
/** what the listener, an idle peer of the follower, received on the blocks topic: the follower relays only what it imported */
const relayed: Uint8Array[] = [];

const hashOf = (encoded: Uint8Array) => bytesToHex(decodeBlock(encoded).hash);
function gossip(encoded: Uint8Array): Uint8Array {
  const { header, hash } = decodeBlock(encoded);
  return handMade.wire.encodeBlockGossip({ number: header.number, hash, encoded });
}
/** an announcement of a head the peer claims (what a block too big for gossip gets) */
const announcement = (number: bigint) => handMade.wire.encodeBlockGossip({ number, hash: new Uint8Array(32).fill(Number(number)), encoded: new Uint8Array(handMade.wire.MAX_GOSSIP_BLOCK + 1) });
/** the follower's log lines about `peer` that contain `text` */
const linesAbout = (peer: Peer, text: string) => logged.filter((l) => l.includes(peer.peerId.toString()) && l.includes(text));

async function followerUnchanged(): Promise<void> {
  assert.is(await follower.rpc('eth_blockNumber'), '0x0', 'eth_blockNumber answers, the head still genesis');
  assert.is((await follower.rpc('eth_getBlockByNumber', ['latest', false])).hash, bytesToHex(genesisHead.hash));
}

test.before(async () => {
  validator = await startTestNode({ genesis, config: withNetwork() });
  await sealTransferBlocks(validator, BLOCKS, 1);
  honest = new CoreChainDoor(validator.core).blocks(1n, BLOCKS, 16 << 20);
  follower = await startTestNode({ genesis, nodeKey: FOLLOWER_KEY, config: { ...withNetwork(), verbosity: 4 }, logWrite: (line) => logged.push(line) });
  genesisHead = { number: 0n, hash: hexToBytes((await follower.rpc('eth_getBlockByNumber', ['0x0', false])).hash) };
  handMade = await handMadePeers(follower, genesisHead.hash);
  topics = handMade.wire.topicsOf(genesisHead.hash);
  const listener = await handMade.peer({ head: genesisHead });
  listener.services.pubsub.addEventListener('message', ({ detail }) => {
    if (detail.topic === topics.blocks) relayed.push(detail.data);
  });
  await handMade.admitted(listener);
});

test.after(async () => {
  await handMade?.stop();
  await Promise.all([validator?.stop(), follower?.stop()]);
});

test('gossiped as head+1: an unknown parent is ignored, not counted; a bad proposer seal, too few committed seals and a wrong state root are refused, the third drops the sender; nothing is relayed', async () => {
  const [block1] = honest as [Uint8Array];
  const peer = await handMade.peer({ head: genesisHead });
  // the unknown parents make its head block 1, so the follower's sync asks it for blocks: it has none
  await peer.handle(handMade.wire.BLOCKS_PROTOCOL, async (stream: Stream) => {
    const lp = handMade.lib.lpStream(stream);
    await lp.read();
    await lp.write(new Uint8Array(0));
    await stream.close();
  });
  await handMade.admitted(peer);
  await until('the follower\'s subscription', () => peer.services.pubsub.getSubscribers(topics.blocks).length > 0);

  for (let i = 1; i <= 3; i++) {
    const orphan = resealed(block1, (h) => (h.parentHash = new Uint8Array(32).fill(i)));
    await peer.services.pubsub.publish(topics.blocks, gossip(orphan));
    await until(`unknown parent ${i} to be ignored`, () => linesAbout(peer, `block 1 from ${peer.peerId} not imported`).length === i);
    assert.match(linesAbout(peer, 'not imported').at(-1)!, /unknown parent 0x(0[1-3]){32}/);
  }
  assert.is(linesAbout(peer, 'fault of').length, 0, 'an early block is no fault');
  assert.ok(handMade.listed(peer), 'three unknown parents do not drop the sender');

  const forged: [string, Uint8Array, RegExp][] = [
    ['a bad proposer seal', resealed(block1, () => {}, { proposer: STRANGER }), /proposer 0x[0-9a-f]+ is not a validator/],
    ['too few committed seals', withCommittedSeals(block1, () => []), /0 committed seals, the quorum of 1 validators is 1/],
    ['a wrong state root', resealed(block1, (h) => (h.stateRoot = new Uint8Array(32).fill(1))), /stateRoot 0x[0-9a-f]+ after execution, the header says 0x0101/],
  ];
  for (const [i, [name, bytes, reason]] of forged.entries()) {
    await peer.services.pubsub.publish(topics.blocks, gossip(bytes));
    await until(`${name} to be refused`, () => linesAbout(peer, 'fault of').length === i + 1);
    assert.match(linesAbout(peer, 'fault of').at(-1)!, reason, name);
    await followerUnchanged();
    if (i < 2) assert.ok(handMade.listed(peer), `${name}: fault ${i + 1} of 3, the sender stays`);
  }
  await handMade.refused(peer);
  assert.is(linesAbout(peer, 'refused for a while: 3 faults').length, 1);
  assert.is(relayed.length, 0, 'no bad block was relayed');
  await followerUnchanged();
});

test('served as a range answer with a wrong state root: refused, the server penalised at each sync and dropped at the third; an honest peer then syncs the follower', async () => {
  const [block1, ...rest] = honest as [Uint8Array, ...Uint8Array[]];
  const wrongRoot = resealed(block1, (h) => (h.stateRoot = new Uint8Array(32).fill(1)));
  const peer = await handMade.peer({ head: { number: BigInt(BLOCKS), hash: decodeBlock(honest.at(-1)!).hash } });
  let served = 0;
  await peer.handle(handMade.wire.BLOCKS_PROTOCOL, async (stream: Stream) => {
    const lp = handMade.lib.lpStream(stream);
    const { from, count } = handMade.wire.decodeRangeRequest((await lp.read()).subarray());
    served++;
    const blocks = [wrongRoot, ...rest].slice(Number(from) - 1, Number(from) - 1 + count);
    await lp.writeV([...blocks, new Uint8Array(0)]);
    await stream.close();
  });
  // its handshake head is ahead: the follower syncs from it at once
  await handMade.admitted(peer);
  await until('the node\'s subscription', () => peer.services.pubsub.getSubscribers(topics.blocks).length > 0);
  for (let i = 1; i <= 3; i++) {
    await until(`fault ${i}`, () => linesAbout(peer, 'fault of').length >= i);
    assert.match(linesAbout(peer, 'fault of').at(-1)!, /block #1: .*stateRoot 0x[0-9a-f]+ after execution, the header says 0x0101/);
    await followerUnchanged();
    // a sync shuns a peer that failed it; a new head it announces starts another (sooner than the retry)
    if (i < 3) await peer.services.pubsub.publish(topics.blocks, announcement(BigInt(BLOCKS + i)));
  }
  await handMade.refused(peer);
  assert.ok(served >= 3, `${served} range requests served`);
  assert.is(relayed.length, 0, 'no bad block was relayed');
  await followerUnchanged();

  // the validator and the follower make each other static peers: the follower syncs the honest chain
  const enode = async (node: TestNode) => (await node.rpc('admin_nodeInfo')).enode;
  assert.is(await validator.rpc('admin_addPeer', [await enode(follower)]), true);
  assert.is(await follower.rpc('admin_addPeer', [await enode(validator)]), true);
  await until('the honest blocks', async () => (await follower.rpc('eth_blockNumber')) === '0x' + BLOCKS.toString(16));
  for (let n = 1; n <= BLOCKS; n++) {
    const at = '0x' + n.toString(16);
    const [v, f] = await Promise.all([validator, follower].map((node) => node.rpc('eth_getBlockByNumber', [at, false])));
    assert.equal([f.hash, f.stateRoot], [v.hash, v.stateRoot], `block ${n}`);
  }
  // a transaction sent to the follower reaches the validator, whose block the follower imports and
  // relays: the listener, which got nothing bad, gets this one
  const tx = await follower.rpc('eth_sendRawTransaction', [bytesToHex(signedTransfer(hexToBytes(testKey(0)), BigInt(BLOCKS), 300n))]);
  const { blockHash } = await until('the receipt on the follower', () => follower.rpc('eth_getTransactionReceipt', [tx]).then((r) => r ?? undefined));
  await until('the relayed block', () => relayed.length > 0);
  const got = handMade.wire.decodeBlockGossip(relayed.at(-1)!);
  assert.is(got.kind === 'block' && hashOf(got.encoded), blockHash);
});

test.run();
