// The state sync's driver (src/p2p/snap-sync.ts) over peers that are other nodes' doors, in this
// process on real LMDB: an honest validator, a peer that claims a head a million blocks up and
// serves nothing, and one that serves blocks whose committed seals were stripped. The joiner
// drops the stripper, distrusts the claim, lowers its pivot to what the honest peer has, and ends
// with the validator's state at that pivot as its head.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import type { ChainDoor, ChainHead } from '../src/core/chain-door.ts';
import { CoreChainDoor } from '../src/core/core-chain-door.ts';
import type { PeerHead, PeerSet } from '../src/p2p/peer-set.ts';
import { SnapSync, PIVOT_DISTANCE } from '../src/p2p/snap-sync.ts';
import { answerOf, type SnapAnswer } from '../src/p2p/snap-serve.ts';
import { decodeItems, decodeRange, type SnapRequest } from '../src/p2p/snap-wire.ts';
import { startTestNode, testGenesis, NODE_KEY, type TestNode } from './helpers/node.ts';
import { sealTransferBlocks, withCommittedSeals } from './helpers/blocks.ts';

const BLOCKS = 300;
const genesis = testGenesis(NODE_KEY, 2, 0);

interface Door {
  door: ChainDoor;
  /** the head it claims instead of its door's */
  claims?: ChainHead;
  /** alters the blocks it serves */
  serve?: (blocks: Uint8Array[]) => Uint8Array[];
}

/** Peers that are doors, with what the sync did to them. */
class DoorPeers implements PeerSet {
  readonly penalties: string[] = [];
  readonly drops: string[] = [];
  private readonly distrusted = new Set<string>();
  constructor(
    private readonly doors: Map<string, Door>,
    private readonly me: ChainDoor,
  ) {}

  peers(): PeerHead[] {
    return [...this.doors].map(([id, d]) => ({ id, head: this.distrusted.has(id) ? this.me.head() : (d.claims ?? d.door.head()) }));
  }

  onPeerHead(): void {}

  async requestBlocks(peerId: string, from: bigint, count: number): Promise<Uint8Array[]> {
    const { door, claims, serve } = this.doors.get(peerId)!;
    if (claims) return [];
    const blocks = door.blocks(from, count, 8 << 20);
    return serve ? serve(blocks) : blocks;
  }

  async requestState(peerId: string, request: SnapRequest): Promise<SnapAnswer> {
    const { door, claims } = this.doors.get(peerId)!;
    if (claims) return [];
    // the server's own answer, through the wire encoding
    const bytes = answerOf(door, request, false);
    return request.kind === 'accounts' || request.kind === 'storage' ? decodeRange(bytes) : decodeItems(bytes, request.kind);
  }

  penalise(peerId: string, reason: string): void {
    this.penalties.push(`${peerId}: ${reason}`);
  }

  drop(peerId: string, reason: string): void {
    this.drops.push(`${peerId}: ${reason}`);
    this.doors.delete(peerId);
  }

  distrust(peerId: string): void {
    this.distrusted.add(peerId);
  }
}

let validator: TestNode;
let joiner: TestNode;

test.before(async () => {
  validator = await startTestNode({ genesis, config: { directTransfers: true } });
  await sealTransferBlocks(validator, BLOCKS, 1);
  joiner = await startTestNode({ genesis, nodeKey: '77'.repeat(32) });
});

test.after(async () => {
  for (const n of [validator, joiner]) {
    await n?.stop();
    if (n) rmSync(n.dir, { recursive: true, force: true });
  }
});

test('a claimed head no peer serves lowers the pivot, a peer serving short seals is dropped, and the state of the pivot becomes the head', async () => {
  const honest = new CoreChainDoor(validator.core);
  const me = new CoreChainDoor(joiner.core);
  const lines: string[] = [];
  const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
  const peers = new DoorPeers(
    new Map<string, Door>([
      ['claimer', { door: honest, claims: { number: 1_000_000n, hash: new Uint8Array(32).fill(1) } }],
      ['stripper', { door: honest, serve: (blocks) => blocks.map((b) => withCommittedSeals(b, () => [])) }],
      ['honest', { door: honest }],
    ]),
    me,
  );
  await new SnapSync(peers, me, log).run();

  // the honest peer's ranges up to the claimed head's pivot were stored meanwhile: never below them
  const moved = lines.map((l) => /^snap: no peer serves blocks up to pivot #999936: the pivot moves to #(\d+)$/.exec(l)).find(Boolean);
  assert.ok(moved, lines.join('\n'));
  const pivot = BigInt(moved![1]!);
  assert.ok(pivot >= honest.head().number - PIVOT_DISTANCE && pivot <= honest.head().number, `pivot ${pivot}`);
  assert.ok(lines.some((l) => l.startsWith('snap: state sync to pivot #999936')), lines.join('\n'));
  assert.ok(peers.penalties.some((p) => /^claimer: state sync: served no block from #\d+/.test(p)), peers.penalties.join('\n'));
  assert.ok(peers.drops.some((d) => /^stripper: state sync: block #\d+ 0x[0-9a-f]{64} 0 committed seals, the quorum of 1 validators is 1$/.test(d)), peers.drops.join('\n'));
  assert.is(me.head().number, pivot);
  assert.equal(me.head().hash, honest.hashAt(pivot));
  assert.is(me.snap.status(), undefined);
  for (const [method, params] of [
    ['eth_getBalance', ['0x' + '5'.repeat(40), '0x' + pivot.toString(16)]],
    ['eth_getBlockByNumber', ['0x' + pivot.toString(16), false]],
  ] as [string, unknown[]][]) {
    assert.equal(await joiner.rpc(method, params), await validator.rpc(method, params), method);
  }
});

test.run();
