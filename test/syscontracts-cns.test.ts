// CnsManagement and calls by name through JSON-RPC: a Solidity contract registered as `token`
// 1.0.0.1, called by name through the zero address (the caller preserved, its event and the
// CnsInvoke event in the receipt), a second version registered, the first picked again by
// cnsRedirect; Venachain's name/version rules and owner rule as failed transactions whose reason
// names the argument (nothing changed), cnsRegisterFromInit from a constructor, the list queries'
// JSON, importOldCnsManagerData (chain admins only), answers at older blocks, the flat gas, a
// restart; and a wasm contract called by name (skipped without clang).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AbiCoder, getAddress, Interface } from 'ethers';
import { RLP } from '@ethereumjs/rlp';
import { beBytes, decodeEventData, encodeCall, eventTopic } from '../src/codec/venachain-call.ts';
import { CNS_MANAGEMENT_ABI } from '../src/codec/system-contracts-abi.ts';
import { encodeWasmCall, encodeWasmDeploy, parseWasmAbi } from '../src/codec/wasm-abi.ts';
import { CNS_INVOKE, CNS_MANAGEMENT } from '../src/exec/native/system-state.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import { startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { sysCallData, sysGenesisWithRoles, sysQuery, sysSendAs, type SysArg } from './helpers/syscontracts.ts';
import { compile } from './helpers/solc.ts';
import { importedCopy } from './helpers/chain-copy.ts';
import { clangAvailable, compileC } from './helpers/wasm-c.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Token {
    string private tag;
    int64 public value;
    address public lastCaller;
    event Set(address who, int64 v);
    constructor(string memory t) { tag = t; }
    function version() external view returns (string memory) { return tag; }
    function set(int64 v) external { value = v; lastCaller = msg.sender; emit Set(msg.sender, v); }
    function fail() external pure { revert("token refused"); }
}
contract SelfRegistering {
    constructor(bytes memory cnsCall) { (bool ok, ) = address(0x11).call(cnsCall); require(ok, "cnsRegisterFromInit failed"); }
}`;

const OWNER = 0; // deploys and registers
const ADMIN = 1; // chain admin
const OTHER = 2;
const utf8 = new TextEncoder();
const compiled = compile(SOURCE);
const token = new Interface(compiled.Token!.abi);
const dir = mkdtempSync(join(tmpdir(), 'chain-node-cns-'));
let node: TestNode;
let genesis: object;
let v1: string;
let v2: string;

type Method = keyof typeof CNS_MANAGEMENT_ABI;

const cns = (key: number, method: Method, ...args: SysArg[]) => sysSendAs(node, testKey(key), CNS_MANAGEMENT, sysCallData(CNS_MANAGEMENT_ABI, method, args));

async function ask(method: Method, args: SysArg[] = [], o: { from?: string; block?: string } = {}): Promise<bigint | string | { error: string }> {
  const a = await sysQuery(node, CNS_MANAGEMENT, CNS_MANAGEMENT_ABI, method, args, o);
  return a.error ? { error: a.error.message } : a.value!;
}

const askJson = async (method: Method, args: SysArg[] = [], o: { block?: string } = {}) => JSON.parse((await ask(method, args, o)) as string);

/** RLP([txType, name, funcName, args…]): a call by name */
function byName(name: string, funcName: string, args: string[] = []): string {
  return bytesToHex(RLP.encode([beBytes(2n, 8), utf8.encode(name), utf8.encode(funcName), ...args.map((a) => utf8.encode(a))]));
}

async function deploy(key: number, bytecode: string): Promise<string> {
  const r = await sysSendAs(node, testKey(key), null as never, hexToBytes(bytecode), 3_000_000n);
  assert.is(r.status, '0x1', 'deployed');
  return r.contractAddress;
}

const tokenDeploy = (tag: string) => compiled.Token!.bytecode + AbiCoder.defaultAbiCoder().encode(['string'], [tag]).slice(2);

async function versionByName(name: string, block = 'latest'): Promise<string> {
  const ret = await node.rpc('eth_call', [{ from: testAddress(OTHER), to: CNS_INVOKE, data: byName(name, 'version') }, block]);
  return token.decodeFunctionResult('version', ret)[0];
}

function cnsEvent(receipt: any): { topic: string; code: bigint; message: string } {
  assert.is(receipt.logs.length, 1, JSON.stringify(receipt.logs));
  assert.is(receipt.logs[0].address, CNS_MANAGEMENT);
  return { topic: receipt.logs[0].topics[0], ...decodeEventData(hexToBytes(receipt.logs[0].data)) };
}

test.before(async () => {
  genesis = await sysGenesisWithRoles({ [ADMIN]: ['SUPER_ADMIN', 'CHAIN_ADMIN'] });
  node = await startTestNode({ dir, genesis });
  v1 = await deploy(OWNER, tokenDeploy('v1'));
  v2 = await deploy(OWNER, tokenDeploy('v2'));
});

test.after(async () => {
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('cnsRegister token 1.0.0.1: code 0, the [CNS] Notify event, getContractAddress answers the checksummed address for the version and for latest', async () => {
  assert.is(await ask('cnsRegister', ['token', '1.0.0.1', v1], { from: testAddress(OWNER) }), 0n, 'eth_call answers 0');
  const r = await cns(OWNER, 'cnsRegister', 'token', '1.0.0.1', v1);
  assert.is(r.status, '0x1');
  assert.equal(cnsEvent(r), { topic: bytesToHex(eventTopic('[CNS] Notify')), code: 0n, message: '[CNS] cns register succeed' });
  assert.is(await ask('getContractAddress', ['token', '1.0.0.1']), getAddress(v1));
  assert.is(await ask('getContractAddress', ['token', 'latest']), getAddress(v1));
  assert.is(await ask('getContractAddress', ['token', 'LATEST']), getAddress(v1));
  assert.is(await ask('getContractAddress', ['token', '9.9.9.9']), '', 'not registered: empty, as Venachain');
  const logs = await node.rpc('eth_getLogs', [{ address: CNS_MANAGEMENT, fromBlock: r.blockNumber, toBlock: r.blockNumber }]);
  assert.is(logs.length, 1);
});

test('a call by name reaches the contract with the caller preserved: its event, then CnsInvoke; name:version picks a version; eth_call answers', async () => {
  assert.is(await versionByName('token'), 'v1');
  assert.is(await versionByName('token:1.0.0.1'), 'v1');
  const data = byName('token', 'set', ['int64(7)']);
  const r = await sysSendAs(node, testKey(OTHER), CNS_INVOKE, hexToBytes(data), 1_000_000n);
  assert.is(r.status, '0x1');
  assert.is(r.logs.length, 2);
  assert.is(r.logs[0].address.toLowerCase(), v1);
  const set = token.parseLog(r.logs[0])!;
  assert.is(set.args[0].toLowerCase(), testAddress(OTHER), 'msg.sender is the caller of the zero address');
  assert.is(set.args[1], 7n);
  assert.is(r.logs[1].address, CNS_INVOKE);
  assert.is(r.logs[1].topics[0], bytesToHex(eventTopic('CnsInvoke')));
  assert.equal(decodeEventData(hexToBytes(r.logs[1].data)), { code: 0n, message: 'cnsinvoke successful.' });
  const value = await node.rpc('eth_call', [{ to: v1, data: token.encodeFunctionData('value') }, 'latest']);
  assert.is(token.decodeFunctionResult('value', value)[0], 7n);
  // the callee's revert is the call's: status 0, its reason
  const failing = await node.raw('eth_call', [{ to: CNS_INVOKE, data: byName('token', 'fail') }, 'latest']);
  assert.match(failing.error!.message, /token refused/);
});

test('a second version becomes latest; cnsRedirect picks the first again; older blocks answer what was registered then', async () => {
  const r2 = await cns(OWNER, 'cnsRegister', 'token', '1.0.0.2', v2);
  assert.is(r2.status, '0x1');
  assert.is(await versionByName('token'), 'v2');
  assert.is(await versionByName('token:1.0.0.1'), 'v1');
  const redirect = await cns(OWNER, 'cnsRedirect', 'token', '1.0.0.1');
  assert.is(redirect.status, '0x1');
  assert.equal(cnsEvent(redirect).message, '[CNS] cns redirect succeed');
  assert.is(await versionByName('token'), 'v1');
  assert.is(await ask('getContractAddress', ['token', 'latest'], { block: r2.blockNumber }), getAddress(v2), 'at the block of the second registration');
  assert.is(await versionByName('token', r2.blockNumber), 'v2');
  const before = '0x' + (BigInt(r2.blockNumber) - 1n).toString(16);
  assert.is(await ask('getRegisteredContractsByName', ['token'], { block: before }).then((t) => JSON.parse(t as string).data.length), 1);
});

test("Venachain's rules: each refusal is a failed transaction whose reason names the argument, and nothing changes", async () => {
  const total = async () => (await askJson('getRegisteredContracts', [0n, 0n])).data.length;
  const count = await total();
  const cases: [number, Method, SysArg[], RegExp][] = [
    [OTHER, 'cnsRegister', ['stolen', '1.0.0.1', v1], /\[CNS\] not owner of registered contract/],
    [OWNER, 'cnsRegister', ['token', '1.0.0.1', v1], /already registered and activated/],
    [OWNER, 'cnsRegister', ['token', '1.0.0.0', v1], /Version must be larger than previous version: 1\.0\.0\.0 is not above 1\.0\.0\.2/],
    [OWNER, 'cnsRegister', ['token', '1.0', v1], /version format is invalid: version "1\.0"/],
    [OWNER, 'cnsRegister', ['token', '1.0.0.1000', v1], /version format is invalid/],
    [OWNER, 'cnsRegister', ['to-ken', '1.0.0.1', v1], /name format is invalid: name "to-ken"/],
    [OWNER, 'cnsRegisterFromInit', ['token', '1.0.0.9'], /can only be called from init\(\)/],
    [OTHER, 'cnsRedirect', ['token', '1.0.0.2'], /not owner of registered contract/],
    [OWNER, 'cnsRedirect', ['token', '3.0.0.0'], /didn't register before/],
    [OTHER, 'importOldCnsManagerData', ['{}'], /No Permission/],
  ];
  for (const [key, method, args, reason] of cases) {
    const r = await cns(key, method, ...args);
    assert.is(r.status, '0x0', `${method}(${args.join(', ')})`);
    assert.is(r.logs.length, 0);
    const a = await ask(method, args, { from: testAddress(key) });
    assert.match((a as { error: string }).error, reason);
  }
  // another account's contract under the owner's name: the name belongs to its first registrant
  const theirs = await deploy(OTHER, tokenDeploy('theirs'));
  const r = await cns(OTHER, 'cnsRegister', 'token', '2.0.0.0', theirs);
  assert.is(r.status, '0x0');
  assert.match(((await ask('cnsRegister', ['token', '2.0.0.0', theirs], { from: testAddress(OTHER) })) as { error: string }).error, /Name is already registered/);
  // a malformed argument to the contract itself: the argument named
  const bad = await node.raw('eth_call', [{ to: CNS_MANAGEMENT, data: bytesToHex(encodeCall('cnsRegister', [utf8.encode('token'), utf8.encode('1.0.0.3'), utf8.encode('0x12')])) }, 'latest']);
  assert.match(bad.error!.message, /argument 3 \(address\)/);
  assert.is(await total(), count, 'nothing registered');
  assert.is(await versionByName('token'), 'v1', 'latest unchanged');
});

test('cnsRegisterFromInit in a constructor registers the contract being created', async () => {
  const call = bytesToHex(sysCallData(CNS_MANAGEMENT_ABI, 'cnsRegisterFromInit', ['selfreg', '0.0.0.1']));
  const created = await deploy(OTHER, compiled.SelfRegistering!.bytecode + AbiCoder.defaultAbiCoder().encode(['bytes'], [call]).slice(2));
  assert.is(await ask('getContractAddress', ['selfreg', 'latest']), getAddress(created));
  const [record] = (await askJson('getRegisteredContractsByName', ['selfreg'])).data;
  assert.equal({ ...record, create_time: 0 }, { name: 'selfreg', version: '0.0.0.1', address: created, origin: testAddress(OTHER), create_time: 0 });
});

test("the queries: Venachain's result JSON, code 1 for an empty list or a bad range", async () => {
  assert.is(await ask('ifRegisteredByName', ['token']), 1n);
  assert.is(await ask('ifRegisteredByName', ['nobody']), 0n);
  assert.match(((await ask('ifRegisteredByName', ['no-body'])) as { error: string }).error, /name format is invalid/);
  assert.is(await ask('ifRegisteredByAddress', [v2]), 1n);
  assert.is(await ask('ifRegisteredByAddress', [testAddress(3)]), 0n);
  const all = await askJson('getRegisteredContracts', [0n, 0n]);
  assert.is(all.code, 0);
  assert.is(all.msg, 'success');
  assert.equal(
    all.data.map((r: any) => [r.name, r.version, r.address, r.origin]),
    [
      ['token', '1.0.0.1', v1, testAddress(OWNER)],
      ['token', '1.0.0.2', v2, testAddress(OWNER)],
      ['selfreg', '0.0.0.1', all.data[2].address, testAddress(OTHER)],
    ],
  );
  assert.equal(Object.keys(all.data[0]), ['name', 'version', 'address', 'origin', 'create_time']);
  assert.equal((await askJson('getRegisteredContracts', [1n, 1n])).data, [all.data[1]]);
  assert.equal(await askJson('getRegisteredContracts', [5n, 0n]), { code: 1, msg: '[CNS] the matching list is empty', data: [] });
  assert.is((await askJson('getRegisteredContracts', [-1n, 0n])).code, 1);
  assert.equal((await askJson('getRegisteredContractsByAddress', [v2])).data, [all.data[1]]);
  assert.equal((await askJson('getContractInfoByAddress', [v2])).data, [all.data[1]]);
  assert.equal((await askJson('getRegisteredContractsByOrigin', [testAddress(OTHER)])).data, [all.data[2]]);
  assert.is((await askJson('getRegisteredContractsByOrigin', [testAddress(3)])).code, 1);
  assert.is((await askJson('getRegisteredContractsByName', ['a-b'])).code, 1);
});

test('importOldCnsManagerData: a chain admin imports records (the highest version becomes latest); bad data names what is wrong', async () => {
  const data = { code: 0, msg: 'success', data: { total: 1, contract: [{ name: 'legacy', version: '1.2.3.4', address: v2, origin: testAddress(OTHER), create_time: 5 }] } };
  const r = await cns(ADMIN, 'importOldCnsManagerData', JSON.stringify(data));
  assert.is(r.status, '0x1');
  assert.is(cnsEvent(r).message, '[CNS] cns data migration succeed');
  assert.is(await versionByName('legacy'), 'v2');
  assert.equal((await askJson('getRegisteredContractsByName', ['legacy'])).data, data.data.contract);
  const bad = { data: { contract: [{ name: 'x', version: '1', address: v2, origin: v2 }] } };
  assert.match(((await ask('importOldCnsManagerData', [JSON.stringify(bad)], { from: testAddress(ADMIN) })) as { error: string }).error, /data\.contract\[0\].*version "1"/);
  assert.match(((await ask('importOldCnsManagerData', ['not json'], { from: testAddress(ADMIN) })) as { error: string }).error, /argument 1: not JSON/);
});

test('calls by name that cannot be made fail with a reason: unknown name, too few items, not RLP, value', async () => {
  const reason = async (data: string, value?: string) => (await node.raw('eth_call', [{ from: testAddress(OTHER), to: CNS_INVOKE, data, value }, 'latest'])).error?.message ?? '';
  assert.match(await reason(byName('nobody', 'version')), /not registered in CNS: "nobody"/);
  assert.match(await reason(byName('token:7.7.7.7', 'version')), /not registered in CNS: "token:7\.7\.7\.7"/);
  assert.match(await reason(bytesToHex(RLP.encode([beBytes(2n, 8), utf8.encode('token')]))), /at least 3 items/);
  assert.match(await reason('0xdeadbeef'), /not RLP/);
  assert.match(await reason(byName('token', 'version'), '0x1'), /carries no value/);
});

test("gas: Venachain's flat 80000 for a CNS method on top of the intrinsic gas", async () => {
  const data = sysCallData(CNS_MANAGEMENT_ABI, 'cnsRegister', ['gas', '0.0.0.1', v1]);
  const r = await cns(OWNER, 'cnsRegister', 'gas', '0.0.0.1', v1);
  const zeros = data.filter((b) => b === 0).length;
  const standard = 21_000 + 4 * zeros + 16 * (data.length - zeros);
  assert.is(Number(r.gasUsed), standard + 80_000);
});

test('a restart keeps the registrations and calls by name', async () => {
  await node.stop();
  node = await startTestNode({ dir, genesis });
  assert.is(await ask('getContractAddress', ['token', 'latest']), getAddress(v1));
  assert.is(await versionByName('token:1.0.0.2'), 'v2');
});

test('a fresh datadir importing the chain reaches the same head: registrations of contracts created in blocks of the same import group', async () => {
  const head = await node.rpc('eth_getBlockByNumber', ['latest', false]);
  await node.stop();
  let fresh: string;
  try {
    fresh = await importedCopy(dir);
  } finally {
    node = await startTestNode({ dir, genesis });
  }
  const imported = await startTestNode({ dir: fresh, genesis, nodeKey: '77'.repeat(32) });
  try {
    const latest = await imported.rpc('eth_getBlockByNumber', ['latest', false]);
    assert.equal([latest.hash, latest.stateRoot], [head.hash, head.stateRoot]);
  } finally {
    await imported.stop();
  }
});

const maybe = clangAvailable() ? test : test.skip;

maybe('a wasm contract registered and called by name (8-byte int64 arguments, raw-return txType 9)', async () => {
  const c = compileC('storage');
  const abi = parseWasmAbi(c.abi);
  const counter = await deploy(OWNER, bytesToHex(encodeWasmDeploy(c.wasm, c.abi)));
  assert.is((await cns(OWNER, 'cnsRegister', 'counter', '1.0.0.1', counter)).status, '0x1');
  const call = (fn: string, args: bigint[] = [], txType = 2n) => {
    const direct = RLP.decode(encodeWasmCall(abi, fn, args)) as Uint8Array[];
    return bytesToHex(RLP.encode([beBytes(txType, 8), utf8.encode('counter'), ...direct.slice(1)]));
  };
  const r = await sysSendAs(node, testKey(OTHER), CNS_INVOKE, hexToBytes(call('setCounter', [41n])), 2_000_000n);
  assert.is(r.status, '0x1');
  assert.is(r.logs.at(-1).address, CNS_INVOKE);
  const answer = await node.rpc('eth_call', [{ to: CNS_INVOKE, data: call('getCounter', [], 9n) }, 'latest']);
  assert.is(BigInt(answer), 41n);
});

test.run();
