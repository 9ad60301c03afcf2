// `chain-node admin cns …` / `admin fw …` and the SDK's CnsManagement, FirewallManagement and
// callByName, end to end against a real dev-chain node process: a Solidity contract deployed by the
// dev account, registered as `token` 1.0.0.1 by the CLI (a process), resolved, listed, called by name
// through the SDK, a second version registered through the SDK and redirected back by the CLI; its
// firewall opened and a rule added by the CLI, a stranger refused by name, status and export read
// back; refusals and bad input answered in one line with an exit code, never a stack. Calls by name
// through the CLI (cns call|send): the Solidity contract with text arguments, a wasm one with --abi.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AbiCoder, getAddress, Interface } from 'ethers';
import { runCli, spawnNode, rpcCall, type CliRun, type NodeProcess } from './helpers/process.ts';
import { refused, succeeded } from './helpers/cli-assert.ts';
import { testAddress } from './helpers/node.ts';
import { ChainClient, callByName, callSystem, callWasm, CNS_INVOKE_ADDRESS, sendSystem, sendWasm, systemCall, wasmContract } from '../generated/client/index.ts';
import { runAdminCommand } from '../src/admin-command.ts';
import { encodeArg, encodeCall } from '../src/codec/venachain-call.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { compile } from './helpers/solc.ts';
import { clangAvailable, compileC } from './helpers/wasm-c.ts';
import { encodeWasmDeploy } from '../src/codec/wasm-abi.ts';

const compiled = compile(`
pragma solidity ^0.8.20;
contract Token {
    string private tag;
    int64 public value;
    constructor(string memory t) { tag = t; }
    function version() external view returns (string memory) { return tag; }
    function set(int64 v) external { value = v; }
}`).Token!;
const token = new Interface(compiled.abi);
const dir = mkdtempSync(join(tmpdir(), 'chain-node-admin-cns-'));
let node: NodeProcess;
let client: ChainClient;
let dev: string;
let v1: string;
let v2: string;

async function deploy(tag: string): Promise<string> {
  const hash = await rpcCall(node.url, 'eth_sendTransaction', [{ from: dev, data: compiled.bytecode + AbiCoder.defaultAbiCoder().encode(['string'], [tag]).slice(2), gas: '0x2dc6c0' }]);
  for (;;) {
    const r = await rpcCall(node.url, 'eth_getTransactionReceipt', [hash]);
    if (r) return r.contractAddress;
    await new Promise((res) => setTimeout(res, 20));
  }
}

const admin = (...args: string[]): Promise<CliRun> => runCli(['admin', ...args, '--rpc', node.url]);

async function adminInProcess(...args: string[]): Promise<CliRun> {
  let output = '';
  const exit = await runAdminCommand([...args, '--rpc', node.url], (line) => (output += line + '\n'), (line) => (output += line + '\n'));
  return { exit, output };
}

/** Token.version() by name through the SDK: the forwarded call reaches Solidity as version() */
async function versionByName(name: string): Promise<string> {
  const answer = await client.eth.call({ ...callByName(name, { data: bytesToHex(encodeCall('version')) }) }, 'latest');
  return token.decodeFunctionResult('version', answer)[0];
}

test.before(async () => {
  node = await spawnNode(['--datadir', join(dir, 'data'), '--http.port', '0', '--p2p.port', '0', '--dev.period', '0']);
  client = ChainClient.http(node.url);
  [dev] = await rpcCall(node.url, 'eth_accounts');
  v1 = await deploy('v1');
  v2 = await deploy('v2');
});

test.after(async () => {
  await client?.close();
  node?.child.kill('SIGTERM');
  await node?.exited;
  rmSync(dir, { recursive: true, force: true });
});

test('--help lists the cns and fw commands', async () => {
  const run = await adminInProcess('--help');
  for (const c of ['cns register', 'cns redirect', 'cns call|send', 'cns resolve', 'cns list', 'cns by-origin', 'cns state', 'cns import', 'fw open', 'fw add|del|set', 'fw clear', 'fw status', 'fw import']) {
    assert.ok(run.output.includes(c), `--help lacks ${c}`);
  }
});

test('cns: registered by the CLI, resolved, listed; called by name and given a second version through the SDK; redirected back by the CLI', async () => {
  succeeded(await admin('cns', 'register', 'token', '1.0.0.1', v1), new RegExp(`^token 1\\.0\\.0\\.1 registered to ${v1} \\(block \\d+, tx 0x[0-9a-f]{64}\\)`));
  succeeded(await adminInProcess('cns', 'resolve', 'token'), new RegExp(`^${getAddress(v1)}$`, 'm'));
  const list = await adminInProcess('cns', 'list');
  succeeded(list, new RegExp(`^token\\s+1\\.0\\.0\\.1\\s+${v1}\\s+${dev}\\s+\\d+$`, 'm'));
  succeeded(await adminInProcess('cns', 'state', 'token'), /^token: registered$/m);
  succeeded(await adminInProcess('cns', 'state', v2), /: not registered$/m);
  assert.is(await versionByName('token'), 'v1');

  const second = await sendSystem(client, systemCall('CnsManagement', 'cnsRegister', 'token', '1.0.0.2', v2), { from: dev });
  assert.ok(second.ok, second.reason);
  assert.equal(second.events.map((e) => [e.contract, e.topic, e.code, e.message]), [['CnsManagement', '[CNS] Notify', 0n, '[CNS] cns register succeed']]);
  assert.is(await versionByName('token'), 'v2');
  const byName = await callSystem(client, systemCall('CnsManagement', 'getRegisteredContractsByName', 'token'));
  assert.equal(
    byName.data.map((r) => r.version),
    ['1.0.0.1', '1.0.0.2'],
  );
  // a write by name through the SDK: "type(value)" arguments for a Solidity target
  const set = callByName('token:1.0.0.1', { data: bytesToHex(encodeCall('set', [encodeArg('string', 'int64(4)')])) });
  const hash = await client.eth.sendTransaction({ from: dev, to: set.to, data: set.data, gas: '0x7a120' });
  for (let r; !(r = await client.eth.getTransactionReceipt(hash)); ) await new Promise((res) => setTimeout(res, 20));
  assert.is(token.decodeFunctionResult('value', await client.eth.call({ to: v1, data: token.encodeFunctionData('value') }, 'latest'))[0], 4n);

  succeeded(await admin('cns', 'redirect', 'token', '1.0.0.1'), /^token now resolves to version 1\.0\.0\.1 \(block/);
  assert.is(await versionByName('token'), 'v1');
  succeeded(await adminInProcess('cns', 'list', '--json'), /"version": "1\.0\.0\.2"/);
});

test('cns call|send: a Solidity contract by name through the CLI (text arguments), redirected to the other version and called again', async () => {
  const version = async (name: string) => {
    const run = await adminInProcess('cns', 'call', name, 'version');
    succeeded(run, /^0x[0-9a-f]+$/m);
    return token.decodeFunctionResult('version', run.output.trim())[0];
  };
  assert.is(await version('token'), 'v1');
  succeeded(await admin('cns', 'send', 'token', 'set', 'int64(9)'), /^token set sent by name \(block \d+, tx 0x[0-9a-f]{64}\)/);
  assert.is(token.decodeFunctionResult('value', await client.eth.call({ to: v1, data: token.encodeFunctionData('value') }, 'latest'))[0], 9n);
  succeeded(await adminInProcess('cns', 'redirect', 'token', '1.0.0.2'), /now resolves to version 1\.0\.0\.2/);
  assert.is(await version('token'), 'v2');
  assert.is(await version('token:1.0.0.1'), 'v1');
  succeeded(await adminInProcess('cns', 'redirect', 'token', '1.0.0.1'), /now resolves to version 1\.0\.0\.1/);
  refused(await adminInProcess('cns', 'send', 'nobody', 'set', 'int64(1)'), /failed: CnsInvoke: \[CNS\] name and version is not registered in CNS: "nobody"/);
  refused(await adminInProcess('cns', 'call', 'token'), /cns call takes 2 or more argument\(s\), got 1/, 2);
});

const withClang = clangAvailable() ? test : test.skip;

withClang('cns call|send --abi and the SDK: a wasm contract deployed, registered as wtoken 1.0.0.1, called by name, a second version registered, redirected, called again', async () => {
  const c = compileC('storage');
  const abiFile = join(dir, 'storage.abi.json');
  writeFileSync(abiFile, c.abi);
  const deployWasm = async () => {
    const hash = await rpcCall(node.url, 'eth_sendTransaction', [{ from: dev, data: bytesToHex(encodeWasmDeploy(c.wasm, c.abi)), gas: '0x2dc6c0' }]);
    for (;;) {
      const r = await rpcCall(node.url, 'eth_getTransactionReceipt', [hash]);
      if (r) return r.contractAddress as string;
      await new Promise((res) => setTimeout(res, 20));
    }
  };
  const [w1, w2] = [await deployWasm(), await deployWasm()];
  const counter = async (name: string) => {
    const run = await adminInProcess('cns', 'call', name, 'getCounter', '--abi', abiFile);
    succeeded(run, /^-?\d+$/m);
    return run.output.trim();
  };
  succeeded(await admin('cns', 'register', 'wtoken', '1.0.0.1', w1), /registered/);
  succeeded(await adminInProcess('cns', 'send', 'wtoken', 'setCounter', '41', '--abi', abiFile), /^wtoken setCounter sent by name/);
  assert.is(await counter('wtoken'), '41');
  succeeded(await adminInProcess('cns', 'register', 'wtoken', '1.0.0.2', w2), /registered/);
  assert.not.equal(await counter('wtoken'), '41', 'the new version answers: its own counter');
  succeeded(await adminInProcess('cns', 'send', 'wtoken', 'setCounter', '55', '--abi', abiFile), /sent by name/);
  assert.is(await counter('wtoken:1.0.0.2'), '55');
  succeeded(await adminInProcess('cns', 'redirect', 'wtoken', '1.0.0.1'), /now resolves to version 1\.0\.0\.1/);
  assert.is(await counter('wtoken'), '41');
  // the same through the SDK: a write by name, a redirect, a read by name
  const storage = wasmContract(c.abi);
  const sent = await sendWasm(client, { from: dev, to: CNS_INVOKE_ADDRESS, call: callByName('wtoken:1.0.0.2', storage.call('setCounter', 56n)), gas: 2_000_000n });
  assert.ok(sent.ok);
  assert.ok((await sendSystem(client, systemCall('CnsManagement', 'cnsRedirect', 'wtoken', '1.0.0.2'), { from: dev })).ok);
  assert.is(await callWasm(client, CNS_INVOKE_ADDRESS, callByName('wtoken', storage.call('getCounter'))), 56n);
  assert.ok((await sendSystem(client, systemCall('CnsManagement', 'cnsRedirect', 'wtoken', '1.0.0.1'), { from: dev })).ok);
  assert.is(await callWasm(client, CNS_INVOKE_ADDRESS, callByName('wtoken', storage.call('getCounter'))), 41n);
  const json = JSON.parse((await adminInProcess('cns', 'call', 'wtoken', 'getCounter', '--abi', abiFile, '--json')).output);
  assert.equal(json, { name: 'wtoken', function: 'getCounter', result: 41 });
  refused(await adminInProcess('cns', 'call', 'wtoken', 'setCounter', 'lots', '--abi', abiFile), /argument 1 \(int64\): not an integer: "lots"/, 2);
  refused(await adminInProcess('cns', 'call', 'wtoken', 'nothing', '--abi', abiFile), /the ABI has no function "nothing"/, 2);
  refused(await adminInProcess('cns', 'list', '--abi', abiFile), /--abi is not an option of cns list/, 2);
});

test("cns refusals: the contract's reason, or a usage error naming the argument", async () => {
  refused(await adminInProcess('cns', 'register', 'token', '1.0.0.1', v1), /failed: \[CNS\] name and version is already registered/);
  refused(await adminInProcess('cns', 'register', 'token', '1.0', v1), /failed: \[CNS\] version format is invalid: version "1\.0"/);
  refused(await adminInProcess('cns', 'register', 'token', '9.0.0.0', '0x12'), /contract address: not an address/, 2);
  refused(await adminInProcess('cns', 'resolve', 'nobody'), /nobody latest: not registered/);
  refused(await adminInProcess('cns', 'import', join(dir, 'missing.json')), /cannot read the CNS data/, 2);
});

test('fw: opened by the CLI, a rule added, a stranger refused by name, status and export read back, closed', async () => {
  succeeded(await admin('fw', 'open', v1), new RegExp(`^firewall of ${v1} open \\(block`));
  const stranger = testAddress(7);
  const refusedCall = await client.eth.call({ from: stranger, ...callByName('token', { data: bytesToHex(encodeCall('version')) }) }, 'latest').catch((e: Error) => e.message);
  assert.match(refusedCall, /Permission Denied! FW : Access to contract:0x[0-9a-f]{40} by version is refused by firewall\./);
  const rulesFile = join(dir, 'fw.json');
  succeeded(await adminInProcess('fw', 'add', v1, 'accept', `${stranger}:version`), /accept list added/);
  assert.is(await client.eth.call({ from: stranger, ...callByName('token', { data: bytesToHex(encodeCall('version')) }) }, 'latest').then((r) => token.decodeFunctionResult('version', r)[0]), 'v1');
  const status = await adminInProcess('fw', 'status', v1);
  succeeded(status, new RegExp(`^${v1}: open$`, 'm'));
  assert.match(status.output, new RegExp(`^accept: ${stranger}:version$`, 'm'));
  assert.match(status.output, /^reject: -$/m);
  const exported = await adminInProcess('fw', 'export', v1);
  writeFileSync(rulesFile, exported.output);
  succeeded(await adminInProcess('fw', 'import', v2, rulesFile), /imported/);
  assert.equal((await callSystem(client, systemCall('FirewallManagement', '__sys_FwStatus', v2))).AcceptedList, [{ Addr: stranger, FuncName: 'version' }]);
  refused(await adminInProcess('fw', 'add', v1, 'allow', `${stranger}:version`), /action: accept or reject, not "allow"/, 2);
  refused(await adminInProcess('fw', 'add', v1, 'accept', 'version'), /failed: FW : error, incorrect firewall rule format/);
  succeeded(await adminInProcess('fw', 'close', v1), /closed/);
  assert.is((await callSystem(client, systemCall('FirewallManagement', '__sys_FwStatus', v1))).Active, false);
});

test.run();
