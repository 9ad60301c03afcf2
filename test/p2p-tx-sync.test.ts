// A new peer gets this node's pending transactions on /chain/txs/1 (src/p2p/tx-sync.ts), real
// in-process nodes on loopback: two followers of the test genesis (neither seals, so what they pool
// stays pending). A transaction sent to A while B is not running reaches B's pool once B starts and
// connects — gossip had published it to the peer that listened then, so only the push brings it.
// A hand-made peer is pushed exactly A's executable transactions, in nonce order, and one that
// pushes garbage, an oversized frame or too many transactions is penalised and finally refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Transaction, Wallet } from 'ethers';
import type { Stream } from '@libp2p/interface';
import { startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { undialledGenesis } from './helpers/blocks.ts';
import { handMadePeers, sleep, until, type HandMadePeers, type Peer } from './helpers/hand-made-peer.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

const KEY_A = 'a1'.repeat(32);
const KEY_B = 'b2'.repeat(32);

let a: TestNode;
let b: TestNode | undefined;
let handMade: HandMadePeers;
let lib: HandMadePeers['lib'];
let wire: HandMadePeers['wire'];

const startFollower = (nodeKey: string, bootnodes: string[] = []) =>
  startTestNode({ nodeKey, genesis: undialledGenesis(2), config: { p2p: { addr: '127.0.0.1', bootnodes, maxPeers: 10 }, p2pPort: 0 } });

function transfer(key: number, nonce: number): Promise<string> {
  return new Wallet(testKey(key)).signTransaction(Transaction.from({ to: '0x' + '5'.repeat(40), value: 1n, nonce, gasLimit: 21000, gasPrice: 0n, chainId: 300, type: 0 }));
}

/** pending transaction hashes per sender, in nonce order, as txpool_content lists them */
async function pending(node: TestNode): Promise<Record<string, string[]>> {
  const { pending } = await node.rpc('txpool_content');
  return Object.fromEntries(Object.entries(pending as Record<string, Record<string, { hash: string }>>).map(([sender, txs]) => [sender, Object.values(txs).map((t) => t.hash)]));
}

/** A hand-made peer that records what the node pushes it on /chain/txs/1. */
async function recordingPeer(): Promise<{ peer: Peer; pushed: Uint8Array[][] }> {
  const peer = await handMade.peer();
  const pushed: Uint8Array[][] = [];
  await peer.handle(wire.TXS_PROTOCOL, async (stream: Stream) => {
    const lp = lib.lpStream(stream, { maxDataLength: wire.MAX_TX_FRAME });
    const got: Uint8Array[] = [];
    for (let frame = (await lp.read()).subarray(); frame.length > 0; frame = (await lp.read()).subarray()) got.push(frame);
    pushed.push(got);
    await stream.close();
  });
  return { peer, pushed };
}

/** Opens /chain/txs/1 to A and writes `frames` (length-prefixed as given), then waits for A to end the stream. */
async function push(peer: Peer, frames: Uint8Array[]): Promise<void> {
  const stream = await peer.dialProtocol(lib.multiaddr(handMade.nodeAddr), wire.TXS_PROTOCOL);
  const lp = lib.lpStream(stream, { maxDataLength: 8 * 1024 * 1024 });
  try {
    await lp.writeV(frames);
    for await (const _ of stream) {
      // drained until A ends it
    }
  } catch {
    // reset by A: what a fault gets
  }
}

const hashOf = (raw: string) => Transaction.from(raw).hash!;

test.before(async () => {
  a = await startFollower(KEY_A);
  const genesisHash = hexToBytes((await a.rpc('eth_getBlockByNumber', ['0x0', false])).hash);
  handMade = await handMadePeers(a, genesisHash);
  ({ lib, wire } = handMade);
});

test.after(async () => {
  await handMade?.stop();
  await b?.stop();
  await a?.stop();
});

test('a transaction sent to A while B is not running reaches B\'s pool when B starts and connects', async () => {
  // a peer listens on the transactions topic, so A gossips at once instead of holding them for a first subscriber
  const { peer: listener, pushed } = await recordingPeer();
  await handMade.admitted(listener);
  await until('the listener\'s subscription', () => a.network!.peerCount() === 1);
  await sleep(1500); // the subscription crosses after the handshake
  const sent = [await transfer(0, 0), await transfer(0, 1), await transfer(1, 0), await transfer(0, 3)]; // the last: a nonce gap, queued
  for (const raw of sent) await a.rpc('eth_sendRawTransaction', [raw]);
  const executable = { [testAddress(0)]: [hashOf(sent[0]!), hashOf(sent[1]!)], [testAddress(1)]: [hashOf(sent[2]!)] };
  assert.equal(await pending(a), executable);
  assert.equal(pushed, [], 'the listener connected while A\'s pool was empty: nothing pushed');
  // gossipsub offers its messages to new peers (IHAVE) for a few heartbeats: B comes after they ended
  await sleep(5000);

  b = await startFollower(KEY_B, [handMade.nodeAddr]);
  const started = performance.now();
  assert.is(await a.rpc('admin_addPeer', [b.network!.nodeInfo().multiaddrs[0]]), true); // A admits B
  const got = await until('B to pool A\'s pending transactions', async () => {
    const p = await pending(b!);
    return Object.keys(p).length === 2 && p;
  });
  console.log(`  B pooled A's pending transactions ${(performance.now() - started).toFixed(0)} ms after it started listening`);
  assert.equal(got, executable, 'the executable ones, each sender in nonce order; the queued one stays behind');
  assert.equal((await b.rpc('txpool_status')).queued, '0x0');
  await b.stop();
  b = undefined;
});

test('a new peer is pushed the executable transactions, sender by sender in nonce order', async () => {
  const { peer, pushed } = await recordingPeer();
  await handMade.admitted(peer);
  await until('the push', () => pushed.length === 1);
  const { pending: listed } = await a.rpc('txpool_content');
  const want = Object.values(listed as Record<string, Record<string, { hash: string }>>).flatMap((txs) => Object.values(txs).map((t) => t.hash));
  assert.equal(pushed[0]!.map((raw) => hashOf(bytesToHex(raw))), want);
  assert.is(want.length, 3);
});

test('garbage, an oversized frame, too many transactions on /chain/txs/1: each a fault, the third refuses the peer', async () => {
  const peer = await handMade.peer();
  await handMade.admitted(peer);
  const before = await a.rpc('txpool_status');
  const known = hexToBytes(await transfer(0, 0)); // pooled: each copy is ignored (cheaply), the count still grows
  await push(peer, [new Uint8Array([0xde, 0xad, 0xbe, 0xef]), new Uint8Array(0)]); // a push of one: not a transaction
  assert.ok(handMade.listed(peer), 'one fault: still a peer');
  await push(peer, [new Uint8Array(wire.MAX_TX_FRAME + 1)]);
  assert.ok(handMade.listed(peer), 'two faults: still a peer');
  await push(peer, [...Array.from({ length: wire.TX_PUSH_COUNT + 1 }, () => known), new Uint8Array(0)]);
  await handMade.refused(peer);
  assert.equal(await a.rpc('txpool_status'), before, 'the pool is unchanged');
});

test.run();
