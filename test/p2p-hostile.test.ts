// Hand-made libp2p peers in the test process against a real node (in-process, its network on):
// each is made a static peer with admin_addPeer (so it is admitted), then misbehaves on one
// protocol — garbage and oversized frames on the handshake, the block ranges and the state requests, garbage on the
// blocks topic, transactions with bad signatures on the transactions topic, a malformed range
// answer, another chain's genesis. Each fault is refused, three faults (or one wrong genesis) drop
// the peer and refuse it for a while, and the node keeps serving with its chain unchanged. An
// honest peer meanwhile gets blocks by range and its handshake head reaches the PeerSet.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Transaction, Wallet } from 'ethers';
import type { Stream } from '@libp2p/interface';
import { startTestNode, testKey, type TestNode } from './helpers/node.ts';
import { handMadePeers, sleep, until, type HandMadePeers, type Peer } from './helpers/hand-made-peer.ts';
import { decodeBlock } from '../src/chain/block-codec.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import { RLP } from '@ethereumjs/rlp';
import { verifyMerkleRangeProof } from '@ethereumjs/mpt';
import { SNAP_PROTOCOL, MAX_SNAP_FRAME, decodeRange, encodeSnapRequest } from '../src/p2p/snap-wire.ts';

let handMade: HandMadePeers;
let lib: HandMadePeers['lib'];
let wire: HandMadePeers['wire'];
let node: TestNode;
let genesisHash: Uint8Array;
let nodeAddr: string;

/** Writes raw bytes on a new stream of `protocol` and waits for the node to end it. */
async function sendRaw(peer: Peer, protocol: string, bytes: Uint8Array): Promise<void> {
  const stream = await peer.dialProtocol(lib.multiaddr(nodeAddr), protocol).catch(() => undefined);
  if (!stream) return;
  stream.send(bytes);
  try {
    for await (const _ of stream) {
      // drained until the node ends it
    }
  } catch {
    // reset by the node: what a bad frame gets
  }
}

async function chainSnapshot(): Promise<string> {
  const head = await node.rpc('eth_getBlockByNumber', ['latest', false]);
  return `${head.number} ${head.hash}`;
}

test.before(async () => {
  node = await startTestNode({ config: { p2p: { addr: '127.0.0.1', bootnodes: [], maxPeers: 10 }, p2pPort: 0, devPeriod: 0 } });
  // three blocks to serve by range
  const wallet = new Wallet(testKey(0));
  for (let nonce = 0; nonce < 3; nonce++) {
    const raw = await wallet.signTransaction(Transaction.from({ to: '0x' + '5'.repeat(40), value: 1n, nonce, gasLimit: 21000, gasPrice: 0n, chainId: 300, type: 0 }));
    const hash = await node.rpc('eth_sendRawTransaction', [raw]);
    await until('the transfer to be mined', () => node.rpc('eth_getTransactionReceipt', [hash]).then((r) => r ?? undefined));
  }
  genesisHash = hexToBytes((await node.rpc('eth_getBlockByNumber', ['0x0', false])).hash);
  handMade = await handMadePeers(node, genesisHash);
  ({ lib, wire, nodeAddr } = handMade);
});

test('an honest peer: its handshake head reaches the PeerSet, and it gets blocks by range', async () => {
  const heads: string[] = [];
  node.network!.onPeerHead((p) => heads.push(`${p.id} ${p.head.number} ${bytesToHex(p.head.hash)}`));
  // behind the node (at 3): the node's sync has nothing to ask it
  const peer = await handMade.peer({ head: { number: 2n, hash: new Uint8Array(32).fill(42) } });
  await handMade.admitted(peer);
  assert.ok(heads.includes(`${peer.peerId} 2 ${bytesToHex(new Uint8Array(32).fill(42))}`));
  const [info] = await node.rpc('admin_peers');
  assert.equal(info.protocols.chain, { version: 1, number: 2, head: bytesToHex(new Uint8Array(32).fill(42)) });
  assert.is(info.network.static, true);

  const stream = await peer.dialProtocol(lib.multiaddr(nodeAddr), wire.BLOCKS_PROTOCOL);
  const lp = lib.lpStream(stream, { maxDataLength: wire.MAX_BLOCK_FRAME });
  await lp.write(wire.encodeRangeRequest({ from: 1n, count: 10 }));
  const got: string[] = [];
  for (;;) {
    const frame = (await lp.read()).subarray();
    if (frame.length === 0) break;
    got.push(bytesToHex(decodeBlock(frame).hash));
  }
  const want = await Promise.all([1, 2, 3].map(async (n) => (await node.rpc('eth_getBlockByNumber', ['0x' + n.toString(16), false])).hash));
  assert.equal(got, want, 'blocks 1–3: all the node has from 1 on');

  // a block far ahead, announced: not fetched by gossip, but the peer's new head reaches the sync
  // (which then asks the peer for it: it serves no block, so that costs it a fault — test/p2p-hostile-network.test.ts)
  const topics = wire.topicsOf(genesisHash);
  await until('the node\'s subscription', () => peer.services.pubsub.getSubscribers(topics.blocks).length > 0);
  await peer.services.pubsub.publish(topics.blocks, wire.encodeBlockGossip({ number: 1000n, hash: new Uint8Array(32).fill(9), encoded: new Uint8Array(4 * 1024 * 1024) }));
  await until('the announced head', () => heads.includes(`${peer.peerId} 1000 ${bytesToHex(new Uint8Array(32).fill(9))}`));
  assert.is(await node.rpc('admin_removePeer', [peer.getMultiaddrs()[0]!.toString()]), true);
  await until('the removed peer to be disconnected', () => node.network!.peerCount() === 0 && peer.getConnections().length === 0);
});

test('another chain\'s genesis in the handshake: dropped at once and refused', async () => {
  const before = await chainSnapshot();
  const peer = await handMade.peer({ genesisHash: new Uint8Array(32).fill(7) });
  const dialled = new Promise((r) => peer.addEventListener('connection:open', r, { once: true }));
  assert.is(await node.rpc('admin_addPeer', [peer.getMultiaddrs()[0]!.toString()]), true);
  await dialled;
  await handMade.refused(peer);
  assert.equal(await node.rpc('admin_peers'), []);
  assert.is(await chainSnapshot(), before);
});

test('state requests (/chain/snap/1): the head\'s accounts with a proof that verifies; an unknown root answers empty', async () => {
  const peer = await handMade.peer();
  await handMade.admitted(peer);
  const ask = async (root: Uint8Array) => {
    const stream = await peer.dialProtocol(lib.multiaddr(nodeAddr), SNAP_PROTOCOL);
    const lp = lib.lpStream(stream, { maxDataLength: MAX_SNAP_FRAME });
    await lp.write(encodeSnapRequest({ kind: 'accounts', root, origin: new Uint8Array(32), limit: new Uint8Array(32).fill(0xff), maxItems: 4096 }));
    const answer = decodeRange((await lp.read()).subarray());
    await stream.close();
    return answer;
  };
  const root = hexToBytes((await node.rpc('eth_getBlockByNumber', ['latest', false])).stateRoot);
  const a = await ask(root);
  assert.ok(a.keys.length >= 2, `${a.keys.length} accounts`);
  assert.is(await verifyMerkleRangeProof(root, new Uint8Array(32), a.keys.at(-1)!, a.keys, a.values, a.proof), false, 'the whole trie, nothing to its right');
  assert.equal(await ask(new Uint8Array(32).fill(3)), { keys: [], values: [], proof: [] });
  await peer.stop();
});

test('garbage and oversized frames on /chain/blocks/1, /chain/status/1 and /chain/snap/1: refused, the sender dropped after three', async () => {
  const before = await chainSnapshot();
  const oversized = new Uint8Array([0x80, 0x80, 0x80, 0x01, 1, 2, 3]); // a varint length of 2 MiB, beyond a request's 1 KiB
  const garbage = new Uint8Array([0x03, 0xff, 0xfe, 0xfd]); // one frame that is no RLP list
  for (const [protocol, frames] of [
    [wire.BLOCKS_PROTOCOL, [garbage, oversized, garbage]],
    [wire.STATUS_PROTOCOL, [garbage, oversized, garbage]],
    [SNAP_PROTOCOL, [garbage, oversized, garbage]],
  ] as const) {
    const peer = await handMade.peer();
    await handMade.admitted(peer);
    for (const bytes of frames) {
      // a bad status frame also ends the connection: the node redials its static peer
      await until('a connection', () => handMade.listed(peer));
      await sendRaw(peer, protocol, bytes);
      assert.match(await node.rpc('eth_blockNumber'), /^0x/, 'the node keeps serving');
    }
    await handMade.refused(peer);
  }
  assert.is(await chainSnapshot(), before);
});

test('garbage on the blocks topic and bad signatures on the transactions topic: rejected, the sender dropped after three', async () => {
  const before = await chainSnapshot();
  const topics = wire.topicsOf(genesisHash);
  const signed = await new Wallet(testKey(1)).signTransaction(Transaction.from({ to: '0x' + '5'.repeat(40), value: 1n, nonce: 0, gasLimit: 21000, gasPrice: 0n, chainId: 300, type: 0 }));
  // r = 0: no signature recovers a sender from it; and the same transaction without v, r, s
  const fields = RLP.decode(hexToBytes(signed)) as Uint8Array[];
  const zeroR = RLP.encode([...fields.slice(0, 7), new Uint8Array(0), fields[8]!]);
  const unsigned = RLP.encode(fields.slice(0, 6));
  for (const [topic, messages] of [
    [topics.blocks, [new Uint8Array([7, 1]), new Uint8Array([0, 0xc0]), new Uint8Array([1, 0xff])]],
    [topics.txs, [new Uint8Array([0xde, 0xad]), zeroR, unsigned]],
  ] as const) {
    const peer = await handMade.peer();
    await handMade.admitted(peer);
    await until('the node\'s subscription', () => peer.services.pubsub.getSubscribers(topic).length > 0);
    for (const data of messages) await peer.services.pubsub.publish(topic, data);
    await handMade.refused(peer);
    assert.match(await node.rpc('eth_blockNumber'), /^0x/, 'the node keeps serving');
  }
  assert.equal(await node.rpc('txpool_content').then((c) => Object.keys(c.pending)), [], 'no bad transaction reached the pool');
  assert.is(await chainSnapshot(), before);
});

test('a malformed range answer: requestBlocks rejects, and the server is dropped after three', async () => {
  // its head is the node's genesis: the node's own sync has nothing to ask it, the three requests are the test's
  const peer = await handMade.peer({ head: { number: 0n, hash: genesisHash } });
  await peer.handle(wire.BLOCKS_PROTOCOL, async (stream: Stream) => {
    const lp = lib.lpStream(stream);
    const { count } = wire.decodeRangeRequest((await lp.read()).subarray());
    // one frame more than asked for
    await lp.writeV([...Array.from({ length: count + 1 }, () => new Uint8Array([0xc0])), new Uint8Array(0)]);
    await stream.close();
  });
  await handMade.admitted(peer);
  const id = peer.peerId.toString();
  for (let i = 0; i < 3; i++) {
    const err = await node.network!.requestBlocks(id, 1n, 2).then(() => undefined, (e: Error) => e);
    assert.match(err?.message ?? '', /more than the 2 blocks asked for/);
  }
  await handMade.refused(peer);
});

test('garbage on gossipsub\'s own stream: the node keeps serving, its chain unchanged', async () => {
  const before = await chainSnapshot();
  const peer = await handMade.peer();
  await handMade.admitted(peer);
  for (let i = 0; i < 3; i++) {
    // gossipsub reads it and drops what does not decode; it does not end the stream, so it is not waited for
    const stream = await peer.dialProtocol(lib.multiaddr(nodeAddr), '/meshsub/1.2.0');
    stream.send(new Uint8Array([0x05, 0xff, 0xff, 0xff, 0xff, 0xff, ...randomBytes(64)]));
    stream.abort(new Error('done'));
  }
  await sleep(200);
  assert.match(await node.rpc('eth_blockNumber'), /^0x/);
  assert.is(await chainSnapshot(), before);
});

test('garbage before the noise handshake: the connection is closed, the node keeps serving', async () => {
  const port = node.network!.nodeInfo().ports.listener;
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(randomBytes(4096));
  // libp2p ends an inbound upgrade after 10 s at most: a connection still open after 20 s is a failure, not a hang of the run
  const closed = await Promise.race([new Promise((r) => socket.once('close', () => r(true))), sleep(20_000).then(() => false)]);
  socket.destroy();
  assert.ok(closed, 'the node closed the connection');
  assert.match(await node.rpc('eth_blockNumber'), /^0x/);
});

test.after(async () => {
  await handMade?.stop();
  await node?.stop();
});

test.run();
