// The state sync's two sides through the door (N16), in this process on real LMDB: what a node
// serves (bounded, empty for an unknown root) and what a joiner refuses — short or foreign seals,
// bodies and receipts that do not make their header's roots, ranges whose proof fails, code of
// another hash — storing nothing of it; then the honest answers complete the state and the pivot
// becomes the joiner's head with the validator's state.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { Transaction, Wallet, getCreateAddress } from 'ethers';
import { sealBlock, startTestNode, testAddress, testGenesis, testKey, NODE_KEY, type TestNode } from './helpers/node.ts';
import { resealed, signedTransfer, withCommittedSeals, SINK } from './helpers/blocks.ts';
import { CoreChainDoor } from '../src/core/core-chain-door.ts';
import type { RangeAnswer, StateTask } from '../src/core/chain-door.ts';
import { hexToBytes } from '../src/util/hex.ts';

const genesis = testGenesis(NODE_KEY, 3, 0);
// constructor: slot 7 = 42; runtime: sstore(calldata[0], calldata[32]) and log1(topic = calldata[0])
const CODE = '0x602a6007556010601160003960106000f3' + '6020356000355560003560006000a100';
let validator: TestNode;
let joiner: TestNode;
let from: CoreChainDoor;
let to: CoreChainDoor;
let contract: string;
const BLOCKS = 12n;


const flip = (b: Uint8Array) => {
  const out = new Uint8Array(b);
  out[out.length - 1]! ^= 1;
  return out;
};

test.before(async () => {
  validator = await startTestNode({ genesis, config: { directTransfers: true } });
  const key0 = new Wallet(testKey(0));
  const chainId = validator.core.config.chainId;
  contract = getCreateAddress({ from: key0.address, nonce: 0 });
  await sealBlock(validator, [hexToBytes(await key0.signTransaction(Transaction.from({ nonce: 0, gasPrice: 0, chainId, type: 0, data: CODE, gasLimit: 200_000 })))]);
  const data = '0x' + '1'.padStart(64, '0') + '65'.padStart(64, '0');
  await sealBlock(validator, [hexToBytes(await key0.signTransaction(Transaction.from({ nonce: 1, gasPrice: 0, chainId, type: 0, to: contract, data, gasLimit: 100_000 })))]);
  for (let n = 0; validator.core.chain.headNumber < BLOCKS; n++) await sealBlock(validator, [signedTransfer(hexToBytes(testKey(1)), BigInt(n), chainId)]);
  joiner = await startTestNode({ genesis, nodeKey: '77'.repeat(32) });
  from = new CoreChainDoor(validator.core);
  to = new CoreChainDoor(joiner.core);
});

test.after(async () => {
  for (const n of [validator, joiner]) {
    await n?.stop();
    if (n) rmSync(n.dir, { recursive: true, force: true });
  }
});

test('the serving side bounds its answers and answers an unknown root empty', async () => {
  const root = validator.core.chain.head.header.stateRoot;
  const all = from.accountRange(root, new Uint8Array(32), new Uint8Array(32).fill(0xff), 4096, 1 << 20);
  assert.ok(all.keys.length >= 5, `${all.keys.length} accounts`);
  const two = from.accountRange(root, new Uint8Array(32), new Uint8Array(32).fill(0xff), 2, 1 << 20);
  assert.is(two.keys.length, 2);
  assert.equal(two.keys, all.keys.slice(0, 2));
  assert.ok(two.proof.length > 0);
  const tiny = from.accountRange(root, new Uint8Array(32), new Uint8Array(32).fill(0xff), 4096, 1);
  assert.is(tiny.keys.length, 1, 'stops once the byte bound is reached');
  assert.equal(from.accountRange(new Uint8Array(32).fill(9), new Uint8Array(32), new Uint8Array(32).fill(0xff), 4096, 1 << 20), { keys: [], values: [], proof: [] });
  assert.equal(from.storageRange(root, new Uint8Array(32).fill(9), new Uint8Array(32), new Uint8Array(32).fill(0xff), 4096, 1 << 20), { keys: [], values: [], proof: [] });
  assert.equal(from.codes([new Uint8Array(32).fill(9)], 1 << 20), []);
  assert.is(from.snapReceipts(1n, 256, 1 << 20).length, Number(BLOCKS));
});

test('the joiner refuses blocks with short or foreign seals, or bodies and receipts off their roots, and stores none of them', async () => {
  await to.snap.begin(BLOCKS);
  const blocks = from.blocks(1n, Number(BLOCKS), 1 << 24);
  const receipts = from.snapReceipts(1n, Number(BLOCKS), 1 << 24);
  const refused = async (bs: Uint8Array[], rs: Uint8Array[]) => {
    const r = await to.snap.storeBlocks(bs, rs);
    assert.is(r.stored, 0);
    assert.is(to.snap.status()!.stored, 0n);
    return r.refused ?? '';
  };
  assert.match(await refused([withCommittedSeals(blocks[0]!, () => []), ...blocks.slice(1)], receipts), /block #1 0x[0-9a-f]{64} 0 committed seals, the quorum of 1 validators is 1/);
  assert.match(await refused([resealed(blocks[0]!, () => {}, { committers: [hexToBytes(testKey(2))] })], receipts), /committed seal by 0x[0-9a-f]{40}, not a validator/);
  assert.match(await refused([resealed(blocks[0]!, () => {}, { txs: [signedTransfer(hexToBytes(testKey(2)), 0n, 300n)] })], receipts), /transactions do not hash to its transactionsRoot/);
  assert.match(await refused([blocks[0]!], [receipts[1]!]), /receipts do not hash to its receiptsRoot/);
  assert.match(await refused([blocks[1]!], [receipts[1]!]), /is not the child of #0/);
  assert.match(await refused([new Uint8Array([1, 2, 3])], receipts), /block must be RLP|not RLP/);
  // honest blocks are stored, a wrong one after them is not
  const r = await to.snap.storeBlocks([...blocks.slice(0, 3), withCommittedSeals(blocks[3]!, () => [])], receipts.slice(0, 4));
  assert.is(r.stored, 3);
  assert.match(r.refused!, /block #4/);
  assert.is(to.snap.status()!.stored, 3n);
  // a pivot no peer serves up to moves down, never below what is stored
  await to.snap.movePivot(1n);
  assert.is(to.snap.status()!.pivot, 3n);
  assert.match((await to.snap.storeBlocks([blocks[3]!], [receipts[3]!])).refused!, /is past the pivot #3/);
  await to.snap.begin(BLOCKS);
  assert.equal(await to.snap.storeBlocks(blocks, receipts), { stored: Number(BLOCKS) });
  // stored, not the head: nothing reads above it yet
  assert.is(await joiner.rpc('eth_blockNumber'), '0x0');
  assert.is(await joiner.rpc('eth_getTransactionReceipt', [(await validator.rpc('eth_getBlockByNumber', ['0x1', false])).transactions[0]]), null);
});

test('the joiner refuses ranges whose proof fails and code of another hash, then completes from honest answers', async () => {
  const answer = (task: StateTask & { kind: 'accounts' | 'storage' }): RangeAnswer =>
    task.kind === 'accounts' ? from.accountRange(task.root, task.origin, task.limit, 4096, 1 << 20) : from.storageRange(task.root, task.account, task.origin, new Uint8Array(32).fill(0xff), 4096, 1 << 20);
  let lies = 0;
  for (let task = to.snap.nextTask(); task; task = to.snap.nextTask()) {
    const pulled = to.snap.status()!.pulled;
    if (task.kind === 'codes') {
      const codes = from.codes(task.hashes, 1 << 20);
      const lie = await to.snap.putCodes(task, codes.map(flip));
      assert.ok(!lie.ok && /codes: a code hashes to 0x[0-9a-f]{64}, which was not asked for/.test(lie.reason), JSON.stringify(lie));
      lies++;
      assert.is(to.snap.status()!.pulled, pulled);
      const again = to.snap.nextTask();
      assert.is(again?.kind, 'codes', 'a refused task is asked again');
      assert.equal(await to.snap.putCodes(again as StateTask & { kind: 'codes' }, from.codes((again as StateTask & { kind: 'codes' }).hashes, 1 << 20)), { ok: true, stored: 1 });
      continue;
    }
    const honest = answer(task);
    if (honest.values.length > 0) {
      const lie = await to.snap.putRange(task, { ...honest, values: [flip(honest.values[0]!), ...honest.values.slice(1)] });
      assert.ok(!lie.ok && /range at root 0x[0-9a-f]{64} does not verify/.test(lie.reason), JSON.stringify(lie));
      const early = await to.snap.putRange(task, { ...honest, keys: [new Uint8Array(32), ...honest.keys.slice(1)] });
      assert.ok(!early.ok, 'a range that does not start at the key asked for (or proves another) is refused');
      lies += 2;
      assert.is(to.snap.status()!.pulled, pulled);
      const empty = await to.snap.putRange(task, { keys: [], values: [], proof: [] });
      assert.ok(!empty.ok && /an empty answer/.test(empty.reason));
    }
    const ok = await to.snap.putRange(task, honest);
    assert.ok(ok.ok, JSON.stringify(ok));
  }
  assert.ok(lies >= 3);
  assert.ok(to.snap.stateComplete());
  // judged at the joiner's old head (the genesis), a transfer the validator's chain has mined since
  const stale = await joiner.core.submitRawTransaction(signedTransfer(hexToBytes(testKey(1)), 0n, 300n));
  assert.ok(joiner.core.pool.has(stale.hashHex));
  await to.snap.finish();
  assert.not.ok(joiner.core.pool.has(stale.hashHex), 're-based on the pivot: nonce too low');
  assert.is(to.snap.status(), undefined);
  assert.is(await joiner.rpc('eth_blockNumber'), '0x' + BLOCKS.toString(16));
  for (const [method, params] of [
    ['eth_getBalance', [testAddress(1), 'latest']],
    ['eth_getBalance', [SINK, 'latest']],
    ['eth_getStorageAt', [contract, '0x1', 'latest']],
    ['eth_getStorageAt', [contract, '0x7', 'latest']],
    ['eth_getCode', [contract, 'latest']],
    ['eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]],
    ['eth_getBlockByNumber', ['latest', true]],
  ] as [string, unknown[]][]) {
    assert.equal(await joiner.rpc(method, params), await validator.rpc(method, params), method);
  }
});

test.run();
