// The block sync (src/p2p/sync.ts) over in-process peers: the network is the outside boundary here,
// so the PeerSet the sync runs on is made of other in-process nodes' chain doors (what the libp2p
// host's range requests end in: ChainDoor.blocks). A follower catches up with a validator through
// real imports, spreads its requests over its peers, penalises a peer whose blocks are wrong and
// fetches them from another, and says where it is through eth_syncing while it runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Wallet, Transaction } from 'ethers';
import { assertAnswered, startTestNode, testGenesis, testKey, mined, pollBlockNumber, NODE_KEY, type TestNode } from './helpers/node.ts';
import { resealed, sealTransferBlocks, SINK } from './helpers/blocks.ts';
import { CoreChainDoor } from '../src/core/core-chain-door.ts';
import { BlockSync, REQUESTS_PER_PEER } from '../src/p2p/sync.ts';
import type { ChainDoor } from '../src/core/chain-door.ts';
import type { PeerHead, PeerSet } from '../src/p2p/peer-set.ts';
import { paced, slowdown } from './helpers/pace.ts';

const BLOCKS = 300;
const TXS = 2;

/** Peers that are other nodes' doors; `serve` may alter what a peer answers (a hostile peer). */
class DoorPeers implements PeerSet {
  readonly penalties: { peer: string; reason: string }[] = [];
  readonly requests = new Map<string, number>();
  private readonly listeners: ((p: PeerHead) => void)[] = [];

  constructor(private readonly doors: Map<string, { door: ChainDoor; serve?: (blocks: Uint8Array[]) => Uint8Array[] }>) {}

  peers(): PeerHead[] {
    return [...this.doors].map(([id, { door }]) => ({ id, head: door.head() }));
  }

  onPeerHead(listener: (peer: PeerHead) => void): void {
    this.listeners.push(listener);
  }

  announce(): void {
    for (const p of this.peers()) for (const l of this.listeners) l(p);
  }

  async requestBlocks(peerId: string, from: bigint, count: number): Promise<Uint8Array[]> {
    this.requests.set(peerId, (this.requests.get(peerId) ?? 0) + 1);
    // an answer crosses a real network some time later
    await new Promise((resolve) => setTimeout(resolve, 2));
    const { door, serve } = this.doors.get(peerId)!;
    const blocks = door.blocks(from, count, 4 << 20);
    return serve ? serve(blocks) : blocks;
  }

  async requestState(): Promise<never> {
    throw new Error('these peers serve full sync only');
  }

  penalise(peerId: string, reason: string): void {
    this.penalties.push({ peer: peerId, reason });
  }

  drop(peerId: string, reason: string): void {
    this.penalties.push({ peer: peerId, reason });
  }

  distrust(): void {
    // a peer's head here is its door's, always true
  }
}

let validator: TestNode;
const genesis = testGenesis(NODE_KEY, TXS, 0);
const started: TestNode[] = [];

async function follower(key: string): Promise<TestNode> {
  const node = await startTestNode({ genesis, nodeKey: key });
  started.push(node);
  return node;
}

async function inStep(sync: BlockSync, node: TestNode, target: bigint): Promise<void> {
  for (let i = 0; i < 1000 && (sync.syncing || node.core.chain.headNumber < target); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

test.before(async () => {
  validator = await startTestNode({ genesis, config: { directTransfers: true } });
  await sealTransferBlocks(validator, BLOCKS, TXS);
});

test.after(async () => {
  await Promise.all([validator?.stop(), ...started.map((n) => n.stop())]);
});

test('a follower syncs the validator’s chain and then its new blocks: same hashes, eth_syncing an object while it runs, then false', async () => {
  const b = await follower('71'.repeat(32));
  const peers = new DoorPeers(new Map([['validator', { door: new CoreChainDoor(validator.core) }]]));
  const lines: string[] = [];
  const sync = new BlockSync(peers, new CoreChainDoor(b.core), { info: (m) => lines.push(m), warn: (m) => lines.push(m) }, { chunk: 32, progressEveryMs: 0 });
  // what eth_syncing answered at each block the sync imported
  const answers: unknown[] = [];
  b.core.events.onBlock(() => void b.rpc('eth_syncing').then((r) => answers.push(r)));
  const pace = await slowdown();
  const poll = pollBlockNumber(b);
  sync.start();
  await inStep(sync, b, BigInt(BLOCKS));
  // RPC kept answering while blocks imported (the executor yields, commits run on LMDB's thread)
  await assertAnswered(b, await poll.stop(), 'during the sync', 1000, pace);
  assert.is(b.core.chain.headNumber, BigInt(BLOCKS));
  const firstSync = [...answers];
  // the validator seals two more blocks; its new head (an announcement) starts a sync again
  const wallet = new Wallet(testKey(0));
  for (let i = 0; i < 2; i++) await mined(validator, await validator.rpc('eth_sendRawTransaction', [await wallet.signTransaction(Transaction.from({ to: SINK, value: 1n, nonce: BLOCKS + i, gasLimit: 21000, gasPrice: 0, chainId: 300, type: 0 }))]));
  peers.announce();
  await inStep(sync, b, BigInt(BLOCKS + 2));
  await sync.stop();
  assert.is(b.core.chain.head.hash.toString(), validator.core.chain.head.hash.toString());
  for (const n of [1, 150, BLOCKS]) assert.is((await b.rpc('eth_getBlockByNumber', ['0x' + n.toString(16), false])).hash, (await validator.rpc('eth_getBlockByNumber', ['0x' + n.toString(16), false])).hash);
  assert.is(await b.rpc('eth_getBalance', [SINK, 'latest']), await validator.rpc('eth_getBalance', [SINK, 'latest']));
  const during = firstSync.find((a) => typeof a === 'object') as Record<string, string> | undefined;
  assert.ok(during, `eth_syncing answered ${JSON.stringify(firstSync.slice(0, 3))}`);
  // geth's and Venachain's fields first; secondsLeft once a block is in (checked below)
  assert.equal(Object.keys(during).slice(0, 10), ['startingBlock', 'currentBlock', 'highestBlock', 'pulledStates', 'knownStates', 'phase', 'downloadedBlock', 'importedBlocks', 'importedTransactions', 'blocksPerSecond']);
  assert.is(during.startingBlock, '0x0');
  assert.is(during.highestBlock, '0x' + BLOCKS.toString(16));
  // every answer mid-sync: the phase, what is downloaded ahead of the head, the counts of this sync
  const mid = firstSync.filter((a): a is Record<string, string> => typeof a === 'object' && a !== null);
  assert.ok(mid.length >= 10, `${mid.length} answers mid-sync`);
  for (const a of mid) {
    assert.is(a.phase, 'full');
    assert.ok(BigInt(a.downloadedBlock!) >= BigInt(a.currentBlock!) && BigInt(a.downloadedBlock!) <= BigInt(BLOCKS), JSON.stringify(a));
    // the counts are published after each import, the head read at the answer: never ahead of it
    assert.ok(BigInt(a.importedBlocks!) <= BigInt(a.currentBlock!), JSON.stringify(a));
    assert.ok(BigInt(a.importedTransactions!) <= BigInt(a.importedBlocks!) * BigInt(TXS), JSON.stringify(a));
  }
  const late = mid.filter((a) => BigInt(a.importedBlocks!) >= 100n);
  assert.ok(late.length > 0 && late.every((a) => BigInt(a.blocksPerSecond!) > 0n && a.secondsLeft !== undefined), JSON.stringify(late.slice(0, 2)));
  assert.ok(mid.some((a) => BigInt(a.downloadedBlock!) > BigInt(a.currentBlock!)), 'blocks downloaded ahead of the import at some answer');
  assert.is(await b.rpc('eth_syncing'), false);
  assert.ok(lines.some((l) => /^sync: block #\d+ of #300, \d+ blocks\/s, \d+ tx\/s(, downloaded to #\d+)?, ETA \d+ s$/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => l.startsWith(`sync: from block #${BLOCKS} to #${BLOCKS + 2}`)), lines.join('\n'));
  assert.match(lines.at(-1)!, /in step/);
});

test('ranges downloaded while earlier ones import go into one import together, in order', async () => {
  const b = await follower('74'.repeat(32));
  const door = new CoreChainDoor(b.core);
  // each import's size, through the follower's real door
  const imports: number[] = [];
  const counting: ChainDoor = Object.assign(Object.create(door) as ChainDoor, {
    importBlocks: (encoded: readonly Uint8Array[]) => (imports.push(encoded.length), door.importBlocks(encoded)),
  });
  const peers = new DoorPeers(new Map([['validator', { door: new CoreChainDoor(validator.core) }]]));
  const chunk = 16;
  const target = validator.core.chain.headNumber;
  const sync = new BlockSync(peers, counting, { info: () => {}, warn: () => {} }, { chunk });
  sync.start();
  await inStep(sync, b, target);
  await sync.stop();
  assert.is(b.core.chain.head.hash.toString(), validator.core.chain.head.hash.toString());
  assert.is(imports.reduce((a, n) => a + n, 0), Number(target), imports.join(' '));
  // the requests in flight answer (2 ms) while the first range imports: later imports take several ranges
  assert.ok(Math.max(...imports) > chunk, imports.join(' '));
  assert.ok(Math.max(...imports) <= REQUESTS_PER_PEER * chunk, imports.join(' '));
  assert.ok(imports.length < Number(target) / chunk, imports.join(' '));
});

test('requests spread over the peers; a peer serving bad blocks is penalised and its ranges come from another', async () => {
  const b = await follower('72'.repeat(32));
  const honest = await follower('73'.repeat(32));
  // a second honest peer that has the chain: it syncs from the validator first
  const target = validator.core.chain.headNumber;
  await new CoreChainDoor(honest.core).importBlocks(new CoreChainDoor(validator.core).blocks(1n, Number(target), 64 << 20));
  // the hostile peer changes the state root of every block and seals it again with the validator's key
  const hostile = (blocks: Uint8Array[]) => blocks.map((e) => resealed(e, (h) => (h.stateRoot = new Uint8Array(32).fill(9))));
  const peers = new DoorPeers(
    new Map([
      ['hostile', { door: new CoreChainDoor(validator.core), serve: hostile }],
      ['validator', { door: new CoreChainDoor(validator.core) }],
      ['honest', { door: new CoreChainDoor(honest.core) }],
    ]),
  );
  const sync = new BlockSync(peers, new CoreChainDoor(b.core), { info: () => {}, warn: () => {} }, { chunk: 16 });
  sync.start();
  await inStep(sync, b, target);
  await sync.stop();
  assert.is(b.core.chain.head.hash.toString(), validator.core.chain.head.hash.toString());
  for (const id of ['hostile', 'validator', 'honest']) assert.ok((peers.requests.get(id) ?? 0) >= 1, `${id}: ${peers.requests.get(id)} requests`);
  // the honest peers carried the sync; the hostile one was asked only until its first answer was refused
  assert.ok(peers.requests.get('validator')! + peers.requests.get('honest')! >= BLOCKS / 16);
  assert.ok(peers.requests.get('hostile')! <= 4, `hostile: ${peers.requests.get('hostile')} requests`);
  assert.ok(peers.penalties.length >= 1 && peers.penalties.every((p) => p.peer === 'hostile'), JSON.stringify(peers.penalties));
  assert.match(peers.penalties[0]!.reason, /block #\d+: .*stateRoot 0x[0-9a-f]+ after execution, the header says 0x0909/);
});

test('a peer that claims a head it does not serve is penalised, and the sync goes on from another', async () => {
  const b = await follower('74'.repeat(32));
  const target = validator.core.chain.headNumber;
  // claims the validator's head (its door's) and answers every range with nothing
  const peers = new DoorPeers(
    new Map([
      ['empty', { door: new CoreChainDoor(validator.core), serve: () => [] }],
      ['validator', { door: new CoreChainDoor(validator.core) }],
    ]),
  );
  const sync = new BlockSync(peers, new CoreChainDoor(b.core), { info: () => {}, warn: () => {} }, { chunk: 64 });
  sync.start();
  await inStep(sync, b, target);
  await sync.stop();
  assert.is(b.core.chain.head.hash.toString(), validator.core.chain.head.hash.toString());
  assert.ok(peers.penalties.length >= 1 && peers.penalties.every((p) => p.peer === 'empty'), JSON.stringify(peers.penalties));
  assert.match(peers.penalties[0]!.reason, /claimed a head at or above #\d+ and served no block from it/);
});

test.run();
