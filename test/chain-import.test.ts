// Block import at the chain door (ChainDoor.importBlocks): two in-process nodes on one genesis, A
// the validator, B a follower. Blocks A sealed and served by its door (what a peer's range request
// gets) are imported by B's door; B then answers for them through JSON-RPC as A does. Hostile
// blocks (bad seals, wrong roots, foreign validators, garbage) are refused with the right peerFault
// and leave B's chain and executor untouched: the honest block after them still imports.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { RLP } from '@ethereumjs/rlp';
import { Wallet, Transaction } from 'ethers';
import { startTestNode, mined, testKey, testAddress, type TestNode } from './helpers/node.ts';
import { CoreChainDoor } from '../src/core/core-chain-door.ts';
import { commitDigest, resealed, seal, withCommittedSeals, SINK } from './helpers/blocks.ts';
import { decodeBlock, encodeBlock } from '../src/chain/block-codec.ts';
import { addressOf } from '../src/crypto/secp256k1.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import type { ImportOutcome } from '../src/core/chain-door.ts';

const FOLLOWER_KEY = '77'.repeat(32);
const STRANGER = hexToBytes('0x' + '42'.repeat(32));
/** init code that logs once with one topic and deploys nothing: PUSH32 topic, PUSH1 0, PUSH1 0, LOG1 */
const TOPIC = '0x' + 'ab'.repeat(32);
const LOGGING_INIT = '0x7f' + TOPIC.slice(2) + '60006000a1';

const nonces = new Map<number, number>();
async function signed(sender: number, fields: { to?: string; value?: bigint; data?: string; gasLimit?: number }): Promise<string> {
  const nonce = nonces.get(sender) ?? 0;
  nonces.set(sender, nonce + 1);
  return new Wallet(testKey(sender)).signTransaction(Transaction.from({ to: fields.to ?? null, value: fields.value ?? 0n, data: fields.data ?? '0x', nonce, gasLimit: fields.gasLimit ?? 21000, gasPrice: 0, chainId: 300, type: 0 }));
}

let a: TestNode;
let b: TestNode;
let doorA: CoreChainDoor;
let doorB: CoreChainDoor;

test.before(async () => {
  [a, b] = await Promise.all([startTestNode(), startTestNode({ nodeKey: FOLLOWER_KEY })]);
  doorA = new CoreChainDoor(a.core);
  doorB = new CoreChainDoor(b.core);
});

test.after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

test('the follower shares the genesis and does not seal', async () => {
  assert.equal(bytesToHex(doorA.genesisHash), bytesToHex(doorB.genesisHash));
  assert.is(await a.rpc('eth_mining'), true);
  assert.is(await b.rpc('eth_mining'), false);
  assert.equal(await b.rpc('eth_syncing'), false);
});

test('blocks sealed by A import into B: same hashes and roots, receipts, logs and balances served by B, B’s pool drops what they include', async () => {
  // a transaction B holds pending (it seals nothing) is mined by A
  const shared = await signed(1, { to: SINK, value: 7n });
  const sharedHash = await b.rpc('eth_sendRawTransaction', [shared]);
  assert.is((await b.rpc('txpool_status')).pending, '0x1');
  await a.rpc('eth_sendRawTransaction', [shared]);
  await mined(a, sharedHash);
  const deploy = await a.rpc('eth_sendRawTransaction', [await signed(0, { data: LOGGING_INIT, gasLimit: 100000 })]);
  await mined(a, deploy);
  for (let i = 0; i < 5; i++) await mined(a, await a.rpc('eth_sendRawTransaction', [await signed(2, { to: SINK, value: BigInt(i + 1) })]));
  const head = doorA.head().number;
  assert.ok(head >= 7n, `A made ${head} blocks`);

  const outcome = await doorB.importBlocks(doorA.blocks(1n, 1000, 16 << 20));
  assert.equal(outcome, { imported: Number(head), transactions: 7 });
  assert.is(doorB.head().number, head);
  for (let n = 0n; n <= head; n++) {
    const [ba, bb] = await Promise.all([a.rpc('eth_getBlockByNumber', ['0x' + n.toString(16), false]), b.rpc('eth_getBlockByNumber', ['0x' + n.toString(16), false])]);
    assert.equal([bb.hash, bb.stateRoot, bb.receiptsRoot, bb.transactions], [ba.hash, ba.stateRoot, ba.receiptsRoot, ba.transactions], `block ${n}`);
  }
  const receipt = await b.rpc('eth_getTransactionReceipt', [deploy]);
  assert.equal(receipt, await a.rpc('eth_getTransactionReceipt', [deploy]));
  assert.is(receipt.logs.length, 1);
  assert.equal(receipt.logs[0].topics, [TOPIC]);
  const logs = await b.rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [TOPIC] }]);
  assert.is(logs.length, 1);
  assert.is(logs[0].transactionHash, deploy);
  assert.is(await b.rpc('eth_getBalance', [SINK, 'latest']), '0x' + (7n + 15n).toString(16));
  assert.is(await b.rpc('eth_getTransactionCount', [testAddress(2), 'latest']), '0x5');
  assert.is((await b.rpc('txpool_status')).pending, '0x0');
  assert.is((await b.rpc('eth_getTransactionByHash', [sharedHash])).blockHash, (await a.rpc('eth_getTransactionByHash', [sharedHash])).blockHash);

  // blocks already in the chain count as imported
  assert.equal(await doorB.importBlocks(doorA.blocks(1n, 3, 16 << 20)), { imported: 3, transactions: 0 });
});

test('hostile blocks are refused with the right peerFault; B keeps its head, keeps serving, and then imports the honest block', async () => {
  await mined(a, await a.rpc('eth_sendRawTransaction', [await signed(3, { to: SINK, value: 1n })]));
  await mined(a, await a.rpc('eth_sendRawTransaction', [await signed(3, { to: SINK, value: 2n })]));
  const headB = doorB.head();
  const [next, afterNext] = doorA.blocks(headB.number + 1n, 2, 16 << 20) as [Uint8Array, Uint8Array];
  const strangerTx = hexToBytes(await signed(1, { to: SINK, value: 99n }));
  const hugeTxs = Array.from({ length: 64 }, () => randomBytes(64 * 1024));

  const cases: [string, Uint8Array, boolean, RegExp][] = [
    ['sealed by a non-validator', resealed(next, () => {}, { proposer: STRANGER }), true, /proposer 0x[0-9a-f]+ is not a validator/],
    ['committed by a non-validator', withCommittedSeals(next, () => [seal(commitDigest(decodeBlock(next).hash), STRANGER)]), true, /committed seal by .* not a validator/],
    ['committed seals removed (below the quorum)', withCommittedSeals(next, () => []), true, /0 committed seals, the quorum of 1 validators is 1/],
    ['a committed seal twice', withCommittedSeals(next, (s) => [s[0]!, s[0]!]), true, /two committed seals/],
    ['a malformed committed seal', withCommittedSeals(next, () => [new Uint8Array(64)]), true, /committed seal 0 is not a 65-byte signature/],
    ['a wrong state root', resealed(next, (h) => (h.stateRoot = new Uint8Array(32).fill(1))), true, /stateRoot 0x[0-9a-f]+ after execution, the header says 0x0101/],
    ['a wrong receipts root', resealed(next, (h) => (h.receiptsRoot = new Uint8Array(32).fill(2))), true, /receiptsRoot/],
    ['a wrong gas used', resealed(next, (h) => (h.gasUsed += 1n)), true, /gasUsed 21000 after execution, the header says 21001/],
    ['a transaction replaced', resealed(next, () => {}, { txs: [strangerTx] }), true, /stateRoot|transactionsRoot/],
    ['an undecodable transaction', resealed(next, () => {}, { txs: [new Uint8Array([0xc0])] }), true, /transaction 0: invalid transaction encoding/],
    ['foreign validators in the extra', resealed(next, () => {}, { validators: [addressOf(STRANGER)] }), true, /istanbul extra names validators/],
    ['a timestamp an hour ahead', resealed(next, (h) => (h.timestamp = BigInt(Math.floor(Date.now() / 1000) + 3600))), true, /more than 30 s in the future/],
    ['a timestamp before its parent', resealed(next, (h) => (h.timestamp = b.core.chain.head.header.timestamp - 1n)), true, /is before its parent's/],
    ['another gas limit', resealed(next, (h) => (h.gasLimit -= 1n)), true, /gas limit/],
    ['an unknown parent', afterNext, false, /unknown parent/],
    ['garbage bytes', randomBytes(300), true, /./],
    ['a list that is no block', RLP.encode([[new Uint8Array(3)], []]), true, /invalid header encoding/],
    ['a huge bogus block (4 MiB of junk transactions)', encodeBlock(decodeBlock(next).header, hugeTxs), true, /transaction \d+: invalid transaction encoding/],
  ];
  for (const [name, bytes, peerFault, reason] of cases) {
    const outcome: ImportOutcome = await doorB.importBlocks([bytes]);
    assert.is(outcome.imported, 0, name);
    assert.ok(outcome.refused, name);
    assert.is(outcome.refused!.peerFault, peerFault, `${name}: ${outcome.refused!.reason}`);
    assert.match(outcome.refused!.reason, reason, name);
    assert.is(outcome.refused!.index, 0, name);
    assert.equal(doorB.head(), headB, name);
    assert.is(await b.rpc('eth_blockNumber'), '0x' + headB.number.toString(16), name);
  }

  // an honest block behind a bad one in a batch: those before the bad one import, the rest wait
  const outcome = await doorB.importBlocks([next, resealed(afterNext, (h) => (h.stateRoot = new Uint8Array(32).fill(1)))]);
  assert.is(outcome.imported, 1);
  assert.equal({ index: outcome.refused!.index, peerFault: outcome.refused!.peerFault }, { index: 1, peerFault: true });
  assert.equal(await doorB.importBlocks([afterNext]), { imported: 1, transactions: 1 });
  assert.is(bytesToHex(doorB.head().hash), bytesToHex(doorA.head().hash));
  assert.is(await b.rpc('eth_getBalance', [SINK, 'latest']), await a.rpc('eth_getBalance', [SINK, 'latest']));
});

test('a node that seals imports no blocks (one writer of the chain)', async () => {
  const headA = doorA.head();
  const [block] = doorB.blocks(1n, 1, 1 << 20);
  assert.equal(await doorA.importBlocks([block!]), { imported: 1, transactions: 0 });
  const outcome = await doorA.importBlocks([resealed(block!, (h) => (h.number = headA.number + 1n))]);
  assert.is(outcome.imported, 0);
  assert.equal({ peerFault: outcome.refused!.peerFault, reason: outcome.refused!.reason }, { peerFault: false, reason: 'this node seals its chain: it imports no blocks' });
  assert.equal(doorA.head(), headA);
});

test('eth_syncing answers the sync progress the door is given, then false', async () => {
  const head = '0x' + doorB.head().number.toString(16);
  doorB.setSyncing({ startingBlock: 2n, currentBlock: 3n, highestBlock: 4000n, phase: 'full', downloadedBlock: 300n, importedBlocks: 1, importedTransactions: 10, blocksPerSecond: 400, secondsLeft: undefined });
  assert.equal(await b.rpc('eth_syncing'), { startingBlock: '0x2', currentBlock: head, highestBlock: '0xfa0', pulledStates: '0x0', knownStates: '0x0', phase: 'full', downloadedBlock: '0x12c', importedBlocks: '0x1', importedTransactions: '0xa', blocksPerSecond: '0x190' });
  doorB.setSyncing({ startingBlock: 2n, currentBlock: 3n, highestBlock: 4000n, phase: 'full', downloadedBlock: 0n, importedBlocks: 1, importedTransactions: 10, blocksPerSecond: 400, secondsLeft: 10 });
  const answer = await b.rpc('eth_syncing');
  assert.is(answer.secondsLeft, '0xa');
  assert.is(answer.downloadedBlock, head, 'never below the head');
  doorB.setSyncing(undefined);
  assert.equal(await b.rpc('eth_syncing'), false);
});

test.run();
