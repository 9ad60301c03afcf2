// Four validators in one process decide blocks by iris (src/consensus/iris/engine.ts): real nodes
// whose genesis registers all four as consensus nodes in NodeManagement, their consensus channels
// joined by an in-memory relay (the one thing this test provides) that can cut a node off. Blocks
// are decided with every node holding the same hash at every height, proposers rotating by Venachain's
// round robin, each block carrying a quorum of committed seals; with one node cut off the chain
// goes on after a round change; with two cut off nothing is decided and nothing forks, and with one
// of them back it goes on. An idle chain stays idle. A block locked in a round that decided nothing
// is the one decided in a later round. A validator deleted in NodeManagement leaves the set at the next block.
// Two validators with a period: both decide, a period apart. The verdicts the network gets for bad messages.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestNode, testGenesis, testKey, type TestNode } from './helpers/node.ts';
import { signedTransfer } from './helpers/blocks.ts';
import { until } from './helpers/network.ts';
import { encodeBlock } from '../src/chain/block-codec.ts';
import { Transaction, Wallet } from 'ethers';
import { NODE_MANAGEMENT, systemGenesisAlloc } from '../src/exec/native/system-state.ts';
import { NODE_MANAGEMENT_ABI } from '../src/codec/system-contracts-abi.ts';
import { sysCallData } from './helpers/syscontracts.ts';
import { decodeExtra } from '../src/chain/istanbul-extra.ts';
import { commitDigest, committedSeal, signerOf } from '../src/consensus/seals.ts';
import { COMMIT, decodeMessage, decodePreprepare, decodeSubject, encodeMessage, encodeSubject, PREPARE, PREPREPARE, signMessage } from '../src/consensus/iris/messages.ts';
import { proposerOf, proposerOrder } from '../src/consensus/iris/proposer.ts';
import { addressOf, publicKeyOf } from '../src/crypto/secp256k1.ts';
import { keccak256 } from '../src/crypto/keccak.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

/** validators: test keys 4–7 (their Venachain order differs from their byte order); key 0 pays */
const VALIDATOR_KEYS = [4, 5, 6, 7].map(testKey);
const ADDRESSES = VALIDATOR_KEYS.map((k) => bytesToHex(addressOf(hexToBytes(k))));
const ORDERED = proposerOrder(ADDRESSES.map(hexToBytes)).map(bytesToHex);
const PAYER = hexToBytes(testKey(0));
const TIMEOUT_MS = 1000;

const dirs: string[] = [];
const nodes: TestNode[] = [];
const logs: string[][] = [];
/** nodes whose relay is cut, both ways */
const cut = new Set<number>();
/** the relay drops every COMMIT (validators lock, nothing is decided) */
let dropCommits = false;
let commitsLostUpTo: number | undefined;
/** the last PREPREPARE the relay carried for each block number, as sent */
const preprepares = new Map<bigint, Uint8Array>();
let nonce = 0n;
let syncing: Promise<void> | undefined;
let chainId = 0n;

/** A genesis registering `keys` as consensus nodes in NodeManagement (test key 0 funded, and its node admin). */
async function genesis(keys: string[], period: number): Promise<object> {
  const base = testGenesis(keys[0]!.slice(2), 1) as { config: { istanbul: object }; alloc: object };
  const nodeRecords = await systemGenesisAlloc(async (state) => {
    await state.roles.grant(bytesToHex(addressOf(PAYER)), 'NODE_ADMIN');
    for (const [i, key] of keys.entries()) {
      await state.nodes.put({
        name: `validator${i}`, owner: bytesToHex(addressOf(PAYER)), desc: '', type: 1, status: 1, externalIP: '127.0.0.1', internalIP: '127.0.0.1',
        publicKey: bytesToHex(publicKeyOf(hexToBytes(key))).slice(2), rpcPort: 6791, p2pPort: 16791 + i, delayNum: 0,
      });
    }
  });
  return { ...base, config: { ...base.config, istanbul: { ...base.config.istanbul, period, timeout: TIMEOUT_MS, policy: 0 } }, alloc: { ...base.alloc, ...nodeRecords } };
}

/** One node per key on a genesis naming them all, each logging into its own `logs` entry. */
async function startValidators(keys: string[], period: number, logsOut: string[][]): Promise<TestNode[]> {
  const g = await genesis(keys, period);
  const started: TestNode[] = [];
  for (const key of keys) {
    const dir = mkdtempSync(join(tmpdir(), 'chain-node-iris-'));
    dirs.push(dir);
    const lines: string[] = [];
    logsOut.push(lines);
    started.push(await startTestNode({ dir, genesis: g, nodeKey: key.slice(2), config: { verbosity: Number(process.env.IRIS_LOGS ?? 3) }, logWrite: (l) => lines.push(l) }));
  }
  return started;
}

/** Joins the nodes' consensus channels; `pass` decides each message's fate from sender i to receiver j. */
function relay(group: TestNode[], pass: (i: number, j: number, m: Uint8Array) => boolean): void {
  for (const [i, from] of group.entries()) {
    for (const [j, to] of group.entries()) {
      // a later turn, as a network delivers: never inside the sender's broadcast
      if (i !== j) from.core.consensus.onOutgoing((m) => pass(i, j, m) && setImmediate(() => void to.core.consensus.receive(m)));
    }
  }
}

const head = (n: TestNode) => n.core.chain.head.header.number;
const connected = () => nodes.filter((_, i) => !cut.has(i));

/** A transaction sent to every node (as the network would spread it; default a transfer); resolves its hash. */
async function sendEverywhere(raw = bytesToHex(signedTransfer(PAYER, nonce++, chainId))): Promise<string> {
  const hashes = await Promise.all(nodes.map((n) => n.rpc<string>('eth_sendRawTransaction', [raw])));
  return hashes[0]!;
}

async function minedOn(on: TestNode[], hash: string, timeoutMs: number): Promise<void> {
  await until(`${hash} mined on ${on.length} nodes`, async () => (await Promise.all(on.map((n) => n.rpc('eth_getTransactionReceipt', [hash])))).every((r) => r !== null), timeoutMs);
}

/** The round block `number` was decided in: the last one a quorum started (the engine logs it), else 0. */
function decidedRound(number: number): number {
  let round = 0;
  for (const l of logs.flat()) {
    const m = new RegExp(`iris: block #${number} round (\\d+) started`).exec(l);
    if (m) round = Math.max(round, Number(m[1]));
  }
  return round;
}

async function blockAt(n: TestNode, number: bigint): Promise<any> {
  return n.rpc('eth_getBlockByNumber', ['0x' + number.toString(16), false]);
}

/** Every node of `on` holds the same block at every height up to `upTo`. */
async function sameChain(on: TestNode[], upTo: bigint): Promise<any[]> {
  const blocks: any[] = [];
  for (let h = 1n; h <= upTo; h++) {
    const hashes = await Promise.all(on.map(async (n) => (await blockAt(n, h))?.hash));
    assert.ok(hashes.every((x) => x === hashes[0] && x), `block #${h}: ${hashes.join(', ')}`);
    blocks.push(await blockAt(on[0]!, h));
  }
  return blocks;
}

/**
 * The sync's part, which the network plays in a node (src/p2p): a connected validator that fell
 * behind (it left a round the others finished: a first block's execution can outlast a timeout on a
 * loaded machine) gets the blocks it lacks from the best connected one.
 */
async function catchUp(): Promise<void> {
  const on = connected();
  if (on.length === 0) return;
  const best = on.reduce((a, b) => (head(b) > head(a) ? b : a));
  for (const n of on) {
    const blocks: Uint8Array[] = [];
    for (let h = head(n) + 1n; h <= head(best); h++) {
      const b = best.core.chain.block(best.core.chain.hashByNumber(h)!)!;
      blocks.push(encodeBlock(b.header, b.txs));
    }
    if (blocks.length > 0) await n.core.importBlocks(blocks);
  }
}

/** a COMMIT lost: every one while `dropCommits`, and those of rounds up to `commitsLostUpTo` */
const lostCommit = (bytes: Uint8Array) => {
  const m = decodeMessage(bytes);
  return m.code === COMMIT && (dropCommits || (commitsLostUpTo !== undefined && decodeSubject(m.msg).view.round <= commitsLostUpTo));
};

test.before(async () => {
  nodes.push(...(await startValidators(VALIDATOR_KEYS, 0, logs)));
  relay(nodes, (i, j, m) => {
    const decoded = decodeMessage(m);
    if (decoded.code === PREPREPARE) preprepares.set(decodePreprepare(decoded.msg).view.sequence, m);
    return !cut.has(i) && !cut.has(j) && !lostCommit(m);
  });
  chainId = BigInt(await nodes[0]!.rpc('eth_chainId'));
  syncing = (async () => {
    while (nodes.length > 0) {
      await catchUp();
      await sleep(200);
    }
  })();
});

test.after(async () => {
  const running = [...nodes];
  nodes.length = 0;
  await syncing;
  if (process.env.IRIS_LOGS) for (const [i, l] of logs.entries()) process.stderr.write(l.map((x) => `[${i}] ${x}`).join(''));
  await Promise.all(running.map((n) => n.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test('four validators decide blocks: one hash per height everywhere, round-robin proposers, a quorum of committed seals', async () => {
  for (let i = 0; i < 5; i++) await minedOn(nodes, await sendEverywhere(), 20_000);
  const top = head(nodes[0]!);
  await until('every node at the same head', async () => nodes.every((n) => head(n) === top), 5000);
  const blocks = await sameChain(nodes, top);
  let last: Uint8Array = new Uint8Array(20);
  for (const b of blocks) {
    // the proposer after the last one in Venachain's order, moved on by the round; on a loaded
    // machine a round may end with the block locked, and a later proposer re-proposes it: then the
    // miner is the proposer of an earlier round
    const round = decidedRound(Number(b.number));
    const proposers = Array.from({ length: round + 1 }, (_, r) => bytesToHex(proposerOf(ORDERED.map(hexToBytes), last, r, 0)));
    assert.ok(proposers.includes(b.miner), `proposer of block #${Number(b.number)} (round ${round}): ${b.miner}, not one of ${proposers.join(', ')}`);
    last = hexToBytes(b.miner);
    const extra = decodeExtra(hexToBytes(b.extraData));
    assert.ok(extra.committedSeals.length >= 3, `block #${Number(b.number)} has ${extra.committedSeals.length} committed seals`);
    const signers = extra.committedSeals.map((s) => bytesToHex(signerOf(s, commitDigest(hexToBytes(b.hash)))!));
    assert.is(new Set(signers).size, signers.length);
    assert.ok(signers.every((s) => ADDRESSES.includes(s)), signers.join());
  }
  assert.ok(ORDERED.slice(0, decidedRound(1) + 1).includes(blocks[0].miner), 'block 1: the round is the index (the genesis has no proposer)');
  for (const n of nodes) assert.is(n.core.iris!.status().state, 'accept-request');
});

test('an idle chain stays idle: no block, no round climbs past a timeout', async () => {
  const top = head(nodes[0]!);
  await sleep(TIMEOUT_MS * 1.6);
  for (const n of nodes) {
    assert.is(head(n), top);
    const s = n.core.iris!.status();
    assert.is(s.round, 0);
    assert.is(s.sequence, top + 1n);
    assert.is(bytesToHex(s.proposer!), bytesToHex(proposerOf(ORDERED.map(hexToBytes), hexToBytes((await blockAt(n, top)).miner), 0, 0)));
  }
});

test('an old PREPREPARE of the block just written, from its proposer, gets a COMMIT sent again (the proposer may have missed the quorum)', async () => {
  const top = head(nodes[0]!);
  const block = await blockAt(nodes[0]!, top);
  const pp = decodeMessage(preprepares.get(top)!);
  const sender = ADDRESSES.indexOf(bytesToHex(pp.address));
  const other = (sender + 1) % 4;
  const sent: Uint8Array[] = [];
  nodes[other]!.core.consensus.onOutgoing((m) => sent.push(m));
  assert.is(await nodes[other]!.core.consensus.receive(preprepares.get(top)!), 'accepted');
  await until('a COMMIT sent', async () => sent.length > 0, 2000);
  const m = decodeMessage(sent[0]!);
  const subject = decodeSubject(m.msg);
  assert.is(m.code, COMMIT);
  assert.is(subject.view.sequence, top);
  assert.is(bytesToHex(subject.digest), block.hash);
  assert.is(bytesToHex(signerOf(m.committedSeal, commitDigest(subject.digest))!), ADDRESSES[other]);
  // the same PREPREPARE signed by a validator that did not propose that round earns nothing
  const third = (sender + 2) % 4;
  const forged = signMessage(PREPREPARE, pp.msg, hexToBytes(ADDRESSES[third]!), hexToBytes(VALIDATOR_KEYS[third]!));
  const before = sent.length;
  assert.is(await nodes[other]!.core.consensus.receive(encodeMessage(forged)), 'accepted');
  await sleep(200);
  assert.is(sent.length, before);
});

test('a block locked in a round that decided nothing is the block decided in a later round: locks survive round changes', async () => {
  const number = head(nodes[0]!) + 1n;
  const last = hexToBytes((await blockAt(nodes[0]!, number - 1n)).miner);
  // every COMMIT is lost until all four are locked, then those of the rounds they locked in (the
  // engine sends a round's messages again): those rounds cannot decide
  dropCommits = true;
  let hash: string;
  let locks;
  try {
    hash = await sendEverywhere();
    await until('all four locked', async () => nodes.every((n) => n.core.iris!.status().lockedHash !== undefined), 15_000);
    locks = nodes.map((n) => n.core.iris!.status());
    commitsLostUpTo = Math.max(...locks.map((l) => l.lockedRound!));
    dropCommits = false;
    await minedOn(nodes, hash, 20_000);
  } finally {
    dropCommits = false;
    commitsLostUpTo = undefined;
  }
  const locked = bytesToHex(locks[0]!.lockedHash!);
  assert.ok(locks.every((l) => bytesToHex(l.lockedHash!) === locked), locks.map((l) => bytesToHex(l.lockedHash!)).join());
  const lockRound = Math.max(...locks.map((l) => l.lockedRound!));
  const block = await blockAt(nodes[0]!, number);
  assert.is(block.hash, locked);
  assert.ok(decidedRound(Number(number)) > lockRound, `decided in round ${decidedRound(Number(number))}, locked in round ${lockRound}`);
  // built by the proposer of the first round it was locked in (a block no one locked is never proposed again)
  const firstLock = Math.min(...locks.map((l) => l.lockedRound!));
  assert.is(block.miner, bytesToHex(proposerOf(ORDERED.map(hexToBytes), last, firstLock, 0)));
  await sameChain(nodes, head(nodes[0]!));
});

test('with the next proposer cut off, the others change round and go on', async () => {
  const next = bytesToHex(nodes[0]!.core.iris!.status().proposer!);
  const x = ADDRESSES.indexOf(next);
  cut.add(x);
  const before = head(nodes[(x + 1) % 4]!);
  await minedOn(connected(), await sendEverywhere(), 15_000);
  const on = connected();
  const top = head(on[0]!);
  await until('the three at one head', async () => on.every((n) => head(n) === top), 5000);
  await sameChain(on, top);
  const decided = await blockAt(on[0]!, before + 1n);
  assert.is.not(decided.miner, next);
  const changed = logs.filter((_, i) => !cut.has(i)).flat().filter((l) => l.includes(`block #${before + 1n} round 1 started`));
  assert.ok(changed.length >= 2, 'round 1 started on the connected validators');
  assert.match(logs.flat().find((l) => l.includes(`block #${before + 1n} round change 0 → 1`))!, /INFO .*timeout/);
});

test('with two cut off nothing is decided and nothing forks; with one back the chain goes on', async () => {
  const [x] = [...cut];
  const y = [0, 1, 2, 3].find((i) => i !== x)!;
  cut.add(y);
  const on = connected();
  const top = head(on[0]!);
  const hash = await sendEverywhere();
  await sleep(TIMEOUT_MS * 2.5);
  for (const n of nodes) assert.ok(head(n) <= top, 'no block without a quorum');
  assert.ok(on.every((n) => n.core.iris!.status().round > 0), 'the two left changed round');
  cut.delete(y);
  await minedOn(connected(), hash, 20_000);
  const back = connected();
  const now = head(back[0]!);
  await until('the three at one head', async () => back.every((n) => head(n) === now), 5000);
  await sameChain(back, now);
  // the one still cut off holds a prefix of the same chain
  const lagging = nodes[x!]!;
  for (let h = 1n; h <= head(lagging); h++) assert.is((await blockAt(lagging, h)).hash, (await blockAt(back[0]!, h)).hash);
});

test('the network is told which messages are invalid (malformed, signed by another key than named, a foreign committed seal) and which come from a validator ahead', async () => {
  const at = [0, 1, 2, 3].find((i) => !cut.has(i))!;
  const node = nodes[at]!;
  const sequence = node.core.iris!.status().sequence;
  const digest = keccak256(Uint8Array.of(9));
  // another validator than the node itself (its own address it ignores)
  const member = hexToBytes(VALIDATOR_KEYS[(at + 1) % 4]!);
  const memberAddress = hexToBytes(ADDRESSES[(at + 1) % 4]!);
  const body = (seq: bigint) => encodeSubject({ view: { round: 0, sequence: seq }, digest });
  const verdict = (m: Uint8Array) => node.core.consensus.receive(m);
  assert.is(await verdict(Uint8Array.of(0xc0)), 'invalid');
  assert.is(await verdict(Uint8Array.of(1, 2, 3)), 'invalid');
  assert.is(await verdict(encodeMessage(signMessage(PREPARE, body(sequence + 50n), memberAddress, PAYER))), 'invalid', 'address of a member, key of another');
  assert.is(await verdict(encodeMessage(signMessage(PREPARE, body(sequence + 50n), addressOf(PAYER), PAYER))), 'ignored', 'not a validator');
  assert.is(await verdict(encodeMessage(signMessage(COMMIT, body(sequence + 50n), memberAddress, member, committedSeal(digest, PAYER)))), 'invalid', 'a committed seal by another key');
  assert.is(await verdict(encodeMessage(signMessage(PREPARE, body(sequence - 1n), memberAddress, member))), 'ignored', 'an old view');
  assert.is(await verdict(encodeMessage(signMessage(PREPARE, encodeSubject({ view: { round: 3, sequence }, digest }), memberAddress, member))), 'accepted', 'a later round is kept');
  assert.is(await verdict(encodeMessage(signMessage(PREPARE, body(sequence + 50n), memberAddress, member))), 'ahead', 'a later block is kept, and this node is behind its sender');
});

test('a validator deleted in NodeManagement leaves the set at the next block; the other three go on alone', async () => {
  const [x] = [...cut];
  const on = connected();
  const data = sysCallData(NODE_MANAGEMENT_ABI, 'update', [`validator${x}`, { status: 2 }]);
  const tx = Transaction.from({ to: NODE_MANAGEMENT, data: bytesToHex(data), gasLimit: 300_000n, gasPrice: 0n, chainId, nonce: Number(nonce++) });
  const deletion = await sendEverywhere(await new Wallet(testKey(0)).signTransaction(tx));
  await minedOn(on, deletion, 15_000);
  const m = BigInt((await on[0]!.rpc('eth_getTransactionReceipt', [deletion])).blockNumber);
  const three = ADDRESSES.filter((_, i) => i !== x).sort();
  const extraOf = async (n: bigint) => decodeExtra(hexToBytes((await blockAt(on[0]!, n)).extraData)).validators.map(bytesToHex);
  await minedOn(on, await sendEverywhere(), 15_000);
  assert.equal(await extraOf(m), [...ADDRESSES].sort(), 'the block that deleted it was decided by four');
  assert.equal(await extraOf(m + 1n), three, 'the next block by three');
  const next = await blockAt(on[0]!, m + 1n);
  const seals = decodeExtra(hexToBytes(next.extraData)).committedSeals.map((s) => bytesToHex(signerOf(s, commitDigest(hexToBytes(next.hash)))!));
  assert.equal([...seals].sort(), three, 'all three committed it (the quorum of three)');
  for (const n of on) assert.equal(n.core.iris!.status().validators.map(bytesToHex).sort(), three);
});

test('two validators and a period of 1 s: both decide every block, and blocks are a period apart', async () => {
  const pairLogs: string[][] = [];
  const pair = await startValidators(VALIDATOR_KEYS.slice(0, 2), 1, pairLogs);
  try {
    relay(pair, () => true);
    for (let n = 0n; n < 3n; n++) {
      const raw = bytesToHex(signedTransfer(PAYER, n, chainId));
      const [hash] = await Promise.all(pair.map((p) => p.rpc<string>('eth_sendRawTransaction', [raw])));
      await minedOn(pair, hash!, 15_000);
    }
    const blocks = await sameChain(pair, head(pair[0]!));
    assert.ok(blocks.length >= 3);
    for (let i = 1; i < blocks.length; i++) assert.ok(BigInt(blocks[i].timestamp) >= BigInt(blocks[i - 1].timestamp) + 1n, `block #${i + 1} is a period after #${i}`);
    for (const b of blocks) assert.is(decodeExtra(hexToBytes(b.extraData)).committedSeals.length, 2, 'a quorum of two is both');
  } finally {
    await Promise.all(pair.map((p) => p.stop()));
  }
});

test.run();
