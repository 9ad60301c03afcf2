// eth_getBlockReceipts, the uncle methods (istanbul has no uncles) and eth_coinbase / eth_mining /
// eth_hashrate against a real node, in geth's shapes, answers valid under execution-apis' result
// schemas where it defines the method.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Transaction, Wallet } from 'ethers';
import { mined, startTestNode, testAddress, testGenesis, testKey, type TestNode } from './helpers/node.ts';
import { executionApisResults } from './helpers/execution-apis.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { ChainClient, type Receipt } from '../generated/client/index.ts';

/** init code returning the runtime 60006000a000 (PUSH1 0 PUSH1 0 LOG0 STOP): one empty log per call */
const LOGGER_DEPLOY = '0x6006600c60003960066000f360006000a000';
const UNKNOWN_HASH = '0x' + '12'.repeat(32);

let node: TestNode;
const wallet = new Wallet(testKey(0));
/** the block holding two calls that log and a transfer, in that order */
let block: { number: string; hash: string; txs: string[] };

/** odd nonces as EIP-1559 transactions, even ones legacy */
const sign = (nonce: number, to: string | null, data = '0x', value = 0n) => {
  const fees = nonce % 2 === 0 ? { type: 0, gasPrice: 0n } : { type: 2, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n };
  return wallet.signTransaction(Transaction.from({ ...fees, chainId: 300, gasLimit: 100_000n, nonce, to, data, value }));
};

test.before(async () => {
  node = await startTestNode();
  const { contractAddress } = await mined(node, await node.rpc('eth_sendRawTransaction', [await sign(0, null, LOGGER_DEPLOY)]));
  // the first nonce last: all three become pending together and the sealer takes them in one block
  const second = await node.rpc('eth_sendRawTransaction', [await sign(2, contractAddress)]);
  const third = await node.rpc('eth_sendRawTransaction', [await sign(3, testAddress(3), '0x', 5n)]);
  const first = await node.rpc('eth_sendRawTransaction', [await sign(1, contractAddress)]);
  const receipts = [await mined(node, first), await mined(node, second), await mined(node, third)];
  assert.equal(new Set(receipts.map((r) => r.blockHash)).size, 1, 'one block');
  block = { number: receipts[0].blockNumber, hash: receipts[0].blockHash, txs: [first, second, third] };
});
test.after(() => node.stop());

test('eth_getBlockReceipts: the receipts in order, each as eth_getTransactionReceipt answers it', async () => {
  const expected = await Promise.all(block.txs.map((h) => node.rpc('eth_getTransactionReceipt', [h])));
  const receipts = await node.rpc('eth_getBlockReceipts', [block.number]);
  assert.equal(receipts, expected);
  assert.equal(receipts.map((r: { logs: { logIndex: string }[] }) => r.logs.map((l) => l.logIndex)), [['0x0'], ['0x1'], []], 'log indexes run through the block');
  assert.equal(receipts.map((r: { type: string }) => r.type), ['0x2', '0x0', '0x2']);
  assert.equal(await node.rpc('eth_getBlockReceipts', [block.hash]), expected, 'by hash');
  assert.equal(await node.rpc('eth_getBlockReceipts', [Number(block.number)]), expected, 'a plain integer (D9)');
  assert.equal(await node.rpc('eth_getBlockReceipts', [{ blockHash: block.hash, requireCanonical: true }]), expected, "geth's EIP-1898 object by hash");
  assert.equal(await node.rpc('eth_getBlockReceipts', [{ blockNumber: block.number }]), expected, 'and by number');
  assert.is(await node.rpc('eth_getBlockReceipts', [{ blockHash: UNKNOWN_HASH }]), null);
  assert.equal(await node.rpc('eth_getBlockReceipts', ['latest']), expected);
  assert.equal(await node.rpc('chain_getBlockReceipts', [block.number]), expected, 'chain_ is the same method');
  assert.equal(await node.rpc('eth_getBlockReceipts', ['earliest']), [], 'genesis: no transactions');
  assert.equal(await node.rpc('eth_getBlockReceipts', ['pending']), [], 'the pending block carries no transactions');
  assert.is(await node.rpc('eth_getBlockReceipts', [UNKNOWN_HASH]), null, 'unknown hash');
  assert.is(await node.rpc('eth_getBlockReceipts', ['0xffff']), null, 'beyond the head');
});

test('the SDK: typed client.eth.getBlockReceipts, client.eth.getUncleCountByBlockHash, client.chain.mining', async () => {
  const client = ChainClient.http(node.url);
  try {
    const receipts: Receipt[] | null = await client.eth.getBlockReceipts(block.hash);
    assert.equal(receipts?.map((r) => r.transactionHash), block.txs);
    assert.is(await client.eth.getUncleCountByBlockHash(block.hash), '0x0');
    assert.is(await client.chain.mining(), true);
  } finally {
    await client.close();
  }
});

test('uncles: none on any known block (count 0), null for an unknown block, every uncle null', async () => {
  for (const ns of ['eth', 'chain']) {
    assert.is(await node.rpc(`${ns}_getUncleCountByBlockHash`, [block.hash]), '0x0');
    assert.is(await node.rpc(`${ns}_getUncleCountByBlockHash`, [UNKNOWN_HASH]), null);
    assert.is(await node.rpc(`${ns}_getUncleCountByBlockNumber`, [block.number]), '0x0');
    assert.is(await node.rpc(`${ns}_getUncleCountByBlockNumber`, ['earliest']), '0x0');
    assert.is(await node.rpc(`${ns}_getUncleCountByBlockNumber`, ['pending']), '0x0');
    assert.is(await node.rpc(`${ns}_getUncleCountByBlockNumber`, [0xffff]), null);
    assert.is(await node.rpc(`${ns}_getUncleByBlockHashAndIndex`, [block.hash, '0x0']), null);
    assert.is(await node.rpc(`${ns}_getUncleByBlockNumberAndIndex`, [block.number, '0x0']), null);
    assert.is(await node.rpc(`${ns}_getUncleByBlockNumberAndIndex`, ['latest', '0x1']), null);
  }
  // what the blocks themselves say
  const b = await node.rpc('eth_getBlockByHash', [block.hash, false]);
  assert.equal(b.uncles, []);
});

test('eth_coinbase is the node key address, the miner of the blocks it seals; it mines with hashrate 0', async () => {
  const coinbase = await node.rpc('eth_coinbase');
  assert.is(coinbase, (await node.rpc('eth_getBlockByHash', [block.hash, false])).miner);
  assert.is(coinbase, bytesToHex(node.core.nodeKey.address));
  assert.is(await node.rpc('chain_coinbase'), coinbase);
  assert.is(await node.rpc('eth_mining'), true);
  assert.is(await node.rpc('chain_mining'), true);
  assert.is(await node.rpc('eth_hashrate'), '0x0');
  assert.is(await node.rpc('chain_hashrate'), '0x0');
});

test('a node whose key is not a validator of the chain: not mining, coinbase still its key', async () => {
  // the genesis' validator is another key: this node serves the chain without sealing
  const follower = await startTestNode({ genesis: testGenesis(testKey(5).slice(2)) });
  try {
    assert.is(await follower.rpc('eth_mining'), false);
    assert.is(await follower.rpc('eth_coinbase'), await node.rpc('eth_coinbase'), 'the same node key (test/helpers/node.ts NODE_KEY)');
    assert.is(await follower.rpc('eth_hashrate'), '0x0');
  } finally {
    await follower.stop();
  }
});

test('bad input: -32602 naming the parameter', async () => {
  const cases: [string, unknown[], string][] = [
    ['eth_getBlockReceipts', [], 'block'],
    ['eth_getBlockReceipts', ['newest'], 'block'],
    ['eth_getBlockReceipts', ['0x' + '1'.repeat(65)], 'block'],
    ['eth_getBlockReceipts', [{ blockHash: '0x12' }], 'block'],
    ['eth_getBlockReceipts', [{ hash: block.hash }], 'block'],
    ['eth_getBlockReceipts', [{ blockNumber: 'newest' }], 'block'],
    ['eth_getUncleCountByBlockHash', ['0x1234'], 'hash'],
    ['eth_getUncleCountByBlockHash', [], 'hash'],
    ['eth_getUncleCountByBlockNumber', ['newest'], 'block'],
    ['eth_getUncleByBlockHashAndIndex', [block.hash, 'first'], 'index'],
    ['eth_getUncleByBlockHashAndIndex', [block.hash], 'index'],
    ['eth_getUncleByBlockNumberAndIndex', [-1, '0x0'], 'block'],
  ];
  for (const [method, params, named] of cases) {
    const { error } = await node.raw(method, params);
    assert.is(error?.code, -32602, `${method} ${JSON.stringify(params)}: ${JSON.stringify(error)}`);
    assert.match(error!.message, named, `${method} ${JSON.stringify(params)}: ${error!.message}`);
  }
  for (const method of ['eth_coinbase', 'eth_mining', 'eth_hashrate']) {
    const { error } = await node.raw(method, ['0x1']);
    assert.is(error?.code, -32602, `${method} with a parameter: ${JSON.stringify(error)}`);
  }
  assert.is(await node.rpc('eth_blockNumber'), block.number, 'the node still serves');
});

test('answers validate against execution-apis result schemas', async () => {
  const resultValidator = executionApisResults();
  if (!resultValidator) return;
  // execution-apis defines no uncle, eth_mining or eth_hashrate method (our own schemas check those)
  const answers: [string, unknown[]][] = [
    ['eth_getBlockReceipts', [block.number]],
    ['eth_getBlockReceipts', [block.hash]],
    ['eth_getBlockReceipts', ['earliest']],
    ['eth_getBlockReceipts', [UNKNOWN_HASH]],
    ['eth_coinbase', []],
  ];
  for (const [method, params] of answers) {
    const validate = resultValidator(method);
    const result = await node.rpc(method, params);
    assert.ok(validate(result), `${method} ${JSON.stringify(params)}: ${JSON.stringify(validate.errors)}`);
  }
});

test.run();
