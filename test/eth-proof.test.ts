// eth_getProof and eth_getStorageValues against a real node: every proof checked by the verifier
// below (written here from the Yellow Paper's trie rules with ethers' RLP and keccak, sharing no
// code with the node's @ethereumjs trie) against the block header's stateRoot and the account's
// storageHash — present and absent accounts and slots, at the head and at an older block — and
// the answers valid under execution-apis' result schemas.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Transaction, Wallet, decodeRlp, encodeRlp, getBytes, keccak256, toBeHex, type RlpStructuredData } from 'ethers';
import { mined, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { executionApisResults } from './helpers/execution-apis.ts';
import { ChainClient, type AccountProof, type StorageValues } from '../generated/client/index.ts';

const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const EMPTY_CODE_HASH = keccak256('0x');
const ZERO_HASH = '0x' + '0'.repeat(64);
const ABSENT = '0x00000000000000000000000000000000000a5e17';
const BIG_SLOT = '0x' + 'ab'.repeat(32);
/** PUSH1 0 CALLDATALOAD PUSH1 0 SSTORE STOP */
const RUNTIME = '0x60003560005500';

/**
 * The value under `key` in the trie whose root hash is `root`, proven by `proof` (RLP nodes from the
 * root down), or null when the proof shows the key absent. Throws when the proof does not prove either.
 */
function verifyProof(root: string, key: string, proof: string[]): string | null {
  const path = [...getBytes(keccak256(key))].flatMap((b) => [b >> 4, b & 15]);
  let at = 0;
  let expectedHash = root;
  for (let i = 0; i < proof.length; i++) {
    if (keccak256(proof[i]!) !== expectedHash) throw new Error(`proof node ${i} does not hash to the reference above it (${expectedHash})`);
    let node = decodeRlp(proof[i]!);
    for (;;) {
      let child: RlpStructuredData;
      if (!Array.isArray(node)) throw new Error(`proof node ${i}: not a list`);
      if (node.length === 17) {
        if (at === path.length) return done(i, node[16] as string);
        child = node[path[at++]!]!;
      } else if (node.length === 2) {
        const encoded = [...getBytes(node[0] as string)].flatMap((b) => [b >> 4, b & 15]);
        const flag = encoded[0]!;
        const nibbles = encoded.slice(flag & 1 ? 1 : 2);
        const matches = nibbles.every((n, j) => path[at + j] === n);
        if (flag >= 2) return done(i, matches && at + nibbles.length === path.length ? (node[1] as string) : '0x');
        if (!matches) return done(i, '0x');
        at += nibbles.length;
        child = node[1]!;
      } else {
        throw new Error(`proof node ${i}: ${node.length} items`);
      }
      if (child === '0x') return done(i, '0x');
      // a child shorter than 32 bytes is embedded in its parent; a longer one is the next proof node
      if (Array.isArray(child)) node = child;
      else {
        expectedHash = child;
        break;
      }
    }
  }
  // an empty trie proves every key absent with no nodes
  if (proof.length === 0 && root === EMPTY_TRIE_ROOT) return null;
  throw new Error('proof ends before the key is proven present or absent');

  function done(i: number, value: string): string | null {
    if (i !== proof.length - 1) throw new Error(`the proof has ${proof.length - 1 - i} nodes beyond the key's path`);
    return value === '0x' ? null : value;
  }
}

/** Checks an account proof and its storage proofs against the state root of `block`; returns the proof. */
async function verifiedProof(address: string, keys: string[], block: string) {
  const header = await node.rpc('eth_getBlockByNumber', [block, false]);
  const p = await node.rpc('eth_getProof', [address, keys, block]);
  const account = verifyProof(header.stateRoot, address, p.accountProof);
  if (account === null) {
    assert.equal([p.balance, p.nonce, p.codeHash, p.storageHash], ['0x0', '0x0', ZERO_HASH, ZERO_HASH], 'absent account: geth\'s zero fields');
  } else {
    const unquantity = (q: string) => (q === '0x0' ? '0x' : toBeHex(BigInt(q)));
    assert.is(account, encodeRlp([unquantity(p.nonce), unquantity(p.balance), p.storageHash, p.codeHash]), 'the proven account is the answered one');
  }
  for (const [i, s] of p.storageProof.entries()) {
    if (account === null) {
      assert.equal(s.proof, [], 'no storage trie: empty proof');
    } else {
      const stored = verifyProof(p.storageHash, toBeHex(BigInt(keys[i] === '0x' ? 0 : keys[i]!), 32), s.proof);
      assert.is(stored === null ? 0n : BigInt(decodeRlp(stored) as string), BigInt(s.value), `slot ${keys[i]} proven`);
    }
  }
  return p;
}

let node: TestNode;
let contract: string;
/** the block that deployed the contract, and the block after it changed slot 0 */
let deployBlock: { number: string; hash: string };
let head: string;

test.before(async () => {
  node = await startTestNode();
  const wallet = new Wallet(testKey(0));
  const send = async (nonce: number, to: string | null, data: string) =>
    mined(node, await node.rpc('eth_sendRawTransaction', [await wallet.signTransaction(Transaction.from({ type: 0, chainId: 300, gasPrice: 0n, gasLimit: 200_000n, nonce, to, data }))]));
  // constructor: slot 0 = 0x2a, slot 5 = 7, slot BIG_SLOT = 1, then returns the 7 bytes of runtime code
  // at offset 0x3a (CODECOPY, RETURN); runtime: slot 0 = the first calldata word
  const sstores = `602a600055${'6007600555'}6001${'7f' + BIG_SLOT.slice(2)}55`;
  const deployCode = `0x${sstores}6007603a60003960076000f3${RUNTIME.slice(2)}`;
  const r = await send(0, null, deployCode);
  assert.is(r.status, '0x1');
  contract = r.contractAddress;
  deployBlock = { number: r.blockNumber, hash: r.blockHash };
  head = (await send(1, contract, toBeHex(0x99, 32))).blockNumber;
});
test.after(() => node.stop());

test('a contract: its account proven against the stateRoot, set and unset slots against its storageHash', async () => {
  const p = await verifiedProof(contract, ['0x0', '0x5', '0x1', BIG_SLOT, '0x'], 'latest');
  assert.is(p.address, contract.toLowerCase());
  assert.is(p.codeHash, keccak256(RUNTIME));
  assert.is(p.nonce, '0x1');
  assert.is.not(p.storageHash, EMPTY_TRIE_ROOT);
  assert.equal(p.storageProof.map((s: { key: string; value: string }) => [s.key, s.value]), [
    ['0x0', '0x99'],
    ['0x5', '0x7'],
    ['0x1', '0x0'],
    [BIG_SLOT, '0x1'],
    ['0x0', '0x99'],
  ], "geth's keys: a 32-byte key as written, a shorter one as a quantity");
  assert.ok(p.storageProof[2].proof.length > 0, 'an unset slot has an exclusion proof');
  // the verifier refuses what does not prove: a changed node, another root
  const { stateRoot } = await node.rpc('eth_getBlockByNumber', ['latest', false]);
  const leaf = p.accountProof.at(-1) as string;
  const changed = [...p.accountProof.slice(0, -1), leaf.slice(0, -1) + (leaf.endsWith('0') ? '1' : '0')];
  assert.throws(() => verifyProof(stateRoot, contract, changed), /does not hash to the reference/);
  assert.throws(() => verifyProof(p.storageHash, contract, p.accountProof), /does not hash to the reference/);
  assert.equal(await node.rpc('chain_getProof', [contract, ['0x0', '0x5', '0x1', BIG_SLOT, '0x'], 'latest']), p, 'chain_ is the same method');
});

test('a funded account without code; an absent account proven absent', async () => {
  const funded = await verifiedProof(testAddress(2), ['0x0'], 'latest');
  assert.is(funded.balance, await node.rpc('eth_getBalance', [testAddress(2), 'latest']));
  assert.is(funded.codeHash, EMPTY_CODE_HASH);
  assert.is(funded.storageHash, EMPTY_TRIE_ROOT);
  assert.equal(funded.storageProof, [{ key: '0x0', value: '0x0', proof: [] }], 'an empty storage trie proves every slot absent with no nodes');

  const absent = await verifiedProof(ABSENT, ['0x1'], 'latest');
  assert.ok(absent.accountProof.length > 0);
  assert.equal(absent.storageProof, [{ key: '0x1', value: '0x0', proof: [] }]);
  const noKeys = await node.rpc('eth_getProof', [ABSENT, []]);
  assert.equal(noKeys, { ...absent, storageProof: [] }, 'block defaults to latest; no keys, no storage proofs');
});

test('an older block: its state proven against its own stateRoot, by number and by hash', async () => {
  const then = await verifiedProof(contract, ['0x0'], deployBlock.number);
  assert.is(then.storageProof[0].value, '0x2a');
  const byHash = await node.rpc('eth_getProof', [contract, ['0x0'], deployBlock.hash]);
  assert.equal(byHash, then);
  assert.equal(await node.rpc('eth_getProof', [contract, ['0x0'], { blockHash: deployBlock.hash, requireCanonical: false }]), then, "geth's EIP-1898 object by hash");
  assert.equal(await node.rpc('eth_getProof', [contract, ['0x0'], { blockNumber: deployBlock.number }]), then, 'and by number');
  const before = await verifiedProof(contract, ['0x0'], '0x0');
  assert.equal([before.nonce, before.codeHash, before.storageProof[0].value], ['0x0', ZERO_HASH, '0x0'], 'at genesis the contract did not exist');
  assert.is((await verifiedProof(contract, ['0x0'], head)).storageProof[0].value, '0x99');
  assert.equal(await node.rpc('eth_getProof', [contract, ['0x0'], 'pending']), await node.rpc('eth_getProof', [contract, ['0x0'], 'latest']), 'pending reads the latest state');
});

test('eth_getStorageValues: many slots of many accounts at a block, 32-byte values in order', async () => {
  const word = (n: number) => toBeHex(n, 32);
  const values = await node.rpc('eth_getStorageValues', [{ [contract]: ['0x0', '0x5', '0x1'], [ABSENT.toUpperCase().replace('0X', '0x')]: ['0x'] }, 'latest']);
  assert.equal(values, { [contract.toLowerCase()]: [word(0x99), word(7), word(0)], [ABSENT]: [word(0)] });
  assert.equal(await node.rpc('eth_getStorageValues', [{ [contract]: ['0x0'] }, deployBlock.hash]), { [contract.toLowerCase()]: [word(0x2a)] });
  assert.equal(await node.rpc('eth_getStorageValues', [{ [contract]: ['0x0'] }]), { [contract.toLowerCase()]: [word(0x99)] }, 'block defaults to latest');
  assert.equal(await node.rpc('chain_getStorageValues', [{ [contract]: [BIG_SLOT] }, deployBlock.number]), { [contract.toLowerCase()]: [word(1)] });
  // geth's limit is on all slots together: 1024 pass
  const many = await node.rpc('eth_getStorageValues', [{ [contract]: Array.from({ length: 1000 }, (_, i) => toBeHex(i)), [ABSENT]: Array.from({ length: 24 }, () => '0x0') }]);
  assert.is(many[contract.toLowerCase()].length + many[ABSENT].length, 1024);
});

test('the SDK: typed client.eth.getProof and client.chain.getStorageValues', async () => {
  const client = ChainClient.http(node.url);
  try {
    const proof: AccountProof = await client.eth.getProof(contract, ['0x5'], deployBlock.hash);
    assert.equal(proof, await node.rpc('eth_getProof', [contract, ['0x5'], deployBlock.hash]));
    const values: StorageValues = await client.chain.getStorageValues({ [contract]: ['0x5'] });
    assert.equal(values, { [contract.toLowerCase()]: [toBeHex(7, 32)] });
  } finally {
    await client.close();
  }
});

test('bad input: -32602 naming the parameter; an unknown block: -32000', async () => {
  const cases: [string, unknown[], string][] = [
    ['eth_getProof', [contract, Array.from({ length: 1025 }, () => '0x0')], 'storageKeys'],
    ['eth_getProof', [contract, ['0x' + '1'.repeat(65)]], 'storageKeys'],
    ['eth_getProof', [contract, ['0x1g']], 'storageKeys'],
    ['eth_getProof', [contract, '0x0'], 'storageKeys'],
    ['eth_getProof', [contract], 'storageKeys'],
    ['eth_getProof', ['0x1234', []], 'address'],
    ['eth_getProof', [contract, [], 'newest'], 'block'],
    ['eth_getStorageValues', [{}], 'requests'],
    ['eth_getStorageValues', [{ [contract]: [] }], 'requests'],
    ['eth_getStorageValues', [{ [contract]: Array.from({ length: 1025 }, () => '0x0') }], 'requests'],
    ['eth_getStorageValues', [{ '0x1234': ['0x0'] }], 'requests'],
    ['eth_getStorageValues', [{ [contract]: ['0x' + '1'.repeat(65)] }], 'requests'],
    ['eth_getStorageValues', [[contract]], 'requests'],
    ['eth_getStorageValues', [{ [contract]: ['0x0'] }, 'newest'], 'block'],
    ['eth_getProof', [contract, [], { blockHash: deployBlock.hash, extra: 1 }], 'block'],
  ];
  for (const [method, params, named] of cases) {
    const { error } = await node.raw(method, params);
    assert.is(error?.code, -32602, `${method} ${JSON.stringify(params).slice(0, 80)}: ${JSON.stringify(error)}`);
    assert.match(error!.message, named, `${method} ${JSON.stringify(params).slice(0, 80)}: ${error!.message}`);
  }
  // the reason, not a schema dump
  const badKey = (await node.raw('eth_getStorageValues', [{ '0x1234': ['0x0'] }])).error!;
  assert.is(badKey.message, 'invalid argument 0 (requests): has the key "0x1234", which must be a 20-byte account address as 0x-prefixed hex');
  const longSlot = (await node.raw('eth_getProof', [contract, ['0x0', '0x' + '1'.repeat(65)]])).error!;
  assert.is(longSlot.message, 'invalid argument 1 (storageKeys) at [1]: must be a storage slot as 0x-prefixed hex of 0 to 32 bytes');
  const unknownHash = '0x' + '12'.repeat(32);
  for (const [method, params, message] of [
    ['eth_getProof', [contract, [], unknownHash], 'header for hash not found'],
    ['eth_getProof', [contract, [], '0xffff'], 'header not found'],
    ['eth_getStorageValues', [{ [contract]: ['0x0'] }, unknownHash], 'header for hash not found'],
    ['eth_getStorageValues', [{ [contract]: ['0x0'] }, { blockHash: unknownHash }], 'header for hash not found'],
  ] as const) {
    const { error } = await node.raw(method, [...params]);
    assert.is(error?.code, -32000, JSON.stringify(error));
    assert.match(error!.message, message);
  }
  assert.is(await node.rpc('eth_blockNumber'), head, 'the node still serves');
});

test('answers validate against execution-apis result schemas', async () => {
  const resultValidator = executionApisResults();
  if (!resultValidator) return;
  const answers: [string, unknown[]][] = [
    ['eth_getProof', [contract, ['0x0', '0x1', BIG_SLOT], 'latest']],
    ['eth_getProof', [ABSENT, ['0x0'], deployBlock.hash]],
    ['eth_getProof', [testAddress(0), [], '0x0']],
    ['eth_getStorageValues', [{ [contract]: ['0x0', '0x5'], [ABSENT]: ['0x0'] }, 'latest']],
  ];
  for (const [method, params] of answers) {
    const validate = resultValidator(method);
    const result = await node.rpc(method, params);
    assert.ok(validate(result), `${method} ${JSON.stringify(params).slice(0, 80)}: ${JSON.stringify(validate.errors)}`);
  }
});

test.run();
