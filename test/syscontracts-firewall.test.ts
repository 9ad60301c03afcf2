// FirewallManagement through JSON-RPC: a contract's creator opens its firewall and edits its
// accept/reject lists; while open, calls by address (a wasm contract, compiled with clang; those
// cases skip cleanly without it) and by name (a Solidity contract through CNS), and calls by name
// from another contract, are accepted or refused by caller and function; a refused call fails with
// Venachain's permission error and changes nothing. Non-owners, bad actions and bad rules are
// failed transactions naming what is wrong; status at an older block; gas; the deploy permission
// beside it; a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AbiCoder, Interface } from 'ethers';
import { RLP } from '@ethereumjs/rlp';
import { beBytes, decodeEventData, eventTopic } from '../src/codec/venachain-call.ts';
import { CNS_MANAGEMENT_ABI, FIREWALL_MANAGEMENT_ABI, PARAMETER_MANAGEMENT_ABI } from '../src/codec/system-contracts-abi.ts';
import { decodeWasmReturn, encodeWasmCall, encodeWasmDeploy, parseWasmAbi, type WasmAbi } from '../src/codec/wasm-abi.ts';
import { CNS_INVOKE, CNS_MANAGEMENT, FIREWALL_MANAGEMENT, PARAMETER_MANAGEMENT } from '../src/exec/native/system-state.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import { startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { sysCallData, sysGenesisWithRoles, sysQuery, sysSendAs, type SysArg } from './helpers/syscontracts.ts';
import { compile } from './helpers/solc.ts';
import { clangAvailable, compileC } from './helpers/wasm-c.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Token {
    int64 public value;
    function set(int64 v) external { value = v; }
}
contract Proxy {
    function byName(bytes calldata data) external returns (bool ok, bytes memory ret) { (ok, ret) = address(0).call(data); }
    function direct(address t, bytes calldata data) external returns (bool ok) { (ok, ) = t.call(data); }
}`;

const OWNER = 0;
const ADMIN = 1;
const OTHER = 2;
const utf8 = new TextEncoder();
const compiled = compile(SOURCE);
const tokenAbi = new Interface(compiled.Token!.abi);
const proxyAbi = new Interface(compiled.Proxy!.abi);
const haveClang = clangAvailable();
const dir = mkdtempSync(join(tmpdir(), 'chain-node-fw-'));
let node: TestNode;
let genesis: object;
let token: string;
let proxy: string;
let counter: string;
let wasmAbi: WasmAbi;

type Method = keyof typeof FIREWALL_MANAGEMENT_ABI;

const fw = (key: number, method: Method, ...args: SysArg[]) => sysSendAs(node, testKey(key), FIREWALL_MANAGEMENT, sysCallData(FIREWALL_MANAGEMENT_ABI, method, args));
const status = async (contract: string, block = 'latest') => JSON.parse((await sysQuery(node, FIREWALL_MANAGEMENT, FIREWALL_MANAGEMENT_ABI, '__sys_FwStatus', [contract], { block })).value as string);
const reasonOf = async (method: Method, args: SysArg[], key: number) => (await sysQuery(node, FIREWALL_MANAGEMENT, FIREWALL_MANAGEMENT_ABI, method, args, { from: testAddress(key) })).error?.message ?? '';

async function deploy(key: number, bytecode: string): Promise<string> {
  const r = await sysSendAs(node, testKey(key), null as never, hexToBytes(bytecode), 3_000_000n);
  assert.is(r.status, '0x1', 'deployed');
  return r.contractAddress;
}

/** RLP([2, name, funcName, args…]) */
function byName(name: string, funcName: string, args: string[] = []): string {
  return bytesToHex(RLP.encode([beBytes(2n, 8), utf8.encode(name), utf8.encode(funcName), ...args.map((a) => utf8.encode(a))]));
}

const tokenValue = async () => tokenAbi.decodeFunctionResult('value', await node.rpc('eth_call', [{ to: token, data: tokenAbi.encodeFunctionData('value') }, 'latest']))[0];
const send = (key: number, to: string, data: string) => sysSendAs(node, testKey(key), to, hexToBytes(data), 2_000_000n);
const PERMISSION = /Permission Denied! FW : Access to contract:0x[0-9a-f]{40} by \w+ is refused by firewall\./;

test.before(async () => {
  genesis = await sysGenesisWithRoles({ [ADMIN]: ['SUPER_ADMIN', 'CHAIN_ADMIN'] });
  node = await startTestNode({ dir, genesis });
  token = await deploy(OWNER, compiled.Token!.bytecode);
  proxy = await deploy(OTHER, compiled.Proxy!.bytecode);
  const r = await sysSendAs(node, testKey(OWNER), CNS_MANAGEMENT, sysCallData(CNS_MANAGEMENT_ABI, 'cnsRegister', ['token', '1.0.0.1', token]));
  assert.is(r.status, '0x1');
  if (haveClang) {
    const c = compileC('storage');
    wasmAbi = parseWasmAbi(c.abi);
    counter = await deploy(OWNER, bytesToHex(encodeWasmDeploy(c.wasm, c.abi)));
  }
});

test.after(async () => {
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a contract never given a firewall: closed, no lists (Venachain's FwStatus JSON); only the creator may change it", async () => {
  assert.equal(await status(token), { ContractAddr: token, Active: false, AcceptedList: null, RejectedList: null });
  const r = await fw(OTHER, '__sys_FwOpen', token);
  assert.is(r.status, '0x0');
  assert.is(r.logs.length, 0);
  assert.match(await reasonOf('__sys_FwOpen', [token], OTHER), /FW : error, only contract owner can set firewall setting/);
  assert.match(await reasonOf('__sys_FwAdd', [token, 'accept', `${testAddress(OTHER)}:set`], OTHER), /only contract owner/);
  assert.is((await status(token)).Active, false, 'nothing changed');
});

test('open by name: a caller outside the accept list is refused (nothing changes), inside it passes; the creator always passes', async () => {
  const opened = await fw(OWNER, '__sys_FwOpen', token);
  assert.is(opened.status, '0x1');
  assert.is(opened.logs[0].address, FIREWALL_MANAGEMENT);
  assert.is(opened.logs[0].topics[0], bytesToHex(eventTopic('Notify')));
  assert.equal(decodeEventData(hexToBytes(opened.logs[0].data)), { code: 0n, message: 'fw start success' });
  const data = sysCallData(FIREWALL_MANAGEMENT_ABI, '__sys_FwOpen', [token]);
  const zeros = data.filter((b) => b === 0).length;
  assert.is(Number(opened.gasUsed), 21_000 + 4 * zeros + 16 * (data.length - zeros) + 10_000, "the firewall's flat 10000 on top of the intrinsic gas");

  const refused = await send(OTHER, CNS_INVOKE, byName('token', 'set', ['int64(5)']));
  assert.is(refused.status, '0x0');
  assert.is(refused.logs.length, 0);
  assert.is(await tokenValue(), 0n, 'nothing changed');
  const why = await node.raw('eth_call', [{ from: testAddress(OTHER), to: CNS_INVOKE, data: byName('token', 'set', ['int64(5)']) }, 'latest']);
  assert.match(why.error!.message, PERMISSION);

  assert.is((await send(OWNER, CNS_INVOKE, byName('token', 'set', ['int64(1)']))).status, '0x1', 'the creator passes');
  assert.is((await fw(OWNER, '__sys_FwAdd', token, 'accept', `${testAddress(OTHER)}:set`)).status, '0x1');
  assert.is((await send(OTHER, CNS_INVOKE, byName('token', 'set', ['int64(5)']))).status, '0x1');
  assert.is(await tokenValue(), 5n);
  assert.equal((await status(token)).AcceptedList, [{ Addr: testAddress(OTHER), FuncName: 'set' }]);
});

test('through an inner call by name the caller is the calling contract: refused until it is on the accept list; a direct inner call is not checked (as Venachain)', async () => {
  const viaProxy = (v: string) => send(OTHER, proxy, proxyAbi.encodeFunctionData('byName', [byName('token', 'set', [`int64(${v})`])]));
  await viaProxy('6');
  assert.is(await tokenValue(), 5n, "the proxy's call by name was refused");
  assert.is((await fw(OWNER, '__sys_FwAdd', token, 'accept', `${proxy}:set`)).status, '0x1');
  await viaProxy('6');
  assert.is(await tokenValue(), 6n, 'accepted');
  // a direct transaction with ABI data is not Venachain's RLP call: refused (even for the creator)
  const direct = await send(OWNER, token, tokenAbi.encodeFunctionData('set', [9n]));
  assert.is(direct.status, '0x0');
  assert.match((await node.raw('eth_call', [{ from: testAddress(OWNER), to: token, data: tokenAbi.encodeFunctionData('set', [9n]) }, 'latest'])).error!.message, /FW : Input decode error/);
  await send(OTHER, proxy, proxyAbi.encodeFunctionData('direct', [token, tokenAbi.encodeFunctionData('set', [8n])]));
  assert.is(await tokenValue(), 8n, 'an inner call by address passes, as in Venachain');
});

test('reject wins over accept; del, set, clear, import, export; bad actions and rules name what is wrong and change nothing', async () => {
  const other = testAddress(OTHER);
  assert.is((await fw(OWNER, '__sys_FwAdd', token, 'REJECT', '*:set')).status, '0x1');
  assert.is((await send(OTHER, CNS_INVOKE, byName('token', 'set', ['int64(11)']))).status, '0x0', 'rejected though accepted');
  assert.is((await fw(OWNER, '__sys_FwDel', token, 'reject', '*:set')).status, '0x1');
  assert.is((await send(OTHER, CNS_INVOKE, byName('token', 'set', ['int64(11)']))).status, '0x1');
  assert.is((await fw(OWNER, '__sys_FwSet', token, 'accept', `${other}:get|*:value`)).status, '0x1');
  assert.equal((await status(token)).AcceptedList, [
    { Addr: other, FuncName: 'get' },
    { Addr: '0xffffffffffffffffffffffffffffffffffffffff', FuncName: 'value' },
  ]);
  assert.is((await send(OTHER, CNS_INVOKE, byName('token', 'set', ['int64(12)']))).status, '0x0', 'set replaced the list');
  assert.is((await fw(OWNER, '__sys_FwClear', token, 'accept')).status, '0x1');
  assert.is((await status(token)).AcceptedList, null);
  const exported = { ContractAddr: token, Active: true, AcceptedList: [{ Addr: other, FuncName: 'set' }], RejectedList: [{ Addr: proxy, FuncName: '*' }] };
  assert.is((await fw(OWNER, '__sys_FwImport', token, JSON.stringify(exported))).status, '0x1');
  assert.equal(await status(token), exported);
  assert.equal(JSON.parse((await sysQuery(node, FIREWALL_MANAGEMENT, FIREWALL_MANAGEMENT_ABI, '__sys_FwExport', [token])).value as string), exported);

  const before = await status(token);
  const cases: [Method, SysArg[], RegExp][] = [
    ['__sys_FwAdd', [token, 'allow', `${other}:set`], /action is invalid: action "allow" must be accept or reject/],
    ['__sys_FwAdd', [token, 'accept', 'set'], /incorrect firewall rule format: "set" must be address:funcName/],
    ['__sys_FwAdd', [token, 'accept', '0x12:set'], /incorrect firewall rule address format: "0x12"/],
    ['__sys_FwAdd', [token, 'accept', `${other}:se-t`], /incorrect firewall rule api name format: "se-t"/],
    ['__sys_FwClear', [token, 'everything'], /action is invalid/],
    ['__sys_FwImport', [token, 'nope'], /Firewall import failed: .* is not JSON/],
    ['__sys_FwImport', [token, JSON.stringify({ AcceptedList: [{ Addr: other, FuncName: 'a:b' }] })], /funcName parameter error/],
  ];
  for (const [method, args, reason] of cases) {
    const r = await fw(OWNER, method, ...args);
    assert.is(r.status, '0x0', `${method}(${args.join(', ')})`);
    assert.match(await reasonOf(method, args, OWNER), reason);
  }
  assert.equal(await status(token), before, 'nothing changed');
});

const maybe = haveClang ? test : test.skip;

maybe('a wasm contract by address: refused outside the list (its state unchanged), accepted inside; closed, everyone passes; status at an older block', async () => {
  const set = (v: bigint) => bytesToHex(encodeWasmCall(wasmAbi, 'setCounter', [v]));
  const get = async (from: number) => {
    const r = await node.raw('eth_call', [{ from: testAddress(from), to: counter, data: bytesToHex(encodeWasmCall(wasmAbi, 'getCounter', [])) }, 'latest']);
    return r.error ? r.error.message : decodeWasmReturn('int64', 2n, hexToBytes(r.result));
  };
  const opened = await fw(OWNER, '__sys_FwOpen', counter);
  assert.is((await send(OTHER, counter, set(3n))).status, '0x0');
  assert.match((await get(OTHER)) as string, PERMISSION, 'a constant call is refused too');
  assert.is(await get(OWNER), 0n, 'the state is unchanged; the creator reads');
  assert.is((await fw(OWNER, '__sys_FwAdd', counter, 'accept', `${testAddress(OTHER)}:setCounter|${testAddress(OTHER)}:getCounter`)).status, '0x1');
  assert.is((await send(OTHER, counter, set(3n))).status, '0x1');
  assert.is(await get(OTHER), 3n);
  assert.match((await get(3)) as string, PERMISSION, 'a stranger is still refused');
  const closed = await fw(OWNER, '__sys_FwClose', counter);
  assert.equal(decodeEventData(hexToBytes(closed.logs[0].data)).message, 'fw close success');
  assert.is(await get(3), 3n, 'closed: everyone passes');
  const beforeOpen = '0x' + (BigInt(opened.blockNumber) - 1n).toString(16);
  assert.is((await status(counter, beforeOpen)).Active, false);
  assert.is((await status(counter, opened.blockNumber)).Active, true);
});

test('the deploy permission of ParameterManagement keeps working beside the firewall', async () => {
  const param = (v: bigint) => sysSendAs(node, testKey(ADMIN), PARAMETER_MANAGEMENT, sysCallData(PARAMETER_MANAGEMENT_ABI, 'setCheckContractDeployPermission', [v]));
  assert.is((await param(1n)).status, '0x1');
  const refused = await sysSendAs(node, testKey(OTHER), null as never, hexToBytes(compiled.Token!.bytecode), 3_000_000n);
  assert.is(refused.status, '0x0');
  assert.is((await param(0n)).status, '0x1');
});

test('a restart keeps each firewall', async () => {
  await node.stop();
  node = await startTestNode({ dir, genesis });
  assert.is((await status(token)).Active, true);
  assert.is((await send(3, CNS_INVOKE, byName('token', 'set', ['int64(99)']))).status, '0x0');
  assert.is((await send(OTHER, CNS_INVOKE, byName('token', 'set', ['int64(13)']))).status, '0x1');
  assert.is(await tokenValue(), 13n);
});

test.run();
