// Public keys from private keys (src/crypto/secp256k1.ts): a fresh process derives them through
// OpenSSL without loading the libsecp256k1 binding (whose load costs every start ~15 ms), and the
// keys equal noble's; the binding loads with the first signature and derives the same keys;
// a key that is 0, not below the group order or not 32 bytes is refused either way.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { secp256k1 as noble } from '@noble/curves/secp256k1.js';
import { publicKeyOf, signHash } from '../src/crypto/secp256k1.ts';
import { keccak256 } from '../src/crypto/keccak.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

const ORDER = noble.Point.CURVE().n;
const key = (n: bigint) => hexToBytes('0x' + n.toString(16).padStart(64, '0'));
const KEYS = [1n, 2n, ORDER - 1n, ORDER - 2n, ...Array.from({ length: 40 }, (_, i) => BigInt(bytesToHex(keccak256(Uint8Array.of(i)))) % ORDER)].map(key);
const nobleHex = (k: Uint8Array) => bytesToHex(noble.getPublicKey(k, false).subarray(1));

/** runs in a fresh process: the keys' public keys, and whether the binding was loaded before and after one signature */
const CHILD = `
import { createRequire } from 'node:module';
import { publicKeyOf, signHash } from ${JSON.stringify(fileURLToPath(new URL('../src/crypto/secp256k1.ts', import.meta.url)))};
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => /secp256k1[\\\\/]bindings/.test(f));
const keys = JSON.parse(process.argv[process.argv.length - 1]).map((h) => Uint8Array.from(Buffer.from(h, 'hex')));
const before = keys.map((k) => Buffer.from(publicKeyOf(k)).toString('hex'));
const loadedBefore = loaded();
signHash(new Uint8Array(32).fill(7), keys[0]);
const after = keys.map((k) => Buffer.from(publicKeyOf(k)).toString('hex'));
process.stdout.write(JSON.stringify({ before, after, loadedBefore, loadedAfter: loaded() }));
`;

test('a fresh process derives public keys without the binding, and the same keys once it has loaded', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD, JSON.stringify(KEYS.map((k) => bytesToHex(k).slice(2)))], { encoding: 'utf8' });
  const r = JSON.parse(out) as { before: string[]; after: string[]; loadedBefore: boolean; loadedAfter: boolean };
  assert.is(r.loadedBefore, false, 'deriving public keys loaded the libsecp256k1 binding');
  assert.is(r.loadedAfter, true, 'a signature did not load the binding');
  const want = KEYS.map((k) => nobleHex(k).slice(2));
  assert.equal(r.before, want);
  assert.equal(r.after, want);
});

test('this process: the same keys as noble', () => {
  for (const k of KEYS) assert.is(bytesToHex(publicKeyOf(k)), nobleHex(k));
});

test('a key that is 0, the order or above, or not 32 bytes is refused', () => {
  const refused = (k: Uint8Array) => assert.throws(() => publicKeyOf(k), undefined, `key ${bytesToHex(k)} was accepted`);
  for (const k of [key(0n), key(ORDER), key(ORDER + 1n), key(2n ** 256n - 1n), new Uint8Array(31).fill(1), new Uint8Array(33).fill(1)]) refused(k);
  // and before the binding has loaded in another process, the same refusals (OpenSSL's checks)
  const child = `
import { publicKeyOf } from ${JSON.stringify(fileURLToPath(new URL('../src/crypto/secp256k1.ts', import.meta.url)))};
const bad = [${['0', ORDER.toString(16), (ORDER + 1n).toString(16)].map((h) => `'${h.padStart(64, '0')}'`).join(', ')}, '01'.repeat(31), '01'.repeat(33)];
process.stdout.write(JSON.stringify(bad.map((h) => { try { publicKeyOf(Uint8Array.from(Buffer.from(h, 'hex'))); return 'accepted ' + h; } catch { return 'refused'; } })));
`;
  const out = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child], { encoding: 'utf8' })) as string[];
  assert.equal(out, ['refused', 'refused', 'refused', 'refused', 'refused']);
  // a signature made after all this still verifies against the derived key
  const { rs, recid } = signHash(new Uint8Array(32).fill(9), KEYS[5]!);
  const sig = new noble.Signature(BigInt(bytesToHex(rs.subarray(0, 32))), BigInt(bytesToHex(rs.subarray(32)))).addRecoveryBit(recid);
  assert.is(bytesToHex(sig.recoverPublicKey(new Uint8Array(32).fill(9)).toBytes(false).subarray(1)), bytesToHex(publicKeyOf(KEYS[5]!)));
});

test.run();
