// eth_signTypedData_v4 / chain_signTypedData_v4 and personal_signTypedData against a real node:
// signatures equal to ethers' (Wallet.signTypedData, an independent EIP-712 implementation) on the
// EIP-712 spec's Mail example and on typed data with arrays, fixed arrays, nested structs and
// every atomic type, and a recursive struct checked against EIP-712's definitions; recovered by ethers' verifyTypedData; sent as an object and as JSON text; a
// password refused over an exposed listener (geth's insecure-unlock rule); and bad typed data
// refused with -32602 naming the argument and the reason.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AbiCoder, TypedDataEncoder, Wallet, concat, keccak256, recoverAddress, toUtf8Bytes, verifyTypedData, type TypedDataField } from 'ethers';
import { startTestNode, testKey, type TestNode } from './helpers/node.ts';
import { importKey } from './helpers/accounts.ts';
import { ALL_NAMESPACES } from '../src/node/config.ts';

const PW = 'typed data password';
const wallet = new Wallet(testKey(0));
let node: TestNode;
let A: string;

/** EIP-712's own example (https://eips.ethereum.org/EIPS/eip-712, Example.js), for chain 300. */
const MAIL = {
  types: {
    EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'version', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ],
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallet', type: 'address' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'to', type: 'Person' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  domain: { name: 'Ether Mail', version: '1', chainId: 300, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
  message: {
    from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
    contents: 'Hello, Bob!',
  },
};

/**
 * Arrays of structs and of atoms, a fixed-size array, a nested array, structs two levels deep,
 * referenced types whose names sort differently from their use order, and every atomic type; no
 * EIP712Domain in types (the domain's fields are inferred, salt included). (No recursive struct:
 * ethers refuses them.)
 */
const GROUP = {
  types: {
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallet', type: 'address' },
      { name: 'friends', type: 'Friend[]' },
    ],
    Friend: [
      { name: 'name', type: 'string' },
      { name: 'since', type: 'uint64' },
    ],
    Badge: [
      { name: 'level', type: 'uint8' },
      { name: 'proof', type: 'bytes' },
    ],
    Group: [
      { name: 'title', type: 'string' },
      { name: 'members', type: 'Person[]' },
      { name: 'owners', type: 'address[2]' },
      { name: 'scores', type: 'uint16[]' },
      { name: 'grid', type: 'int8[2][]' },
      { name: 'open', type: 'bool' },
      { name: 'tag', type: 'bytes4' },
      { name: 'root', type: 'bytes32' },
      { name: 'balance', type: 'int256' },
      { name: 'supply', type: 'uint256' },
      { name: 'badges', type: 'Badge[]' },
      { name: 'notes', type: 'string[]' },
    ],
  },
  primaryType: 'Group',
  domain: { name: 'Groups', version: '2', chainId: 300, verifyingContract: '0x00000000000000000000000000000000000a11ce', salt: '0x' + '5a'.repeat(32) },
  message: {
    title: 'core',
    members: [
      { name: 'Alice', wallet: '0x00000000000000000000000000000000000a11ce', friends: [{ name: 'Carol', since: '1700000000' }] },
      { name: 'Bob', wallet: '0x0000000000000000000000000000000000000b0b', friends: [] },
    ],
    owners: ['0x00000000000000000000000000000000000a11ce', '0x0000000000000000000000000000000000000b0b'],
    scores: [1, 65535, '0x10'],
    grid: [
      [-128, 127],
      [0, -1],
    ],
    open: true,
    tag: '0xdeadbeef',
    root: '0x' + '11'.repeat(32),
    balance: '-123456789012345678901234567890',
    supply: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
    badges: [{ level: 7, proof: '0x0102' }, { level: 0, proof: '0x' }],
    notes: ['', 'ünïcödé'],
  },
};

/** ethers' signature of typed data given as the RPC request carries it (ethers wants the domain's type left out). */
function ethersSignature(data: { types: Record<string, TypedDataField[]>; domain: object; message: object }): Promise<string> {
  const { EIP712Domain: _, ...types } = data.types;
  return wallet.signTypedData(data.domain, types, data.message);
}

async function fails(method: string, params: unknown[], code: number, message: RegExp): Promise<void> {
  const r = await node.raw(method, params);
  assert.ok(r.error, `${method} should fail, got ${JSON.stringify(r.result)}`);
  assert.is(r.error!.code, code, r.error!.message);
  assert.match(r.error!.message, message);
}

test.before(async () => {
  node = await startTestNode();
  A = await importKey(node, testKey(0), PW);
});
test.after(() => node.stop());

test('a locked account signs nothing; unknown accounts are named', async () => {
  await fails('eth_signTypedData_v4', [A, MAIL], -32000, /authentication needed: account 0x[0-9a-f]{40} is locked/);
  await fails('personal_signTypedData', [MAIL, A], -32000, /is locked/);
  await fails('eth_signTypedData_v4', ['0x00000000000000000000000000000000000000aa', MAIL], -32000, /unknown account/);
});

test('the Mail example: eth_, chain_ and personal_ sign what ethers signs, as an object and as JSON text', async () => {
  const expected = await ethersSignature(MAIL);
  assert.is(await node.rpc('personal_signTypedData', [MAIL, A, PW]), expected, 'personal_ with the password');
  await fails('personal_signTypedData', [MAIL, A, 'wrong'], -32000, /could not decrypt key for 0x[0-9a-f]{40} with given password/);
  assert.ok(await node.rpc('personal_unlockAccount', [A, PW, 60]));
  assert.is(await node.rpc('eth_signTypedData_v4', [A, MAIL]), expected);
  assert.is(await node.rpc('chain_signTypedData_v4', [A, JSON.stringify(MAIL)]), expected, 'JSON text');
  assert.is(await node.rpc('personal_signTypedData', [JSON.stringify(MAIL), A]), expected, 'personal_ without a password: the unlocked key');
  const { EIP712Domain: _, ...types } = MAIL.types;
  assert.is(verifyTypedData(MAIL.domain, types, MAIL.message, expected).toLowerCase(), A);
});

test('arrays, fixed arrays, nested and recursive structs, every atomic type, an inferred domain', async () => {
  const expected = await ethersSignature(GROUP);
  assert.is(await node.rpc('eth_signTypedData_v4', [A, GROUP]), expected);
  assert.is(verifyTypedData(GROUP.domain, GROUP.types, GROUP.message, expected).toLowerCase(), A);
  // the same data with EIP712Domain declared: the same digest
  const declared = { ...GROUP, types: { ...GROUP.types, EIP712Domain: MAIL.types.EIP712Domain.concat({ name: 'salt', type: 'bytes32' }) } };
  assert.is(await node.rpc('eth_signTypedData_v4', [A, declared]), expected);
});

test('a recursive struct (which ethers refuses) signs the digest EIP-712 defines for it', async () => {
  type Tree = { value: number; children: Tree[] };
  const root: Tree = { value: 1, children: [{ value: 2, children: [] }, { value: 3, children: [{ value: 4, children: [] }] }] };
  const data = { types: { Node: [{ name: 'value', type: 'uint256' }, { name: 'children', type: 'Node[]' }] }, primaryType: 'Node', domain: { name: 'Trees', chainId: 300 }, message: root };
  // written out from EIP-712's definitions: hashStruct(s) = keccak256(typeHash ‖ encodeData(s)), an array is the keccak256 of its members' encodings
  const typeHash = keccak256(toUtf8Bytes('Node(uint256 value,Node[] children)'));
  const hashNode = (n: Tree): string => keccak256(AbiCoder.defaultAbiCoder().encode(['bytes32', 'uint256', 'bytes32'], [typeHash, n.value, keccak256(concat(n.children.map(hashNode)))]));
  const digest = keccak256(concat(['0x1901', TypedDataEncoder.hashDomain(data.domain), hashNode(root)]));
  const signature = await node.rpc('eth_signTypedData_v4', [A, data]);
  assert.is(recoverAddress(digest, signature).toLowerCase(), A);
});

test('signing with a password over a non-loopback HTTP listener is refused unless --allow-insecure-unlock', async () => {
  const exposed = await startTestNode({ config: { http: { addr: '0.0.0.0', port: 0, api: [...ALL_NAMESPACES], corsDomains: [], maxBodyBytes: 1 << 20, maxBatch: 100 } } });
  try {
    const address = await importKey(exposed, testKey(1), PW);
    const r = await exposed.raw('personal_signTypedData', [MAIL, address, PW]);
    assert.is(r.error?.code, -32000);
    assert.match(r.error!.message, /signing with a password over HTTP access is forbidden.*--allow-insecure-unlock/);
  } finally {
    await exposed.stop();
  }
});

test('bad typed data: -32602 naming the argument, where and why', async () => {
  const { primaryType: _, ...noPrimary } = MAIL;
  await fails('eth_signTypedData_v4', [A, noPrimary], -32602, /invalid argument 1 \(typedData\).*primaryType/);
  await fails('eth_signTypedData_v4', [A, JSON.stringify(noPrimary)], -32602, /invalid argument 1 \(typedData\): primaryType: is missing/);
  await fails('personal_signTypedData', [JSON.stringify(noPrimary), A], -32602, /invalid argument 0 \(typedData\): primaryType: is missing/);
  await fails('eth_signTypedData_v4', [A, { ...MAIL, primaryType: 'Letter' }], -32602, /primaryType: "Letter" is not defined in types/);
  const unknownType = { ...MAIL, types: { ...MAIL.types, Mail: [...MAIL.types.Mail, { name: 'stamp', type: 'Stamp' }] } };
  await fails('eth_signTypedData_v4', [A, unknownType], -32602, /types\.Mail\[3\]: has the unknown type "Stamp"/);
  await fails('eth_signTypedData_v4', [A, { ...MAIL, types: { ...MAIL.types, Person: [{ name: 'n', type: 'uint7' }] } }], -32602, /unknown type "uint7"/);
  const message = (m: object) => ({ ...MAIL, message: { ...MAIL.message, ...m } });
  await fails('eth_signTypedData_v4', [A, message({ to: { name: 'Bob', wallet: '0x1234' } })], -32602, /message\.to\.wallet: must be a 20-byte hex address, got "0x1234"/);
  await fails('eth_signTypedData_v4', [A, message({ to: { name: 'Bob' } })], -32602, /message\.to\.wallet: is missing \(address\)/);
  await fails('eth_signTypedData_v4', [A, message({ cc: 'Eve' })], -32602, /message\.cc: is not a field of Mail/);
  await fails('eth_signTypedData_v4', [A, message({ contents: 7 })], -32602, /message\.contents: must be a string, got 7/);
  const group = (m: object) => ({ ...GROUP, message: { ...GROUP.message, ...m } });
  await fails('eth_signTypedData_v4', [A, group({ scores: [65536] })], -32602, /message\.scores\[0\]: 65536 is out of range for uint16/);
  await fails('eth_signTypedData_v4', [A, group({ grid: [[-129, 0]] })], -32602, /message\.grid\[0\]\[0\]: -129 is out of range for int8/);
  await fails('eth_signTypedData_v4', [A, group({ owners: [GROUP.message.owners[0]] })], -32602, /message\.owners: must have 2 entries \(address\[2\]\), has 1/);
  await fails('eth_signTypedData_v4', [A, group({ tag: '0xdead' })], -32602, /message\.tag: must be exactly 4 bytes \(bytes4\), got 2/);
  await fails('eth_signTypedData_v4', [A, group({ open: 1 })], -32602, /message\.open: must be true or false/);
  await fails('eth_signTypedData_v4', [A, group({ supply: 1.5 })], -32602, /message\.supply: must be an integer/);
  await fails('eth_signTypedData_v4', [A, { ...MAIL, types: { Mail: MAIL.types.Mail, Person: MAIL.types.Person }, domain: { ...MAIL.domain, chain: 1 } }], -32602, /domain\.chain: is not an EIP-712 domain field/);
  await fails('eth_signTypedData_v4', [A, '{"types":'], -32602, /invalid argument 1 \(typedData\): a string must be the typed data's JSON text/);
  await fails('eth_signTypedData_v4', [A, 42], -32602, /invalid argument 1 \(typedData\)/);
  await fails('personal_signTypedData', [MAIL, 'not an address'], -32602, /invalid argument 1 \(address\)/);
});

test.run();
