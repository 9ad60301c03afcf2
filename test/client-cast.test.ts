// Foundry's `cast` as a user runs it, against a real node: each command a child process, its
// output checked (parsed where it prints JSON). The commands run asynchronously: the node serves
// from this process's event loop.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestNode, testKey, testAddress, type TestNode } from './helpers/node.ts';
import { compile } from './helpers/solc.ts';
import { runCast } from './helpers/cast.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Counter {
  uint256 public count;
  event Bumped(address indexed by, uint256 count);
  function bump(uint256 by) external { count += by; emit Bumped(msg.sender, count); }
}`;

let node: TestNode;
let counter: string;
const FROM = testAddress(0);

const cast = (command: string, ...args: string[]) => runCast(node.url, command, ...args);

const castJson = async (command: string, ...args: string[]) => JSON.parse(await cast(command, '--json', ...args));
const send = (...args: string[]) => castJson('send', '--private-key', testKey(0), ...args);

test.before(async () => {
  node = await startTestNode();
});

test.after(async () => {
  await node?.stop();
});

test('cast chain-id, gas-price, base-fee, block', async () => {
  assert.is(await cast('chain-id'), '300');
  assert.is(BigInt(await cast('gas-price')), BigInt(await node.rpc('eth_gasPrice')));
  const head = await node.rpc('eth_getBlockByNumber', ['latest', false]);
  assert.is(BigInt(await cast('base-fee')), BigInt(head.baseFeePerGas));
  const block = await castJson('block', 'latest');
  assert.is(block.hash, head.hash);
  assert.is(BigInt(block.number), BigInt(head.number));
});

test('cast send --create deploys a contract', async () => {
  const receipt = await send('--create', compile(SOURCE).Counter!.bytecode);
  assert.is(receipt.status, '0x1');
  counter = receipt.contractAddress;
  assert.match(counter, /^0x[0-9a-f]{40}$/);
  assert.is.not(await node.rpc('eth_getCode', [counter, 'latest']), '0x');
});

test('cast estimate is the gas cast send (EIP-1559 by default) then uses; cast receipt/tx --json', async () => {
  const estimate = BigInt(await cast('estimate', '--from', FROM, counter, 'bump(uint256)', '5'));
  const receipt = await send(counter, 'bump(uint256)', '5');
  assert.is(receipt.status, '0x1');
  assert.is(receipt.type, '0x2', 'cast sends EIP-1559 transactions by default');
  assert.is(BigInt(receipt.gasUsed), estimate);
  const again = await castJson('receipt', receipt.transactionHash);
  assert.is(again.blockHash, receipt.blockHash);
  assert.is(again.logs.length, 1);
  const tx = await castJson('tx', receipt.transactionHash);
  assert.is(tx.hash, receipt.transactionHash);
  assert.is(tx.from.toLowerCase(), FROM);
  assert.is(tx.type, '0x2');
  assert.ok(tx.maxFeePerGas !== undefined && tx.maxPriorityFeePerGas !== undefined);
});

test('cast send --legacy, cast call and cast storage read the new count', async () => {
  const receipt = await send('--legacy', counter, 'bump(uint256)', '2');
  assert.is(receipt.status, '0x1');
  assert.is(receipt.type, '0x0');
  assert.is(await cast('call', counter, 'count()(uint256)'), '7');
  assert.is(BigInt(await cast('storage', counter, '0')), 7n);
});

test('cast logs finds both Bumped events', async () => {
  const logs = await castJson('logs', '--from-block', '0', '--address', counter, 'Bumped(address indexed,uint256)');
  assert.is(logs.length, 2);
  assert.is(BigInt(logs[1].data), 7n);
  assert.is(logs[0].topics[1], '0x' + FROM.slice(2).padStart(64, '0'));
});

test('cast proof answers the account and slot 0 with its value', async () => {
  const proof = await castJson('proof', counter, '0');
  assert.is(proof.address.toLowerCase(), counter);
  assert.ok(proof.accountProof.length > 0);
  assert.is(BigInt(proof.storageProof[0].value), 7n);
  assert.ok(proof.storageProof[0].proof.length > 0);
});

test('cast access-list lists the counter slot', async () => {
  const list = await castJson('access-list', '--from', FROM, counter, 'bump(uint256)', '1');
  const entry = list.accessList.find((e: { address: string }) => e.address.toLowerCase() === counter);
  assert.ok(entry, JSON.stringify(list));
  assert.equal(entry.storageKeys, ['0x' + '0'.repeat(64)]);
  assert.ok(BigInt(list.gasUsed) > 21_000n);
});

test('cast run replays a transaction through the tracer', async () => {
  const receipt = await send(counter, 'bump(uint256)', '1');
  const out = await cast('run', receipt.transactionHash);
  assert.match(out, /Transaction successfully executed/);
  assert.match(out, new RegExp(`Gas used: ${BigInt(receipt.gasUsed)}`));
});

test.run();
