// Contracts written in AssemblyScript, end to end: `npm run build:contract` on the template token
// writes its wasm, ABI and deploy data; the SDK's helpers deploy it to a real dev node
// (eth_sendTransaction) and use it (eth_call, transactions), a raw transaction signed elsewhere
// calls it too; transfers move balances, log their event (receipt and eth_getLogs), and a transfer
// above the balance fails with status 0 and changes nothing. A second contract
// (test/wasm/assemblyscript/values.ts, deployed by eth_sendRawTransaction) takes every ABI type
// through exported signatures, storage and an event, reads the chain context, hashes, calls a
// second instance of itself, pays out value, and fails through AssemblyScript's assert.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Transaction, Wallet } from 'ethers';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ChainClient, RpcError, TX_TYPE_RAW_RETURN, callWasm, deployWasm, sendWasm, wasmContract, type WasmAbi, type WasmCall, type WasmContract } from '../generated/client/index.ts';
import { buildContract, ContractBuildError, type BuiltContract } from '../sdk/assemblyscript/build.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { mined, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const TEMPLATE = join(root, 'sdk/assemblyscript/template/token.ts');
const VALUES = join(root, 'test/wasm/assemblyscript/values.ts');
const ZERO = '0x0000000000000000000000000000000000000000';

let node: TestNode;
let client: ChainClient;
let out: string;
let dev: string;
let wasm: Uint8Array;
let abi: WasmAbi;
let token: WasmContract<WasmAbi>;
let address: string;
let values: BuiltContract;

/** A raw transaction from a key the dev chain never funded: its gas costs nothing at price 0. */
async function sendRaw(to: string | null, data: string, nonce: number): Promise<any> {
  const raw = await new Wallet(testKey(5)).signTransaction(Transaction.from({ to, data, gasLimit: 5_000_000n, gasPrice: 0n, chainId: 300n, nonce }));
  return mined(node, await node.rpc('eth_sendRawTransaction', [raw]));
}

test.before(async () => {
  out = mkdtempSync(join(tmpdir(), 'wasm-as-'));
  const t0 = performance.now();
  const [{ stdout }] = await Promise.all([
    promisify(execFile)('npm', ['run', '-s', 'build:contract', '--', TEMPLATE, '--out', out], { cwd: root, encoding: 'utf8' }),
    buildContract(VALUES).then((built) => (values = built)),
  ]);
  console.log(`wasm-assemblyscript: npm run build:contract ${Math.round(performance.now() - t0)} ms beside a second build (${stdout.trim()})`);
  node = await startTestNode({ dev: true });
  client = ChainClient.http(node.url);
  dev = node.devAccount!.toLowerCase();
});
test.after(async () => {
  await client?.close();
  await node?.stop();
  rmSync(out, { recursive: true, force: true });
});

test('npm run build:contract writes the wasm, its ABI and the deploy data; the module is shaped as a BCWasm one', () => {
  wasm = readFileSync(join(out, 'token.wasm'));
  abi = JSON.parse(readFileSync(join(out, 'token.abi.json'), 'utf8')) as WasmAbi;
  token = wasmContract(abi);
  assert.equal(
    abi.map((e) => [e.type, e.name, e.inputs.map((p) => `${p.name}:${p.type}`).join(','), e.outputs.map((p) => p.type).join(','), e.constant]),
    [
      ['function', 'name', '', 'string', 'true'],
      ['function', 'symbol', '', 'string', 'true'],
      ['function', 'totalSupply', '', 'uint64', 'true'],
      ['function', 'balanceOf', 'owner:string', 'uint64', 'true'],
      ['function', 'transfer', 'to:string,amount:uint64', 'bool', 'false'],
      ['event', 'Transfer', 'from:string,to:string,amount:uint64', '', 'false'],
    ],
  );
  assert.is(readFileSync(join(out, 'token.deploy.hex'), 'utf8').trim(), token.encodeDeploy(wasm));
  const module = new WebAssembly.Module(wasm);
  assert.ok(WebAssembly.Module.imports(module).every((i) => i.module === 'env' && i.kind === 'function'), 'only env functions imported (no memory)');
  const exports = WebAssembly.Module.exports(module).map((e) => `${e.kind}:${e.name}`);
  for (const e of ['memory:memory', 'function:init', 'function:malloc', 'function:transfer', 'function:balanceOf']) assert.ok(exports.includes(e), e);
  assert.not.ok(exports.some((e) => e.includes('start')), 'no start function exported');
});

test('deployed through the SDK: init gives the deployer the supply and logs it; eth_call reads strings and integers', async () => {
  const deployed = await deployWasm(client, { from: dev, wasm, abi });
  address = deployed.address;
  assert.equal(deployed.events, [{ name: 'Transfer', values: [ZERO, dev, 1_000_000n], args: { from: ZERO, to: dev, amount: 1_000_000n } }]);
  assert.is(await node.rpc('eth_getCode', [address, 'latest']), token.encodeDeploy(wasm), 'the stored code is the deploy data');
  assert.is(await callWasm(client, address, token.call('name')), 'Template Token');
  assert.is(await callWasm(client, address, token.call('symbol')), 'TTK');
  assert.is(await callWasm(client, address, token.call('totalSupply')), 1_000_000n);
  assert.is(await callWasm(client, address, token.call('balanceOf', dev)), 1_000_000n);
  assert.is(await callWasm(client, address, token.call('balanceOf', testAddress(1))), 0n);
});

test('transfer: balances move (any address case), the event is in the receipt and in eth_getLogs', async () => {
  const to = testAddress(1).toUpperCase().replace('0X', '0x');
  const sent = await sendWasm(client, { from: dev, to: address, call: token.call('transfer', to, 250n) });
  assert.is(sent.ok, true);
  const moved = { from: dev, to: testAddress(1).toLowerCase(), amount: 250n };
  assert.equal(sent.events.map((e) => e.args), [moved]);
  assert.is(await callWasm(client, address, token.call('balanceOf', dev)), 999_750n);
  assert.is(await callWasm(client, address, token.call('balanceOf', testAddress(1))), 250n);
  const topic = bytesToHex(keccak_256(new TextEncoder().encode('Transfer')));
  const logs = await client.eth.getLogs({ address, topics: [topic], fromBlock: '0x0', toBlock: 'latest' });
  assert.equal(logs.map((l) => token.decodeEvent(l)?.args), [{ from: ZERO, to: dev, amount: 1_000_000n }, moved]);
  assert.is(logs[1]!.transactionHash, sent.receipt.transactionHash);
});

test('a transfer above the balance fails (status 0, nothing changed, no event): a raw transaction and the SDK', async () => {
  // testKey(5) holds no tokens
  const receipt = await sendRaw(address, token.call('transfer', dev, 1n).data, 0);
  assert.is(receipt.status, '0x0');
  assert.equal(receipt.logs, []);
  const tooMuch = await sendWasm(client, { from: dev, to: address, call: token.call('transfer', testAddress(1), 10n ** 9n) });
  assert.equal([tooMuch.ok, tooMuch.events], [false, []]);
  assert.is(await callWasm(client, address, token.call('balanceOf', dev)), 999_750n);
  assert.is(await callWasm(client, address, token.call('balanceOf', testAddress(1))), 250n);
});

test('every ABI type crosses signatures, storage and an event; context, sha3, calls out and a payout work; an assert fails the call', async () => {
  const receipt = await sendRaw(null, bytesToHex(values.deployData), 1);
  assert.is(receipt.status, '0x1', 'deployed by eth_sendRawTransaction');
  const at = receipt.contractAddress as string;
  const c = wasmContract(values.abi);
  const q = <R>(call: WasmCall<string, R>) => callWasm(client, at, call);
  const ints = [-128n, 255n, -32768n, 65535n, -2147483648n, 4294967295n, -(10n ** 12n), 10n ** 15n];
  assert.is(await q(c.call('sum', ...ints)), ints.reduce((a, b) => a + b));
  assert.equal([await q(c.call('negate8', 5n)), await q(c.call('negate8', -128n))], [-5n, -128n], 'int8 in and out, wrapping as i8 does');
  assert.equal([await q(c.call('half', 3)), await q(c.call('half', -0.5))], [1.5, -0.25]);
  assert.equal([await q(c.call('not', true)), await q(c.call('not', false))], [false, true]);
  assert.is(await q(c.call('greet', 'wörld')), 'héllo, wörld ✓');
  const raw = await client.eth.call({ to: at, data: c.encodeCall('greet', ['wörld'], TX_TYPE_RAW_RETURN) }, 'latest');
  assert.is(c.decodeResult('greet', raw, TX_TYPE_RAW_RETURN), 'héllo, wörld ✓', 'txType 9: the raw UTF-8');

  const sent = await sendWasm(client, { from: dev, to: at, call: c.call('remember', 7, 'ünïcode', -5n) });
  assert.is(sent.ok, true);
  assert.equal(sent.events[0]?.args, { a: -5n, b: 65531n, c: -5n, d: -5n, e: true, f: -1.25, s: 'ünïcode' });
  assert.is(await q(c.call('nameOf', 7)), 'ünïcode');
  assert.is(await q(c.call('valueOf', 'ünïcode')), -5n);
  assert.is(await q(c.call('valueOf', 'other')), -1n, 'an absent key reads as the fallback');
  assert.match(String(await q(c.call('where'))), new RegExp(`^${at.toLowerCase()}@\\d+$`));
  // deployed by testKey(5): the dev account is not its owner
  const context = (from: string, value: string) => client.eth.call({ from, to: at, data: c.call('context').data, value }, 'latest').then((r) => c.decodeResult('context', r));
  assert.is(await context(dev, '0x5'), `${dev} ${dev} 5 5 false true false true`, 'origin, caller, value, balance, isOwner, isFromInit in init and now, timestamp');
  const deployer = testAddress(5).toLowerCase();
  assert.is(await context(deployer, '0x0'), `${deployer} ${deployer} 0 0 true true false true`, 'the deployer owns it');

  const digest = bytesToHex(keccak_256(new TextEncoder().encode('ünïcode')));
  assert.is(await q(c.call('hash', 'ünïcode')), digest, 'sha3');

  // calls to another contract (a second instance), each integer width at its ABI width
  const other = (await sendRaw(null, bytesToHex(values.deployData), 2)).contractAddress as string;
  assert.is(await q(c.call('callSum', other)), 4n);
  assert.is(await q(c.call('callGreet', other, 'you')), 'héllo, you ✓');
  // a value transfer out of the contract: 10 wei sent with the call, 7 paid out
  const before = BigInt(await client.eth.getBalance(testAddress(2), 'latest'));
  const paid = await sendWasm(client, { from: dev, to: at, call: c.call('payout', testAddress(2), 7n), value: 10n });
  assert.is(paid.ok, true);
  assert.is(BigInt(await client.eth.getBalance(testAddress(2), 'latest')) - before, 7n);
  assert.is(BigInt(await client.eth.getBalance(at, 'latest')), 3n);

  assert.is(await q(c.call('mustBePositive', 3)), 3n);
  await client.eth.call({ to: at, data: c.call('mustBePositive', 0).data }, 'latest').then(
    () => assert.unreachable('a failed assert answered'),
    (e: Error) => assert.instance(e, RpcError),
  );
  assert.is((await sendWasm(client, { from: dev, to: at, call: c.call('mustBePositive', 0) })).ok, false);
});

test('a build error names the function and parameter', async () => {
  const file = join(out, 'bad.ts');
  writeFileSync(file, 'export function store(values: Array<i32>): void {}\n');
  try {
    await buildContract(file);
    assert.unreachable('an Array parameter was accepted');
  } catch (e) {
    assert.instance(e, ContractBuildError);
    assert.match((e as Error).message, /exported function store, parameter values: only .*string.* cross into a contract call/);
  }
});

test.run();
