// The validator set of each block from NodeManagement's records, at block granularity through the
// iris_ methods: an observer is no validator; a record promoted to consensus with a delayNum joins
// the set exactly at block delayNum + 1 (the iris_ answers and every block's istanbul extra agree);
// a deleted one never counts; with no record in force the set stays as it was (on a genesis-file
// chain: its firstValidatorNode); a lone node whose next set has two validators, or not itself,
// stops sealing, says so once, and still serves.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NODE_KEY, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { sysCallData, sysSendAs, sysSendFrom, type SysArg } from './helpers/syscontracts.ts';
import { NODE_MANAGEMENT_ABI } from '../src/codec/system-contracts-abi.ts';
import { NODE_MANAGEMENT } from '../src/exec/native/system-state.ts';
import { decodeExtra } from '../src/chain/istanbul-extra.ts';
import { addressOf, addressOfPublicKey, publicKeyOf, randomPrivateKey } from '../src/crypto/secp256k1.ts';
import { bytesToHex, hexToBytes, quantity } from '../src/util/hex.ts';

const dir = mkdtempSync(join(tmpdir(), 'chain-node-validators-'));
const lines: string[] = [];
let node: TestNode;
let admin: string;
let me: string;
/** the address of the record promoted to consensus */
let joined: string;

const hex = (n: number) => quantity(n);
const headNumber = async () => Number(await node.rpc('eth_blockNumber'));
const asAdmin = (method: string, ...args: SysArg[]) => sysSendFrom(node, admin, NODE_MANAGEMENT, sysCallData(NODE_MANAGEMENT_ABI, method, args));
/** one more block (a transaction in it) */
const mine = () => sysSendFrom(node, admin, admin, new Uint8Array(0));
const validators = (n: number) => node.rpc<string[]>('iris_getValidators', [hex(n)]);
const candidates = (n: number) => node.rpc<string[]>('iris_candidates', [hex(n)]);
async function extraValidators(n: number): Promise<string[]> {
  const block = await node.rpc('eth_getBlockByNumber', [hex(n), false]);
  return decodeExtra(hexToBytes(block.extraData)).validators.map(bytesToHex);
}
const byteOrder = (addresses: string[]) => [...addresses].sort();

/** A node key whose address sorts after `than`'s, so that name order and address order differ. */
function keyAfter(than: string): { publicKey: string; address: string } {
  for (;;) {
    const pub = publicKeyOf(randomPrivateKey());
    const address = bytesToHex(addressOfPublicKey(pub));
    if (address > than) return { publicKey: bytesToHex(pub).slice(2), address };
  }
}
const observer = (name: string, publicKey: string) => ({ name, desc: name, type: 2, status: 1, externalIP: '10.0.0.9', internalIP: '10.0.0.9', publicKey, p2pPort: 16791 });

test.before(async () => {
  node = await startTestNode({ dev: true, dir, config: { verbosity: 3 }, logWrite: (l) => lines.push(l) });
  [admin] = await node.rpc<string[]>('eth_accounts');
  me = bytesToHex(addressOfPublicKey(hexToBytes('0x' + (await node.rpc('admin_nodeInfo')).id)));
});

test.after(async () => {
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('block 0 and the dev node: the set is this node (genesis and its consensus record agree); an observer is no validator', async () => {
  assert.equal(await extraValidators(0), [me]);
  assert.equal(await validators(0), [me]);
  assert.equal(await candidates(0), [me]);
  const receipt = await asAdmin('add', observer('aaa_observer', keyAfter(me).publicKey));
  const n = Number(receipt.blockNumber);
  assert.equal(await validators(n), [me]);
  assert.equal(await candidates(n), [me]);
  assert.equal(await extraValidators(n), [me]);
});

test('a consensus record deleted before its delayNum never joins the set', async () => {
  const other = keyAfter(me);
  await asAdmin('add', observer('deleted_one', other.publicKey));
  const delay = (await headNumber()) + 3;
  await asAdmin('update', 'deleted_one', { type: 1, delayNum: delay });
  await asAdmin('update', 'deleted_one', { status: 2 });
  while ((await headNumber()) < delay + 1) await mine();
  assert.equal(await validators(delay), [me]);
  assert.equal(await validators(delay + 1), [me]);
  assert.equal(await candidates(delay + 1), [me]);
  assert.equal(await extraValidators(delay + 1), [me]);
});

test('promoted to consensus with delayNum D: a validator exactly from block D+1; iris_ answers and block extras agree', async () => {
  const other = keyAfter(me);
  joined = other.address;
  // "aaa…" sorts before node0 by name, its address after this node's by bytes
  await asAdmin('add', observer('aaa_validator', other.publicKey));
  const promotedAt = (await headNumber()) + 1;
  const delay = promotedAt + 2;
  const receipt = await asAdmin('update', 'aaa_validator', { type: 1, delayNum: delay });
  assert.is(Number(receipt.blockNumber), promotedAt);
  while ((await headNumber()) < delay) await mine();
  assert.is(await headNumber(), delay);

  for (let n = promotedAt - 1; n < delay; n++) assert.equal(await validators(n), [me], `set of block ${n + 1}`);
  assert.equal(await candidates(delay - 1), [me]);
  // the set of block D+1, read from the state after block D
  const both = byteOrder([me, other.address]);
  assert.equal(await validators(delay), both);
  assert.equal(await candidates(delay), [other.address, me]);
  const blockD = await node.rpc('eth_getBlockByNumber', [hex(delay), false]);
  const snapshot = await node.rpc('iris_getSnapshot', [hex(delay)]);
  assert.equal(snapshot, { number: delay, hash: blockD.hash, votes: [], tally: {}, validators: both, policy: 0 });
  assert.equal(await node.rpc('iris_getSnapshotAtHash', [blockD.hash]), snapshot);
  assert.equal(await node.rpc('iris_getValidatorsAtHash', [blockD.hash]), both);
  assert.equal(await node.rpc('iris_getValidators', ['latest']), both);
  // every block's extra carries the set iris_ answers for it
  for (let n = 1; n <= delay; n++) assert.equal(await extraValidators(n), await validators(n - 1), `block ${n}`);
});

test('with two validators next, this lone node stops sealing: a transaction waits, logged once; it still serves, also after a restart', async () => {
  const head = await headNumber();
  const first = await node.rpc('eth_sendTransaction', [{ from: admin, to: admin, value: '0x1' }]);
  const second = await node.rpc('eth_sendTransaction', [{ from: admin, to: admin, value: '0x2' }]);
  await new Promise((r) => setTimeout(r, 600));
  assert.is(await headNumber(), head);
  assert.is(await node.rpc('eth_getTransactionReceipt', [first]), null);
  assert.is(await node.rpc('eth_getTransactionReceipt', [second]), null);
  const paused = lines.filter((l) => l.includes('sealing paused'));
  assert.is(paused.length, 1, paused.join(''));
  assert.match(paused[0]!, new RegExp(`INFO .*validator set of block #${head + 1} is .*${me}.*: this node alone cannot reach its quorum, sealing paused`));

  await node.stop();
  node = await startTestNode({ dev: true, dir, config: { verbosity: 3 }, logWrite: (l) => lines.push(l) });
  assert.equal(await node.rpc('iris_getValidators', ['latest']), byteOrder([me, joined]));
  await new Promise((r) => setTimeout(r, 300));
  assert.is(await headNumber(), head);
  assert.is(await node.rpc('eth_getTransactionReceipt', [first]), null);
});

test('with its own record deleted and nothing else in force the set stays as it was; a set without this node stops its sealing', async () => {
  const dev = await startTestNode({ dev: true, config: { verbosity: 3 }, logWrite: (l) => lines.push(l) });
  try {
    const [owner] = await dev.rpc<string[]>('eth_accounts');
    const send = (to: string, d: Uint8Array) => sysSendFrom(dev, owner!, to, d);
    const self = bytesToHex(addressOfPublicKey(hexToBytes('0x' + (await dev.rpc('admin_nodeInfo')).id)));
    const other = keyAfter(self);
    await send(NODE_MANAGEMENT, sysCallData(NODE_MANAGEMENT_ABI, 'add', [observer('successor', other.publicKey)]));
    const delay = Number(await dev.rpc('eth_blockNumber')) + 3;
    await send(NODE_MANAGEMENT, sysCallData(NODE_MANAGEMENT_ABI, 'update', ['successor', { type: 1, delayNum: delay }]));
    const deleted = await send(NODE_MANAGEMENT, sysCallData(NODE_MANAGEMENT_ABI, 'update', ['node0', { status: 2 }]));
    // no consensus record in force: the set of the next block is the previous one
    assert.equal(await dev.rpc('iris_getValidators', [deleted.blockNumber]), [self]);
    assert.equal(await dev.rpc('iris_candidates', [deleted.blockNumber]), []);
    const last = await send(owner!, new Uint8Array(0));
    assert.is(Number(last.blockNumber), delay);
    assert.equal(await dev.rpc('iris_getValidators', ['latest']), [other.address]);
    const waiting = await dev.rpc('eth_sendTransaction', [{ from: owner, to: owner, value: '0x1' }]);
    await new Promise((r) => setTimeout(r, 400));
    assert.is(Number(await dev.rpc('eth_blockNumber')), delay);
    assert.is(await dev.rpc('eth_getTransactionReceipt', [waiting]), null);
    assert.ok(lines.some((l) => l.includes(`validator set of block #${delay + 1} is ${other.address}: this node is not in it, sealing paused`)));
  } finally {
    await dev.stop();
  }
});

test('a genesis-file chain with nothing registered keeps its firstValidatorNode in every block', async () => {
  const plain = await startTestNode();
  try {
    const first = bytesToHex(addressOf(hexToBytes('0x' + NODE_KEY)));
    assert.equal(await plain.rpc('iris_getValidators', ['0x0']), [first]);
    assert.equal(await plain.rpc('iris_candidates', ['0x0']), []);
    const receipt = await sysSendAs(plain, testKey(0), testAddress(1), new Uint8Array(0), 21_000n);
    assert.is(receipt.status, '0x1');
    const block = await plain.rpc('eth_getBlockByNumber', ['latest', false]);
    assert.equal(decodeExtra(hexToBytes(block.extraData)).validators.map(bytesToHex), [first]);
    assert.equal(await plain.rpc('iris_getValidators', ['latest']), [first]);
  } finally {
    await plain.stop();
  }
});

test.run();
