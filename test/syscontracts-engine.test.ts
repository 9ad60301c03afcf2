// The native system contracts' engine through JSON-RPC: Venachain's call encoding reaches a
// TypeScript contract at a fixed address, its state is ordinary storage (in the state root, at
// older blocks, after a restart), a failed call is a failed transaction (status 0, nothing kept,
// the reason readable through eth_call), events land in receipts and eth_getLogs, the flat gas.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Transaction, Wallet } from 'ethers';
import { mined, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { decodeEventData, decodeReturn, encodeArg, encodeCall, eventTopic, TX_TYPE_RAW_RETURN } from '../src/codec/venachain-call.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { USER_MANAGEMENT } from '../src/exec/native/system-state.ts';

let node: TestNode;
const nonces = new Map<number, number>();

async function send(who: number, data: Uint8Array, gasLimit = 200_000n): Promise<any> {
  const nonce = nonces.get(who) ?? 0;
  nonces.set(who, nonce + 1);
  const raw = await new Wallet(testKey(who)).signTransaction(Transaction.from({ to: USER_MANAGEMENT, data: bytesToHex(data), gasLimit, gasPrice: 0n, chainId: 300, nonce }));
  return mined(node, await node.rpc('eth_sendRawTransaction', [raw]));
}

const call = (data: Uint8Array, from = testAddress(0), block = 'latest') => node.raw('eth_call', [{ from, to: USER_MANAGEMENT, data: bytesToHex(data) }, block]);

async function roles(address: string, block = 'latest'): Promise<string[]> {
  const res = await call(encodeCall('getRolesByAddress', [encodeArg('address', address)]), testAddress(0), block);
  return JSON.parse(decodeReturn(2n, 'string', Buffer.from(res.result.slice(2), 'hex')) as string);
}

const dir = mkdtempSync(join(tmpdir(), 'chain-node-syscontracts-'));

test.before(async () => {
  node = await startTestNode({ dir });
});

test.after(async () => {
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a genesis-file chain starts with no super admin; the first setSuperAdmin makes its caller one, with an event and the flat gas', async () => {
  assert.equal(await roles(testAddress(0)), []);
  const before = await node.rpc('eth_getBlockByNumber', ['latest', false]);
  const receipt = await send(0, encodeCall('setSuperAdmin'));
  assert.is(receipt.status, '0x1');
  // 21,000 intrinsic + calldata + the flat 80,000
  const data = encodeCall('setSuperAdmin');
  const calldata = [...data].reduce((g, b) => g + (b === 0 ? 4 : 16), 0);
  assert.is(BigInt(receipt.gasUsed), 21_000n + BigInt(calldata) + 80_000n);
  assert.is(receipt.logs.length, 1);
  const log = receipt.logs[0];
  assert.is(log.address, USER_MANAGEMENT);
  assert.equal(log.topics, [bytesToHex(eventTopic('setSuperAdmin'))]);
  assert.equal(decodeEventData(Buffer.from(log.data.slice(2), 'hex')), { code: 0n, message: 'Success' });
  assert.equal(await roles(testAddress(0)), ['SUPER_ADMIN']);
  // the state root moved, and the older block still answers the state before it
  const after = await node.rpc('eth_getBlockByNumber', ['latest', false]);
  assert.is.not(after.stateRoot, before.stateRoot);
  assert.equal(await roles(testAddress(0), before.number), []);
  const logs = await node.rpc('eth_getLogs', [{ address: USER_MANAGEMENT, topics: [bytesToHex(eventTopic('setSuperAdmin'))], fromBlock: '0x0' }]);
  assert.is(logs.length, 1);
});

test('a failing call is a failed transaction: status 0, no logs, nothing changed; eth_call answers the reason', async () => {
  const root = (await node.rpc('eth_getBlockByNumber', ['latest', false])).stateRoot;
  const receipt = await send(1, encodeCall('setSuperAdmin'));
  assert.is(receipt.status, '0x0');
  assert.is(receipt.logs.length, 0);
  assert.equal(await roles(testAddress(1)), []);
  const res = await call(encodeCall('setSuperAdmin'), testAddress(1));
  assert.ok(res.error, JSON.stringify(res));
  assert.match(res.error!.message, /Already Set SuperAdmin/);
  // the failed transaction paid gas: the root moved only by the sender's nonce and balance
  assert.is.not((await node.rpc('eth_getBlockByNumber', ['latest', false])).stateRoot, root);
});

test('bad call data is refused with a reason: not RLP, unknown method, wrong argument count, bad argument', async () => {
  const cases: [Uint8Array, RegExp][] = [
    [new Uint8Array([0x12, 0x34]), /not RLP|RLP list/],
    [encodeCall('noSuchMethod'), /no method "noSuchMethod"/],
    [encodeCall('getRolesByAddress'), /takes 1 argument\(s\), got 0/],
    [encodeCall('getRolesByAddress', [new TextEncoder().encode('0x12')]), /argument 1 \(address\): not an address/],
  ];
  for (const [data, reason] of cases) {
    const res = await call(data);
    assert.ok(res.error, `expected an error for ${bytesToHex(data)}`);
    assert.match(res.error!.message, reason);
  }
});

test('txType 9 asks for raw returns: an integer as 8 bytes, a string as its bytes', async () => {
  const has = await call(encodeCall('hasRole', [encodeArg('address', testAddress(0)), encodeArg('string', 'SUPER_ADMIN')], TX_TYPE_RAW_RETURN));
  assert.is(has.result, '0x0000000000000000000000000000000000000000000000000000000000000001'.slice(0, 2) + '0000000000000001');
  const list = await call(encodeCall('getRolesByAddress', [encodeArg('address', testAddress(0))], TX_TYPE_RAW_RETURN));
  assert.is(Buffer.from(list.result.slice(2), 'hex').toString(), '["SUPER_ADMIN"]');
  const word = await call(encodeCall('hasRole', [encodeArg('address', testAddress(0)), encodeArg('string', 'SUPER_ADMIN')]));
  assert.is(BigInt(word.result), 1n);
  assert.is(word.result.length, 66);
});

test('too little gas for the flat charge: out of gas, nothing kept', async () => {
  const receipt = await send(2, encodeCall('setSuperAdmin'), 90_000n);
  assert.is(receipt.status, '0x0');
  assert.is(receipt.gasUsed, '0x15f90');
});

test('the contract state survives a restart', async () => {
  await node.stop();
  node = await startTestNode({ dir });
  assert.equal(await roles(testAddress(0)), ['SUPER_ADMIN']);
});

test('a new dev chain starts governed: the dev account is super admin and chain admin', async () => {
  const dev = await startTestNode({ dev: true });
  try {
    const [account] = await dev.rpc<string[]>('eth_accounts');
    const res = await dev.raw('eth_call', [{ to: USER_MANAGEMENT, data: bytesToHex(encodeCall('getRolesByAddress', [encodeArg('address', account!)])) }, 'latest']);
    assert.equal(JSON.parse(decodeReturn(2n, 'string', Buffer.from(res.result.slice(2), 'hex')) as string), ['SUPER_ADMIN', 'CHAIN_ADMIN']);
  } finally {
    await dev.stop();
  }
});

test.run();
