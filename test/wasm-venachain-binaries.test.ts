// Venachain's own wasm contracts, as its repository ships them (perf_test/data/cnsManager.wasm and
// nodeRegister.wasm, 137 KB and 148 KB, built by its older toolchain: they import bcosCall*), deploy
// unchanged through JSON-RPC on a dev node and answer their constant calls. The files are not part
// of this repository: set VENACHAIN_DIR to a Venachain checkout; without it the tests log why they
// are skipped and pass.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RLP } from '@ethereumjs/rlp';
import { mined, startTestNode, type TestNode } from './helpers/node.ts';
import { decodeWasmReturn, encodeWasmCall, encodeWasmDeploy, findWasmFunction, parseWasmAbi, wasmReturnType, type WasmAbi, type WasmValue } from '../src/codec/wasm-abi.ts';
import { TX_TYPE_CALL } from '../src/codec/venachain-call.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

const DATA = process.env.VENACHAIN_DIR === undefined ? undefined : join(process.env.VENACHAIN_DIR, 'perf_test', 'data');
const FILES = ['cnsManager.wasm', 'cnsManager.cpp.abi.json', 'nodeRegister.wasm', 'nodeRegister.cpp.abi.json'];
const absent = DATA === undefined ? 'VENACHAIN_DIR is not set' : FILES.filter((f) => !existsSync(join(DATA, f))).map((f) => join(DATA, f))[0];

interface Deployed {
  address: string;
  abi: WasmAbi;
}

let node: TestNode;

/** its Notify event's data: RLP([code, message]) */
function decodeNotify(data: string): [bigint, string] {
  const [code, message] = RLP.decode(hexToBytes(data)) as Uint8Array[];
  return [code!.length === 0 ? 0n : BigInt(bytesToHex(code!)), Buffer.from(message!).toString()];
}
let from: string;

async function deploy(name: string): Promise<Deployed> {
  const wasm = readFileSync(join(DATA!, `${name}.wasm`));
  const abiText = readFileSync(join(DATA!, `${name}.cpp.abi.json`), 'utf8');
  const data = encodeWasmDeploy(wasm, abiText);
  assert.ok(data.length > 131_072, `${name}: ${data.length} bytes, over geth's 128 KiB`);
  const receipt = await mined(node, await node.rpc('eth_sendTransaction', [{ from, data: bytesToHex(data), gas: '0x1c9c380' }]));
  assert.is(receipt.status, '0x1', `${name} deployed`);
  const code = await node.rpc('eth_getCode', [receipt.contractAddress, 'latest']);
  assert.is(code, bytesToHex(data), 'the code is the deploy data, unchanged');
  return { address: receipt.contractAddress, abi: parseWasmAbi(abiText) };
}

async function ask(c: Deployed, fn: string, args: WasmValue[] = []): Promise<WasmValue | undefined> {
  const answer = await node.rpc('eth_call', [{ from, to: c.address, data: bytesToHex(encodeWasmCall(c.abi, fn, args)) }, 'latest']);
  return decodeWasmReturn(wasmReturnType(findWasmFunction(c.abi, fn)!), TX_TYPE_CALL, hexToBytes(answer));
}

async function send(c: Deployed, fn: string, args: WasmValue[]): Promise<any> {
  return mined(node, await node.rpc('eth_sendTransaction', [{ from, to: c.address, data: bytesToHex(encodeWasmCall(c.abi, fn, args)), gas: '0x1c9c380' }]));
}

if (absent !== undefined) {
  console.log(`wasm-venachain-binaries: skipped: ${absent}`);
  test('Venachain perf_test binaries (skipped: files absent)', () => {});
} else {
  test.before(async () => {
    node = await startTestNode({ dev: true });
    [from] = await node.rpc('eth_accounts');
  });
  test.after(() => node?.stop());

  test('cnsManager.wasm deploys unchanged and answers its constant calls; a registration it takes is answered back', async () => {
    const cns = await deploy('cnsManager');
    assert.is(await ask(cns, 'ifRegisteredByName', ['token']), 0n);
    assert.is(await ask(cns, 'getContractAddress', ['token', 'latest']), '');
    const empty = JSON.parse((await ask(cns, 'getRegisteredContracts', [0, 10])) as string);
    assert.is(empty.code, 0, JSON.stringify(empty));
    // a contract the sender created (its rule: the origin must own what it registers): cnsManager itself
    const r = await send(cns, 'cnsRegister', ['token', '1.0.0.1', cns.address]);
    assert.is(r.status, '0x1');
    assert.equal(r.logs.map((l: { data: string }) => decodeNotify(l.data)), [[0n, 'cnsRegister succeed!']]);
    assert.is(await ask(cns, 'ifRegisteredByName', ['token']), 1n);
    assert.is(await ask(cns, 'getContractAddress', ['token', 'latest']), cns.address);
    assert.is(await ask(cns, 'getContractAddress', ['token', '1.0.0.1']), cns.address);
    const record = { name: 'token', version: '1.0.0.1', address: cns.address, origin: from, enabled: true };
    const all = JSON.parse((await ask(cns, 'getRegisteredContracts', [0, 10])) as string);
    assert.is(all.data.total, 1);
    assert.equal({ ...all.data.contract[0], create_time: undefined }, { ...record, create_time: undefined });
    // its origin argument without 0x (its formatAddress adds it), as Venachain's tools pass it
    const mine = JSON.parse((await ask(cns, 'getRegisteredContractsByAddress', [from.slice(2), 0, 10])) as string);
    assert.is(mine.data.contract[0].address, cns.address);
    const history = JSON.parse((await ask(cns, 'getHistoryContractsByName', ['token'])) as string);
    assert.is(history.data.contract.length, 1);
    // a second registration of the same version is refused by its own rule, in its own words
    const again = await send(cns, 'cnsRegister', ['token', '1.0.0.1', cns.address]);
    assert.is(decodeNotify(again.logs[0].data)[0], 1n, 'FAILURE');
  });

  test('nodeRegister.wasm deploys unchanged and answers its constant calls; registerNode answers its own refusal', async () => {
    const reg = await deploy('nodeRegister');
    for (const [fn, args] of [
      ['getRegisterInfoByStatus', [1, 0, 10]],
      ['getRegisterInfoByPublicKey', ['ab'.repeat(64)]],
      ['getRegisterInfoByOwnerAddress', [from]],
    ] as [string, WasmValue[]][]) {
      const answer = await ask(reg, fn, args);
      assert.type(answer, 'string', fn);
      assert.equal(JSON.parse(answer as string), { code: 1, msg: "Can't find info", data: [] }, fn);
    }
    const key = 'ab'.repeat(64);
    const nodeJson = JSON.stringify({ name: 'node1', type: 1, publicKey: key, desc: 'first node', externalIP: '127.0.0.1', internalIP: '127.0.0.1', rpcPort: 6791, p2pPort: 16791, root: false });
    const r = await send(reg, 'registerNode', [nodeJson]);
    assert.is(r.status, '0x1');
    // its permission check asks for role contracts registered in CNS by name, which this chain has not: refused in its own words
    const [code, message] = decodeNotify(r.logs.at(-1).data);
    assert.ok(code !== 0n && /have not permission to register node/.test(message), message);
    assert.equal(JSON.parse((await ask(reg, 'getRegisterInfoByPublicKey', [key])) as string).code, 1, 'nothing registered');
  });
}

test.run();
