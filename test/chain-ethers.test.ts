// A dapp developer's path through a real client: ethers v6 against a real node deploys a Solidity
// contract compiled here by solc, transacts, reads events, storage, reverts and history.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ContractFactory, JsonRpcProvider, Wallet, keccak256, AbiCoder, zeroPadValue, toBeHex, type Contract } from 'ethers';
import { startTestNode, testKey, testAddress, type TestNode } from './helpers/node.ts';
import { closePollingProvider } from './helpers/ethers-provider.ts';
import { compile } from './helpers/solc.ts';

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Store {
  uint256 public count;                         // slot 0
  mapping(address => uint256) public balances;  // slot 1
  event Stored(address indexed who, uint256 value);
  function set(uint256 v) external {
    require(v != 0, "zero not allowed");
    count = v;
    balances[msg.sender] = v;
    emit Stored(msg.sender, v);
  }
  function get() external view returns (uint256) { return count; }
}`;

let node: TestNode;
let provider: JsonRpcProvider;
let wallet: Wallet;
let store: Contract;
const { Store } = compile(SOURCE);

test.before(async () => {
  node = await startTestNode();
  provider = new JsonRpcProvider(node.url, undefined, { pollingInterval: 20, staticNetwork: true, cacheTimeout: -1 });
  wallet = new Wallet(testKey(0), provider);
});

test.after(async () => {
  await closePollingProvider(provider);
  await node.stop();
});

test('ethers sees the chain id and a funded account', async () => {
  assert.is((await provider.getNetwork()).chainId, 300n);
  assert.is(await provider.getBalance(testAddress(0)), 10n ** 24n);
});

test('deploys a contract with ContractFactory and reads the creator', async () => {
  const factory = new ContractFactory(Store!.abi, Store!.bytecode, wallet);
  store = (await factory.deploy()) as Contract;
  await store.waitForDeployment();
  const address = await store.getAddress();
  assert.ok((await provider.getCode(address)).length > 2, 'code is deployed');
  const info = await node.rpc('eth_getAccountBaseInfo', [address, 'latest']);
  assert.is(info.IsContract, true);
  assert.is(info.Creator, testAddress(0));
});

test('transacts, waits for the receipt and decodes the event', async () => {
  const tx = await store.getFunction('set')(42n);
  const receipt = await tx.wait();
  assert.ok(receipt, 'receipt');
  assert.is(receipt!.status, 1);
  const parsed = receipt!.logs.map((l: { topics: readonly string[]; data: string }) => store.interface.parseLog(l)).filter(Boolean);
  assert.is(parsed.length, 1);
  assert.is(parsed[0]!.name, 'Stored');
  assert.is(parsed[0]!.args[0], wallet.address);
  assert.is(parsed[0]!.args[1], 42n);
  assert.is(await store.getFunction('get')(), 42n);
});

test('reads a plain slot and a mapping member with getStorageAt (the spec slot rule)', async () => {
  const address = await store.getAddress();
  assert.is(await provider.getStorage(address, 0), zeroPadValue(toBeHex(42), 32));
  const slot = keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [wallet.address, 1]));
  assert.is(await provider.getStorage(address, slot), zeroPadValue(toBeHex(42), 32));
  const raw = await node.rpc('eth_getStorageAt', [address, '0x0', 'latest']);
  assert.is(raw.length, 66, '32 bytes');
});

test('a require revert reaches ethers with its reason', async () => {
  try {
    await store.getFunction('set')(0n);
    assert.unreachable('should revert');
  } catch (e) {
    const err = e as { code?: string; reason?: string };
    assert.is(err.code, 'CALL_EXCEPTION');
    assert.is(err.reason, 'zero not allowed');
  }
  const r = await node.raw('eth_call', [{ to: await store.getAddress(), data: store.interface.encodeFunctionData('set', [0]) }, 'latest']);
  assert.is(r.error?.code, 3);
  assert.is(r.error?.message, 'execution reverted: zero not allowed');
  assert.ok(String(r.error?.data).startsWith('0x08c379a0'));
});

test('eth_call answers from the state of the block asked for, also alternating between blocks', async () => {
  // the call runner remembers what it read per state root: it must never answer one block's call
  // with another block's storage, whichever order the blocks are asked in
  const address = await store.getAddress();
  const get = store.interface.encodeFunctionData('get', []);
  const at = async (block: number | string) => BigInt(await node.rpc('eth_call', [{ to: address, data: get }, typeof block === 'number' ? '0x' + block.toString(16) : block]));
  const first = await provider.getBlockNumber();
  const count = await at(first);
  await (await store.getFunction('set')(count + 1n)).wait();
  const second = await provider.getBlockNumber();
  await (await store.getFunction('set')(count + 2n)).wait();
  for (const [block, want] of [[first, count], ['latest', count + 2n], [second, count + 1n], [first, count], [second, count + 1n], ['pending', count + 2n]] as const) {
    assert.is(await at(block), want, `get() at ${block}`);
  }
});

test('balances are queryable at older blocks (archive)', async () => {
  const before = await provider.getBlockNumber();
  const balanceBefore = await provider.getBalance(testAddress(1));
  const tx = await wallet.sendTransaction({ to: testAddress(1), value: 12345n });
  await tx.wait();
  assert.is(await provider.getBalance(testAddress(1)), balanceBefore + 12345n);
  assert.is(await provider.getBalance(testAddress(1), before), balanceBefore);
});

test.run();
