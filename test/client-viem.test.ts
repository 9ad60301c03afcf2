// viem's public and wallet actions against a real node: fees, a local account's EIP-1559
// transactions, a Solidity contract deployed, read, simulated and written, its events, a proof, an
// access list, block receipts, and EIP-712 typed data signed by the node's unlocked dev account.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPublicClient, createWalletClient, defineChain, encodeFunctionData, http, parseEther, keccak256, toHex, verifyTypedData, type Chain, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startTestNode, testKey, testAddress, type TestNode } from './helpers/node.ts';
import { compile, type Compiled } from './helpers/solc.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Counter {
  uint256 public count;
  event Bumped(address indexed by, uint256 count);
  function bump(uint256 by) external returns (uint256) {
    require(by > 0, "nothing to add");
    count += by;
    emit Bumped(msg.sender, count);
    return count;
  }
}`;

let node: TestNode;
let chain: Chain;
let pub: PublicClient;
let counter: Compiled;
let address: `0x${string}`;
const account = privateKeyToAccount(testKey(0) as `0x${string}`);

const chainOf = (id: number, url: string) => defineChain({ id, name: 'chain-node', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } });
/** viem polls for receipts every 4 s by default; the test node seals at once */
const transport = () => http(undefined, { retryCount: 0 });

test.before(async () => {
  node = await startTestNode();
  chain = chainOf(300, node.url);
  pub = createPublicClient({ chain, transport: transport(), pollingInterval: 20, cacheTime: 0 });
  counter = compile(SOURCE).Counter!;
});

test.after(async () => {
  await node?.stop();
});

const wallet = () => createWalletClient({ account, chain, transport: transport(), pollingInterval: 20, cacheTime: 0 });

test('getChainId, getBlockNumber', async () => {
  assert.is(await pub.getChainId(), 300);
  assert.is(await pub.getBlockNumber(), BigInt(await node.rpc('eth_blockNumber')));
});

test('estimateFeesPerGas, estimateMaxPriorityFeePerGas, getFeeHistory', async () => {
  const head = await pub.getBlock();
  const fees = await pub.estimateFeesPerGas();
  const tip = await pub.estimateMaxPriorityFeePerGas();
  assert.is(fees.maxPriorityFeePerGas, tip);
  assert.is(tip, BigInt(await node.rpc('eth_maxPriorityFeePerGas')));
  // viem's rule: 1.2 × the head's base fee plus the tip
  assert.is(fees.maxFeePerGas, (head.baseFeePerGas! * 12n) / 10n + tip);
  const history = await pub.getFeeHistory({ blockCount: 1, rewardPercentiles: [50] });
  assert.is(history.oldestBlock, head.number);
  assert.is(history.baseFeePerGas.length, 2, "the head's base fee and the next block's");
  assert.is(history.reward!.length, 1);
});

test('sendTransaction from a local account, waitForTransactionReceipt; with type eip1559 an EIP-1559 transaction', async () => {
  const to = testAddress(3) as `0x${string}`;
  const before = await pub.getBalance({ address: to });
  // viem fills a local account's transaction through eth_fillTransaction (legacy here, the gas
  // estimated as geth does): viem then sends that
  const plainHash = await wallet().sendTransaction({ to, value: parseEther('1') });
  const plain = await pub.waitForTransactionReceipt({ hash: plainHash, pollingInterval: 10 });
  assert.is(plain.status, 'success');
  assert.is(plain.gasUsed, 21_000n);
  assert.is((await pub.getTransaction({ hash: plainHash })).gas, 21_000n, 'the gas limit viem sent is the estimate, not 1.5e9');
  const hash = await wallet().sendTransaction({ to, value: parseEther('1'), type: 'eip1559' });
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 10 });
  assert.is(receipt.status, 'success');
  assert.is(receipt.type, 'eip1559');
  assert.is(receipt.gasUsed, 21_000n);
  const tx = await pub.getTransaction({ hash });
  assert.is(tx.maxFeePerGas, (await pub.estimateFeesPerGas()).maxFeePerGas);
  assert.is(await pub.getBalance({ address: to }), before + parseEther('2'));
});

test('deployContract, readContract, simulateContract (success and revert), writeContract', async () => {
  const w = wallet();
  const deployed = await pub.waitForTransactionReceipt({ hash: await w.deployContract({ abi: counter.abi, bytecode: counter.bytecode as `0x${string}` }), pollingInterval: 10 });
  address = deployed.contractAddress!;
  assert.is(await pub.readContract({ address, abi: counter.abi, functionName: 'count' }), 0n);
  const { result, request } = await pub.simulateContract({ account, address, abi: counter.abi, functionName: 'bump', args: [5n] });
  assert.is(result, 5n);
  const reverted = await pub.simulateContract({ account, address, abi: counter.abi, functionName: 'bump', args: [0n] }).then(() => undefined, (e: Error) => e);
  assert.match(String(reverted?.message), /reverted with the following reason:\s+nothing to add/);
  const receipt = await pub.waitForTransactionReceipt({ hash: await w.writeContract(request), pollingInterval: 10 });
  assert.is(receipt.status, 'success');
  assert.is(await pub.readContract({ address, abi: counter.abi, functionName: 'count' }), 5n);
});

test('getContractEvents and getLogs find the Bumped event', async () => {
  const events = await pub.getContractEvents({ address, abi: counter.abi, eventName: 'Bumped', fromBlock: 0n });
  assert.is(events.length, 1);
  assert.equal(events[0]!.args, { by: account.address, count: 5n });
  const logs = await pub.getLogs({ address, fromBlock: 0n });
  assert.is(logs.length, 1);
  assert.is(logs[0]!.transactionHash, events[0]!.transactionHash);
});

test('getProof: the account and slot 0 (count = 5)', async () => {
  const proof = await pub.getProof({ address, storageKeys: [toHex(0, { size: 32 })] });
  assert.is(proof.address.toLowerCase(), address.toLowerCase());
  assert.is(proof.nonce, 1);
  assert.is(proof.codeHash, keccak256((await pub.getCode({ address }))!));
  assert.is(proof.storageProof[0]!.value, 5n);
  assert.ok(proof.accountProof.length > 0 && proof.storageProof[0]!.proof.length > 0);
});

test('createAccessList names the counter slot', async () => {
  const data = encodeFunctionData({ abi: counter.abi, functionName: 'bump', args: [1n] });
  const list = await pub.createAccessList({ account: account.address, to: address, data });
  assert.equal(list.accessList, [{ address: address.toLowerCase(), storageKeys: [toHex(0, { size: 32 })] }]);
  assert.ok(list.gasUsed > 21_000n);
});

test('getBlockReceipts (through request: viem has no action for it)', async () => {
  const hash = await wallet().sendTransaction({ to: testAddress(2) as `0x${string}`, value: 1n });
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 10 });
  const receipts = await pub.request({ method: 'eth_getBlockReceipts', params: [toHex(receipt.blockNumber)] } as never) as { transactionHash: string }[];
  assert.equal(receipts.map((r) => r.transactionHash), [hash]);
});

test('signTypedData through the dev chain\'s unlocked account (eth_signTypedData_v4), verifyTypedData', async () => {
  const dev = await startTestNode({ dev: true });
  try {
    const [signer] = (await dev.rpc('eth_accounts')) as `0x${string}`[];
    const devChain = chainOf(Number(await dev.rpc('eth_chainId')), dev.url);
    const client = createWalletClient({ account: signer!, chain: devChain, transport: transport() });
    const typed = {
      domain: { name: 'Mail', version: '1', chainId: devChain.id, verifyingContract: address },
      types: { Person: [{ name: 'name', type: 'string' }, { name: 'wallet', type: 'address' }], Mail: [{ name: 'from', type: 'Person' }, { name: 'contents', type: 'string' }] },
      primaryType: 'Mail' as const,
      message: { from: { name: 'Cow', wallet: signer! }, contents: 'Hello, Bob!' },
    };
    const signature = await client.signTypedData(typed);
    assert.ok(await verifyTypedData({ ...typed, address: signer!, signature }));
    assert.not.ok(await verifyTypedData({ ...typed, message: { ...typed.message, contents: 'Hello, Eve!' }, address: signer!, signature }));
  } finally {
    await dev.stop();
  }
});

test.run();
