// eth_estimateGas answers the gas a transaction uses: a call warms what a transaction warms before
// it runs (EIP-2929: sender, recipient, precompiles; EIP-3651: coinbase) on both engines — the view
// interpreter (a call without value) and @ethereumjs (a call with value). Before, each first access
// of those cost 2,500 gas more in the estimate than in the transaction.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Wallet, Interface, JsonRpcProvider } from 'ethers';
import { startTestNode, mined, testKey, type TestNode } from './helpers/node.ts';
import { compile } from './helpers/solc.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Warm {
  uint256 public n;
  function touch() external returns (bytes32) { n += msg.sender.balance + address(this).balance + block.coinbase.balance; return sha256(abi.encode(n)); }
  function pay() external payable { n += msg.sender.balance + address(this).balance + block.coinbase.balance + uint256(sha256(abi.encode(n))) % 7; }
}`;

let node: TestNode;
let wallet: Wallet;
let address: string;
let iface: Interface;

test.before(async () => {
  node = await startTestNode();
  wallet = new Wallet(testKey(0), new JsonRpcProvider(node.url, undefined, { staticNetwork: true, polling: true, pollingInterval: 10 }));
  const warm = compile(SOURCE).Warm!;
  iface = new Interface(warm.abi);
  const sent = await wallet.sendTransaction({ data: warm.bytecode, type: 2 });
  address = (await mined(node, sent.hash)).contractAddress;
});

test.after(async () => {
  wallet.provider?.destroy();
  await node?.stop();
});

for (const [name, value] of [['touch', 0n], ['pay', 1n]] as const) {
  test(`${name}() (${value ? '@ethereumjs' : 'the view interpreter'}): the estimate is the receipt's gas, and one less fails`, async () => {
    const msg = { from: wallet.address, to: address, data: iface.encodeFunctionData(name), value: '0x' + value.toString(16) };
    const estimate = BigInt(await node.rpc('eth_estimateGas', [msg]));
    const short = await node.raw('eth_estimateGas', [{ ...msg, gas: '0x' + (estimate - 1n).toString(16) }]);
    assert.ok(short.error, 'capped one gas below the estimate, the estimate fails');
    // the nonce from the node: ethers remembers an answer for 250 ms
    const receipt = await mined(node, (await wallet.sendTransaction({ to: address, data: msg.data, value, gasLimit: estimate, type: 2, nonce: Number(await node.rpc('eth_getTransactionCount', [wallet.address, 'latest'])) })).hash);
    assert.is(receipt.status, '0x1');
    assert.is(BigInt(receipt.gasUsed), estimate, 'the estimate charged no cold access the transaction did not');
  });
}

test.run();
