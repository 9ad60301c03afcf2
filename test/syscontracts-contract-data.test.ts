// ContractDataProcessor (0x1000…0007) through JSON-RPC: migrate copies every slot of a contract into
// another (both created by the caller), in a transaction and inside one from a contract (slots the
// same transaction wrote, read back at once); the storage root is the one SSTOREs of the same
// values give; refusals (not the creator, bad arguments, too little gas) change nothing; eth_call
// leaks nothing; older blocks answer as they were; a wasm contract's state too; a restart keeps it,
// a fresh datadir importing the chain reaches the same state roots; `chain-node admin contract
// migrate` on a dev chain.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AbiCoder, Interface } from 'ethers';
import { mined, startTestNode, testAddress, testGenesis, testKey, NODE_KEY, type TestNode } from './helpers/node.ts';
import { sysCallData, sysQuery, sysSendAs } from './helpers/syscontracts.ts';
import { compile } from './helpers/solc.ts';
import { CONTRACT_DATA_PROCESSOR_ABI, MIGRATE_SLOT_GAS } from '../src/codec/system-contracts-abi.ts';
import { CONTRACT_DATA_PROCESSOR } from '../src/exec/native/system-state.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import { encodeArg, encodeCall } from '../src/codec/venachain-call.ts';
import { runAdminCommand } from '../src/admin-command.ts';
import { ChainClient, sendSystem, systemCall } from '../generated/client/index.ts';
import { importedCopy } from './helpers/chain-copy.ts';
import { decodeWasmReturn, encodeWasmCall, encodeWasmDeploy, parseWasmAbi, type WasmValue } from '../src/codec/wasm-abi.ts';
import { clangAvailable, compileC } from './helpers/wasm-c.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Store {
    uint256 public a;
    uint256 public b;
    mapping(uint256 => uint256) public m;
    constructor(uint256 x) { a = x; b = x + 1; m[x] = x * 2; }
    function set(uint256 k, uint256 v) external { m[k] = v; }
    function setA(uint256 v) external { a = v; }
}
contract Pair {
    Store public src;
    Store public dest;
    uint256 public seenM;
    uint256 public seenA;
    constructor() { src = new Store(5); dest = new Store(100); }
    // writes src, migrates by the data given (this contract created both), reads dest back: one transaction
    function writeMigrateRead(uint256 k, uint256 v, bytes calldata migrate) external {
        src.set(k, v);
        (bool ok, ) = address(0x1000000000000000000000000000000000000007).call(migrate);
        require(ok, "migrate failed");
        seenM = dest.m(k);
        seenA = dest.a();
    }
    function migrateThenFail(bytes calldata migrate) external {
        (bool ok, ) = address(0x1000000000000000000000000000000000000007).call(migrate);
        require(ok, "migrate failed");
        revert("undone");
    }
}`;

const OWNER = 0;
const OTHER = 1;
const compiled = compile(SOURCE);
const store = new Interface(compiled.Store!.abi);
const pair = new Interface(compiled.Pair!.abi);
const dir = mkdtempSync(join(tmpdir(), 'chain-node-cdp-'));
const genesis = testGenesis(NODE_KEY);
let node: TestNode;

const migrateData = (src: string, dest: string) => sysCallData(CONTRACT_DATA_PROCESSOR_ABI, 'migrate', [src, dest]);
const migrate = (key: number, src: string, dest: string, gas = 1_000_000n) => sysSendAs(node, testKey(key), CONTRACT_DATA_PROCESSOR, migrateData(src, dest), gas);

async function deploy(key: number, bytecode: string): Promise<string> {
  const r = await sysSendAs(node, testKey(key), null as never, hexToBytes(bytecode), 3_000_000n);
  assert.is(r.status, '0x1', 'deployed');
  return r.contractAddress;
}
const newStore = (key: number, x: number) => deploy(key, compiled.Store!.bytecode + AbiCoder.defaultAbiCoder().encode(['uint256'], [x]).slice(2));

async function send(key: number, to: string, iface: Interface, fn: string, args: unknown[]): Promise<any> {
  return sysSendAs(node, testKey(key), to, hexToBytes(iface.encodeFunctionData(fn, args)), 2_000_000n);
}
async function read(to: string, iface: Interface, fn: string, args: unknown[] = [], block = 'latest'): Promise<any> {
  return iface.decodeFunctionResult(fn, await node.rpc('eth_call', [{ to, data: iface.encodeFunctionData(fn, args) }, block]))[0];
}
/** a, b, m[k] for each k */
async function contents(at: string, keys: number[], block = 'latest'): Promise<bigint[]> {
  return [await read(at, store, 'a', [], block), await read(at, store, 'b', [], block), ...(await Promise.all(keys.map((k) => read(at, store, 'm', [k], block))))];
}
const storageHash = async (at: string) => (await node.rpc('eth_getProof', [at, [], 'latest'])).storageHash;

let src: string;
let dest: string;
let before: string; // the block before the migration

test.before(async () => {
  node = await startTestNode({ dir, genesis });
  src = await newStore(OWNER, 5); // a 5, b 6, m[5] 10
  dest = await newStore(OWNER, 100); // a 100, b 101, m[100] 200
  assert.is((await send(OWNER, src, store, 'set', [1, 11])).status, '0x1');
  assert.is((await send(OWNER, dest, store, 'set', [7, 70])).status, '0x1');
});

test.after(async () => {
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("migrate by the creator of both: src's slots overwrite, dest's others stay, no event; 80,000 + 20,000 a slot; the storage root is the SSTOREs'", async () => {
  before = await node.rpc('eth_blockNumber');
  assert.is((await sysQuery(node, CONTRACT_DATA_PROCESSOR, CONTRACT_DATA_PROCESSOR_ABI, 'migrate', [src, dest], { from: testAddress(OWNER) })).value, 0n, 'eth_call answers 0');
  const r = await migrate(OWNER, src, dest);
  assert.is(r.status, '0x1');
  assert.equal(r.logs, [], 'Venachain logs only failures');
  assert.equal(await contents(dest, [5, 1, 100, 7]), [5n, 6n, 10n, 11n, 200n, 70n]);
  assert.equal(await contents(src, [5, 1, 100]), [5n, 6n, 10n, 11n, 0n], 'src unchanged');
  const data = migrateData(src, dest);
  const zeros = data.filter((b) => b === 0).length;
  assert.is(BigInt(r.gasUsed), 21_000n + 4n * BigInt(zeros) + 16n * BigInt(data.length - zeros) + 80_000n + 4n * MIGRATE_SLOT_GAS, 'four slots copied');
  // the same values written by SSTOREs give the same storage trie
  const reference = await newStore(OWNER, 5);
  for (const [k, v] of [[1, 11], [100, 200], [7, 70]]) assert.is((await send(OWNER, reference, store, 'set', [k, v])).status, '0x1');
  assert.is(await storageHash(dest), await storageHash(reference));
  assert.is(await node.rpc('eth_getStorageAt', [dest, '0x0', 'latest']), '0x' + '5'.padStart(64, '0'));
});

test('at an older block dest answers what it held before', async () => {
  assert.equal(await contents(dest, [5, 1, 100, 7], before), [100n, 101n, 0n, 0n, 200n, 70n]);
  assert.is(await node.rpc('eth_getStorageAt', [dest, '0x0', before]), '0x' + (100).toString(16).padStart(64, '0'));
});

test('eth_call of a migration changes nothing', async () => {
  const fresh = await newStore(OWNER, 40);
  const hash = await storageHash(fresh);
  assert.is((await sysQuery(node, CONTRACT_DATA_PROCESSOR, CONTRACT_DATA_PROCESSOR_ABI, 'migrate', [src, fresh], { from: testAddress(OWNER) })).value, 0n);
  assert.equal(await contents(fresh, [5, 40]), [40n, 41n, 0n, 80n]);
  assert.is(await storageHash(fresh), hash);
});

test('inside a contract: slots written earlier in the same transaction are copied and read back at once; a revert after it undoes it', async () => {
  const p = await deploy(OWNER, compiled.Pair!.bytecode);
  const [ps, pd] = [await read(p, pair, 'src'), await read(p, pair, 'dest')];
  // the transaction's origin created neither: the immediate caller (the contract) did
  assert.is((await migrate(OWNER, ps, pd)).status, '0x0');
  const r = await send(OTHER, p, pair, 'writeMigrateRead', [3, 33, migrateData(ps, pd)]);
  assert.is(r.status, '0x1');
  assert.is(await read(p, pair, 'seenM'), 33n, 'a slot written in this transaction, read after the copy');
  assert.is(await read(p, pair, 'seenA'), 5n, 'a slot never read in this transaction');
  assert.equal(await contents(pd, [3, 5, 100]), [5n, 6n, 33n, 10n, 200n]);
  const hash = await storageHash(pd);
  assert.is((await send(OWNER, ps, store, 'setA', [9])).status, '0x1');
  assert.is((await send(OWNER, p, pair, 'migrateThenFail', [migrateData(ps, pd)])).status, '0x0');
  assert.is(await read(pd, store, 'a'), 5n, 'the reverted copy left nothing');
  assert.is(await storageHash(pd), hash);
});

test('refused: not the creator (of src, of dest), bad arguments named, too little gas; nothing changes', async () => {
  const theirs = await newStore(OTHER, 8);
  const hash = await storageHash(dest);
  const cases: [number, unknown[], RegExp][] = [
    [OTHER, [src, dest], /not creator of the contract: 0x[0-9a-f]{40} did not create src/],
    [OWNER, [src, theirs], /not creator of the contract: 0x[0-9a-f]{40} did not create dest/],
    [OWNER, ['0x12', dest], /ContractDataProcessor\.migrate: argument 1 \(address\)/],
    [OWNER, [src], /ContractDataProcessor\.migrate: takes 2 argument\(s\), got 1/],
  ];
  for (const [key, args, reason] of cases) {
    // arguments as text, so that a malformed address reaches the node
    const data = encodeCall('migrate', (args as string[]).map((a) => encodeArg('string', a)));
    const r = await sysSendAs(node, testKey(key), CONTRACT_DATA_PROCESSOR, data, 1_000_000n);
    assert.is(r.status, '0x0', String(reason));
    const call = await node.raw('eth_call', [{ from: testAddress(key), to: CONTRACT_DATA_PROCESSOR, data: bytesToHex(data) }, 'latest']);
    assert.match(call.error!.message, reason);
  }
  // four slots need 80,000 + 4 × 20,000 beyond the intrinsic gas: one short runs out of gas
  const data = migrateData(src, dest);
  const estimate = BigInt(await node.rpc('eth_estimateGas', [{ from: testAddress(OWNER), to: CONTRACT_DATA_PROCESSOR, data: bytesToHex(data) }]));
  assert.ok(estimate >= 80_000n + 4n * MIGRATE_SLOT_GAS, String(estimate));
  const short = await migrate(OWNER, src, dest, 21_000n + 16n * BigInt(data.length) + 80_000n + 3n * MIGRATE_SLOT_GAS);
  assert.is(short.status, '0x0', 'out of gas');
  assert.is(await storageHash(dest), hash);
  assert.equal(await contents(theirs, [8]), [8n, 9n, 16n]);
});

const withClang = clangAvailable() ? test : test.skip;

withClang('a wasm contract: its state (in storage, W4) is copied the same way', async () => {
  const c = compileC('storage');
  const abi = parseWasmAbi(c.abi);
  const deployWasm = () => deploy(OWNER, bytesToHex(encodeWasmDeploy(c.wasm, c.abi)));
  const [ws, wd] = [await deployWasm(), await deployWasm()];
  const wasmSend = (to: string, fn: string, args: WasmValue[]) => sysSendAs(node, testKey(OWNER), to, encodeWasmCall(abi, fn, args), 2_000_000n);
  const wasmGet = async (at: string, key: string) => decodeWasmReturn('string', 2n, hexToBytes(await node.rpc('eth_call', [{ to: at, data: bytesToHex(encodeWasmCall(abi, 'get', [key])) }, 'latest'])));
  assert.is((await wasmSend(ws, 'put', ['fruit', 'apple'])).status, '0x1');
  assert.is((await wasmSend(wd, 'put', ['veg', 'leek'])).status, '0x1');
  assert.is((await migrate(OWNER, ws, wd)).status, '0x1');
  assert.is(await wasmGet(wd, 'fruit'), 'apple');
  assert.is(await wasmGet(wd, 'veg'), 'leek', "dest's own entry stays");
});

test('a restart keeps the copied storage', async () => {
  await node.stop();
  node = await startTestNode({ dir, genesis });
  assert.equal(await contents(dest, [5, 1, 100, 7]), [5n, 6n, 10n, 11n, 200n, 70n]);
  assert.equal(await contents(dest, [5, 1, 100, 7], before), [100n, 101n, 0n, 0n, 200n, 70n]);
});

test('a fresh datadir importing the chain re-executes every migration to the same state roots', async () => {
  const head = await node.rpc('eth_getBlockByNumber', ['latest', false]);
  await node.stop();
  node = await startTestNode({ dir: await importedCopy(dir), genesis, nodeKey: '77'.repeat(32) });
  const imported = await node.rpc('eth_getBlockByNumber', ['latest', false]);
  assert.equal([imported.hash, imported.stateRoot], [head.hash, head.stateRoot]);
  assert.equal(await contents(dest, [5, 1, 100, 7]), [5n, 6n, 10n, 11n, 200n, 70n]);
});

test('chain-node admin contract migrate and the SDK on a dev chain: the estimate covers the slots; a refusal in words', async () => {
  const dev = await startTestNode({ dev: true });
  try {
    const [account] = await dev.rpc('eth_accounts');
    const deployDev = async (x: number) => {
      const hash = await dev.rpc('eth_sendTransaction', [{ from: account, data: compiled.Store!.bytecode + AbiCoder.defaultAbiCoder().encode(['uint256'], [x]).slice(2), gas: '0x2dc6c0' }]);
      return (await mined(dev, hash)).contractAddress as string;
    };
    const [s, d] = [await deployDev(3), await deployDev(50)];
    let output = '';
    const admin = (...args: string[]) => runAdminCommand([...args, '--rpc', dev.url], (l) => (output += l + '\n'), (l) => (output += l + '\n'));
    assert.is(await admin('contract', 'migrate', s, d), 0, output);
    assert.match(output, /storage of 0x[0-9a-fA-F]{40} copied into 0x[0-9a-fA-F]{40} \(block \d+, tx 0x/);
    const a = await dev.rpc('eth_call', [{ to: d, data: store.encodeFunctionData('a') }, 'latest']);
    assert.is(BigInt(a), 3n);
    // the SDK: the call from the signature table, sent with the node's estimate
    const d2 = await deployDev(60);
    const client = ChainClient.http(dev.url);
    try {
      const call = systemCall('ContractDataProcessor', 'migrate', s, d2);
      const gas = BigInt(await client.eth.estimateGas({ from: account, to: call.to, data: call.data }));
      const outcome = await sendSystem(client, { ...call, gas }, { from: account });
      assert.ok(outcome.ok, outcome.reason);
      assert.is(BigInt(outcome.receipt.gasUsed) <= gas, true);
      assert.is(BigInt(await dev.rpc('eth_call', [{ to: d2, data: store.encodeFunctionData('b') }, 'latest'])), 4n);
      const flat = await sendSystem(client, systemCall('ContractDataProcessor', 'migrate', s, d2), { from: account });
      assert.is(flat.receipt.status, '0x0', 'the flat gas alone does not pay for the slots');
    } finally {
      await client.close();
    }
    output = '';
    assert.is(await admin('contract', 'migrate', s, CONTRACT_DATA_PROCESSOR), 1, output);
    assert.match(output, /failed: not creator of the contract/);
    output = '';
    assert.is(await admin('contract', 'migrate', '0x12', d), 2, output);
    assert.match(output, /src: not an address/);
    output = '';
    assert.is(await admin('--help'), 0, output);
    assert.match(output, /contract migrate <src> <dest>/);
  } finally {
    await dev.stop();
  }
});

test.run();
