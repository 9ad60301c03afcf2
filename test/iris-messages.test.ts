// iris consensus messages (src/consensus/iris/messages.ts) round trip through their Venachain
// layout, their signatures recover to their sender, and malformed or wrongly signed ones are
// refused; the proposer of a round follows Venachain's rules over its checksum-sorted list
// (src/consensus/iris/proposer.ts), worked out by hand below; the vote guard refuses a second block
// at one height and round.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RLP } from '@ethereumjs/rlp';
import {
  COMMIT, decodeMessage, decodePreprepare, decodeSubject, encodeMessage, encodePreprepare, encodeSubject, MalformedMessage,
  PREPARE, PREPREPARE, ROUND_CHANGE, signedByAddress, signMessage, ZERO_DIGEST, type IrisMessage,
} from '../src/consensus/iris/messages.ts';
import { proposerOf, proposerOrder, ROUND_ROBIN, STICKY } from '../src/consensus/iris/proposer.ts';
import { VoteGuard } from '../src/consensus/iris/vote-guard.ts';
import { commitDigest, committedSeal, signerOf } from '../src/consensus/seals.ts';
import { keccak256 } from '../src/crypto/keccak.ts';
import { addressOf } from '../src/crypto/secp256k1.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import { testKey } from './helpers/node.ts';

const key = (i: number) => hexToBytes(testKey(i));
const addr = (i: number) => addressOf(key(i));
const hash = keccak256(Uint8Array.of(1));
const other = keccak256(Uint8Array.of(2));

function signed(code: typeof PREPARE | typeof COMMIT | typeof ROUND_CHANGE, i: number, round: number, digest: Uint8Array): IrisMessage {
  const msg = encodeSubject({ view: { round, sequence: 7n }, digest });
  return signMessage(code, msg, addr(i), key(i), code === COMMIT ? committedSeal(digest, key(i)) : undefined);
}

test('a PREPARE round-trips, its signature recovers to its address, and it is RLP [code, msg, address, signature, committedSeal]', () => {
  const m = signed(PREPARE, 0, 3, hash);
  const bytes = encodeMessage(m);
  const items = RLP.decode(bytes) as Uint8Array[];
  assert.is(items.length, 5);
  assert.equal(items[0], Uint8Array.of(1));
  assert.equal(items[2], addr(0));
  assert.is(items[3]!.length, 65);
  assert.equal(items[4], new Uint8Array(0));
  const back = decodeMessage(bytes);
  assert.equal(back, m);
  assert.ok(signedByAddress(back));
  // the body: [[round, sequence], digest]
  assert.equal(RLP.decode(back.msg), [[Uint8Array.of(3), Uint8Array.of(7)], hash]);
  assert.equal(decodeSubject(back.msg), { view: { round: 3, sequence: 7n }, digest: hash });
});

test('a COMMIT carries its sender\'s committed seal over keccak256(hash ‖ 0x02)', () => {
  const m = decodeMessage(encodeMessage(signed(COMMIT, 1, 0, hash)));
  assert.ok(signedByAddress(m));
  assert.equal(m.committedSeal.length, 65);
  assert.equal(commitDigest(hash), keccak256(Uint8Array.from([...hash, 2])));
  assert.equal(bytesToHex(signerOf(m.committedSeal, commitDigest(hash))!), bytesToHex(addr(1)));
  assert.is.not(bytesToHex(signerOf(m.committedSeal, commitDigest(other))!), bytesToHex(addr(1)));
});

test('round 0 of a ROUND_CHANGE is an empty integer, and the zero hash is its digest', () => {
  const m = signed(ROUND_CHANGE, 2, 0, ZERO_DIGEST);
  assert.equal(RLP.decode(m.msg), [[new Uint8Array(0), Uint8Array.of(7)], ZERO_DIGEST]);
  assert.ok(signedByAddress(decodeMessage(encodeMessage(m))));
});

test('a PREPREPARE carries the block as its RLP list and the proof of lock as a Venachain message set', () => {
  const block = RLP.encode([[Uint8Array.of(1), Uint8Array.of(2)], [Uint8Array.of(0xaa)]]);
  const proof = [signed(PREPARE, 0, 1, hash), signed(PREPARE, 1, 1, hash), signed(COMMIT, 2, 1, hash)];
  const pp = { view: { round: 2, sequence: 7n }, block, lockedHash: hash, lockedRound: 1, lockedPrepares: proof };
  const msg = encodePreprepare(pp);
  const items = RLP.decode(msg) as unknown[];
  assert.equal(items[1], RLP.decode(block), 'the block is nested as a list, not wrapped in a byte string');
  assert.equal((items[4] as unknown[])[0], [new Uint8Array(0), new Uint8Array(0)], 'the message set view is [0, 0]');
  const back = decodePreprepare(msg);
  assert.equal(back, pp);
  assert.ok(back.lockedPrepares.every(signedByAddress));
  const m = decodeMessage(encodeMessage(signMessage(PREPREPARE, msg, addr(3), key(3))));
  assert.ok(signedByAddress(m));
  const unlocked = decodePreprepare(encodePreprepare({ ...pp, lockedHash: ZERO_DIGEST, lockedRound: 0, lockedPrepares: [] }));
  assert.equal(unlocked.lockedPrepares, []);
});

test('malformed messages are refused with MalformedMessage, never another error', () => {
  const good = signed(PREPARE, 0, 0, hash);
  const fields = (over: Partial<Record<number, unknown>>) => {
    const f: unknown[] = [Uint8Array.of(1), good.msg, good.address, good.signature, new Uint8Array(0)];
    for (const [i, v] of Object.entries(over)) f[Number(i)] = v;
    return RLP.encode(f as Uint8Array[]);
  };
  const cases: [string, Uint8Array][] = [
    ['not RLP', Uint8Array.of(0xf8)],
    ['a byte string', RLP.encode(Uint8Array.of(1, 2, 3))],
    ['four items', RLP.encode([Uint8Array.of(1), good.msg, good.address, good.signature])],
    ['code 4', fields({ 0: Uint8Array.of(4) })],
    ['code with a leading zero', fields({ 0: Uint8Array.of(0, 1) })],
    ['a list as msg', fields({ 1: [] })],
    ['a 19-byte address', fields({ 2: good.address.subarray(1) })],
    ['a 64-byte signature', fields({ 3: good.signature.subarray(1) })],
    ['a committed seal on a PREPARE', fields({ 4: new Uint8Array(65) })],
    ['a COMMIT without a committed seal', fields({ 0: Uint8Array.of(2) })],
  ];
  for (const [what, bytes] of cases) assert.throws(() => decodeMessage(bytes), (e: unknown) => e instanceof MalformedMessage, what);
  const bodies: [string, Uint8Array][] = [
    ['a subject without a digest', RLP.encode([[Uint8Array.of(1), Uint8Array.of(1)]])],
    ['a 31-byte digest', RLP.encode([[Uint8Array.of(1), Uint8Array.of(1)], hash.subarray(1)])],
    ['a three-item view', RLP.encode([[Uint8Array.of(1), Uint8Array.of(1), Uint8Array.of(1)], hash])],
    ['a round beyond the limit', RLP.encode([[hexToBytes('0x0100000000'), Uint8Array.of(1)], hash])],
    ['a 9-byte sequence', RLP.encode([[Uint8Array.of(1), hexToBytes('0x010000000000000000')], hash])],
  ];
  for (const [what, bytes] of bodies) assert.throws(() => decodeSubject(bytes), (e: unknown) => e instanceof MalformedMessage, what);
  const view = [Uint8Array.of(1), Uint8Array.of(1)];
  const pps: [string, Uint8Array][] = [
    ['a block as a byte string', RLP.encode([view, Uint8Array.of(1), hash, Uint8Array.of(0), [[], []]])],
    ['a proof of lock without its view', RLP.encode([view, [], hash, Uint8Array.of(0), [[]]])],
    ['a malformed locked prepare', RLP.encode([view, [], hash, Uint8Array.of(0), [[], [[Uint8Array.of(1)]]]])],
  ];
  for (const [what, bytes] of pps) assert.throws(() => decodePreprepare(bytes), (e: unknown) => e instanceof MalformedMessage, what);
});

test('a message signed by another key than its address, or altered after signing, does not pass', () => {
  const m = signed(PREPARE, 0, 0, hash);
  assert.not.ok(signedByAddress({ ...m, address: addr(1) }), 'address of another validator');
  assert.not.ok(signedByAddress({ ...m, msg: encodeSubject({ view: { round: 0, sequence: 7n }, digest: other }) }), 'digest changed');
  assert.not.ok(signedByAddress({ ...m, code: COMMIT }), 'code changed');
  const bad = new Uint8Array(m.signature);
  bad[64] = 5;
  assert.not.ok(signedByAddress({ ...m, signature: bad }), 'recovery id 5');
  assert.not.ok(signedByAddress({ ...m, signature: new Uint8Array(65) }), 'zero signature');
});

// Test keys 4–7: their checksummed addresses sort E57b… (5) < F1F6… (7) < d41c… (6) < e1AB… (4);
// their bytes sort d4 (6) < e1 (4) < e5 (5) < f1 (7). Venachain indexes the first order.
const SET = [addr(6), addr(4), addr(5), addr(7)];
const hexOf = (a: Uint8Array) => bytesToHex(a);
const ZERO = new Uint8Array(20);

test('the proposer order is the checksummed-hex order, not the byte order', () => {
  assert.equal(proposerOrder(SET).map(hexOf), [addr(5), addr(7), addr(6), addr(4)].map(hexOf));
});

test('round robin (policy 0): the next after the last proposer, plus the round; the round alone at genesis', () => {
  const ordered = proposerOrder(SET);
  const pick = (last: Uint8Array, round: number) => hexOf(proposerOf(ordered, last, round, ROUND_ROBIN));
  // genesis: index = round mod 4 → 5, 7, 6, 4, 5, 7
  assert.equal([0, 1, 2, 3, 4, 5].map((r) => pick(ZERO, r)), [5, 7, 6, 4, 5, 7].map((i) => hexOf(addr(i))));
  // last = key 7 (index 1): (1 + r + 1) mod 4 → 6, 4, 5
  assert.equal([0, 1, 2].map((r) => pick(addr(7), r)), [6, 4, 5].map((i) => hexOf(addr(i))));
  // last = key 4 (index 3): (3 + 0 + 1) mod 4 = 0 → key 5
  assert.is(pick(addr(4), 0), hexOf(addr(5)));
  // last not in the set counts as index 0: (0 + 0 + 1) → key 7
  assert.is(pick(addr(0), 0), hexOf(addr(7)));
});

test('sticky (policy 1): the last proposer again, moved on by the round', () => {
  const ordered = proposerOrder(SET);
  const pick = (last: Uint8Array, round: number) => hexOf(proposerOf(ordered, last, round, STICKY));
  assert.equal([0, 1, 2].map((r) => pick(addr(7), r)), [7, 6, 4].map((i) => hexOf(addr(i))));
  assert.equal([0, 1].map((r) => pick(ZERO, r)), [5, 7].map((i) => hexOf(addr(i))));
  assert.is(pick(addr(0), 2), hexOf(addr(6)));
});

test('the vote guard admits one block per height and round', () => {
  const g = new VoteGuard();
  assert.ok(g.claim(5n, 0, hash));
  assert.ok(g.claim(5n, 0, hash), 'the same block again (a COMMIT after the PREPARE)');
  assert.not.ok(g.claim(5n, 0, other), 'another block at the same height and round');
  assert.ok(g.claim(5n, 1, other), 'another round');
  assert.ok(g.claim(6n, 0, other), 'another height');
  g.forgetBelow(6n);
  assert.is(g.votedAt(5n, 0), undefined);
  assert.is(g.votedAt(6n, 0), bytesToHex(other));
});

test.run();
