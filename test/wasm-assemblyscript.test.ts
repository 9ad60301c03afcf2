// A contract written in AssemblyScript, end to end: `npm run build:contract` on the template token
// writes its wasm, ABI and deploy data; the SDK's helpers deploy it to a real dev node
// (eth_sendTransaction) and use it (eth_call, transactions), a raw transaction signed elsewhere
// calls it too; transfers move balances, log their event (receipt and eth_getLogs), and a transfer
// above the balance fails with status 0 and changes nothing.
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
import { ChainClient, callWasm, deployWasm, sendWasm, wasmContract, type WasmAbi, type WasmContract } from '../generated/client/index.ts';
import { buildContract, ContractBuildError } from '../sdk/assemblyscript/build.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { mined, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const TEMPLATE = join(root, 'sdk/assemblyscript/template/token.ts');
const ZERO = '0x0000000000000000000000000000000000000000';

let node: TestNode;
let client: ChainClient;
let out: string;
let dev: string;
let wasm: Uint8Array;
let abi: WasmAbi;
let token: WasmContract<WasmAbi>;
let address: string;

test.before(async () => {
  out = mkdtempSync(join(tmpdir(), 'wasm-as-'));
  const t0 = performance.now();
  const { stdout } = await promisify(execFile)('npm', ['run', '-s', 'build:contract', '--', TEMPLATE, '--out', out], { cwd: root, encoding: 'utf8' });
  console.log(`wasm-assemblyscript: npm run build:contract ${Math.round(performance.now() - t0)} ms (${stdout.trim()})`);
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
  // a key the dev chain never funded: its gas costs nothing at price 0, and it holds no tokens
  const wallet = new Wallet(testKey(5));
  const raw = await wallet.signTransaction(
    Transaction.from({ to: address, data: token.call('transfer', dev, 1n).data, gasLimit: 5_000_000n, gasPrice: 0n, chainId: 300n, nonce: 0 }),
  );
  const receipt = await mined(node, await node.rpc('eth_sendRawTransaction', [raw]));
  assert.is(receipt.status, '0x0');
  assert.equal(receipt.logs, []);
  const tooMuch = await sendWasm(client, { from: dev, to: address, call: token.call('transfer', testAddress(1), 10n ** 9n) });
  assert.equal([tooMuch.ok, tooMuch.events], [false, []]);
  assert.is(await callWasm(client, address, token.call('balanceOf', dev)), 999_750n);
  assert.is(await callWasm(client, address, token.call('balanceOf', testAddress(1))), 250n);
});

test('a build error names the function and parameter; nothing is written', async () => {
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
