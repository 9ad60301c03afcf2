// The fee methods against a real node: eth_feeHistory by geth's rules (ranges, percentiles of the
// gas-weighted effective tips, limits), eth_maxPriorityFeePerGas as the tip that gets a dynamic-fee
// transaction admitted, eth_blobBaseFee as the EVM sees it, answers valid under execution-apis'
// result schemas, and ethers' fee data and default send working against them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonRpcProvider, Transaction, Wallet } from 'ethers';
import { mined, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { closePollingProvider } from './helpers/ethers-provider.ts';
import { executionApisResults } from './helpers/execution-apis.ts';
import { paced, slowdown } from './helpers/pace.ts';

const OTHER = testAddress(3);

let node: TestNode;
const sender = new Wallet(testKey(0));
let nonce = 0;
/** number of the block holding the three transactions of different tips */
let mixedBlock: number;

function sign(fields: Record<string, unknown>, n = nonce++): Promise<string> {
  return sender.signTransaction(Transaction.from({ to: OTHER, value: 1n, gasLimit: 21000n, chainId: 300, nonce: n, ...fields }));
}

async function rpcError(method: string, params: unknown[]) {
  const res = await node.raw(method, params);
  assert.ok(res.error, `${method} ${JSON.stringify(params)}: expected an error, got ${JSON.stringify(res.result)?.slice(0, 200)}`);
  return res.error!;
}

test.before(async () => {
  node = await startTestNode();
  // block 1: one legacy transaction, tip 10 (base fee 0)
  await mined(node, await node.rpc('eth_sendRawTransaction', [await sign({ type: 0, gasPrice: 10n })]));
  // block 2: three transfers of 21000 gas in one block (the first nonce last, so all become pending
  // together); effective tips (base fee 0: the priority fee, or a legacy gas price): 2, 3, 7
  const first = nonce;
  nonce += 3;
  const second = await node.rpc('eth_sendRawTransaction', [await sign({ type: 2, maxFeePerGas: 100n, maxPriorityFeePerGas: 3n }, first + 1)]);
  const third = await node.rpc('eth_sendRawTransaction', [await sign({ type: 0, gasPrice: 7n }, first + 2)]);
  const firstHash = await node.rpc('eth_sendRawTransaction', [await sign({ type: 2, maxFeePerGas: 1000n, maxPriorityFeePerGas: 2n }, first)]);
  const receipts = [await mined(node, firstHash), await mined(node, second), await mined(node, third)];
  mixedBlock = Number(receipts[0].blockNumber);
  assert.equal(receipts.map((r) => Number(r.blockNumber)), [mixedBlock, mixedBlock, mixedBlock], 'one block');
  assert.is(mixedBlock, 2);
});
test.after(() => node.stop());

test('a range: oldestBlock, base fees 0 including the next block, gas used ratios, no blobs', async () => {
  const h = await node.rpc('eth_feeHistory', ['0x2', 'latest']);
  const gasLimit = Number((await node.rpc('eth_getBlockByNumber', ['0x2', false])).gasLimit);
  assert.equal(h, {
    oldestBlock: '0x1',
    baseFeePerGas: ['0x0', '0x0', '0x0'],
    gasUsedRatio: [21000 / gasLimit, 63000 / gasLimit],
    baseFeePerBlobGas: ['0x1', '0x1', '0x1'],
    blobGasUsedRatio: [0, 0],
  });
  assert.equal(await node.rpc('chain_feeHistory', ['0x2', 'latest']), h, 'chain_ is the same method');
  assert.equal(await node.rpc('eth_feeHistory', [2, 2]), h, 'plain integers (geth accepts decimal counts; D9 blocks)');
});

test('rewards: effective tips sorted and weighted by gas used, at each percentile (hand computation)', async () => {
  // block 2: tips [2, 3, 7] of 21000 gas each (63000): p0 → 2; p33 → threshold 20790 ≤ 21000 → 2;
  // p34 → 21420 → 3; p50 → 31500 → 3; p66.7 → 42021 → 7; p100 → 7. Block 1: one tip of 10.
  const h = await node.rpc('eth_feeHistory', ['0x2', '0x2', [0, 33, 34, 50, 66.7, 100]]);
  assert.equal(h.reward, [
    ['0xa', '0xa', '0xa', '0xa', '0xa', '0xa'],
    ['0x2', '0x2', '0x3', '0x3', '0x7', '0x7'],
  ]);
  // genesis holds no transactions: zeros
  assert.equal((await node.rpc('eth_feeHistory', ['0x1', 'earliest', [10, 90]])).reward, [['0x0', '0x0']]);
  assert.equal((await node.rpc('eth_feeHistory', ['0x1', '0x1', []])).reward, [[]], 'no percentiles: one empty row a block');
});

test('pending ends at the head; a count beyond the chain starts at block 0; 0 is an empty history', async () => {
  assert.equal(await node.rpc('eth_feeHistory', ['0x1', 'pending', [50]]), await node.rpc('eth_feeHistory', ['0x1', 'latest', [50]]));
  const all = await node.rpc('eth_feeHistory', ['0x10000', 'latest']);
  assert.is(all.oldestBlock, '0x0');
  assert.is(all.gasUsedRatio.length, 3);
  assert.is(all.baseFeePerGas.length, 4);
  assert.equal(await node.rpc('eth_feeHistory', ['0x0', 'latest', [50]]), {
    oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [], baseFeePerBlobGas: [], blobGasUsedRatio: [],
  });
});

test('bad input: -32602 naming the parameter; a block beyond the head: -32000', async () => {
  for (const [params, named] of [
    [['0x2', 'latest', [50, 10]], 'rewardPercentiles'],
    [['0x2', 'latest', [10, 10]], 'rewardPercentiles'],
    [['0x2', 'latest', [101]], 'rewardPercentiles'],
    [['0x2', 'latest', [-1]], 'rewardPercentiles'],
    [['0x2', 'latest', Array.from({ length: 101 }, (_, i) => i / 2)], 'rewardPercentiles'],
    [['0x2', 'latest', ['50']], 'rewardPercentiles'],
    [['-0x1', 'latest'], 'blockCount'],
    [[-1, 'latest'], 'blockCount'],
    [['0x2', 'newest'], 'newestBlock'],
    [['0x2'], 'newestBlock'],
  ] as const) {
    const e = await rpcError('eth_feeHistory', params as unknown as unknown[]);
    assert.is(e.code, -32602, JSON.stringify(params));
    assert.match(e.message, named, `${JSON.stringify(params).slice(0, 60)}: ${e.message}`);
  }
  const e = await rpcError('eth_feeHistory', ['0x1', '0x3']);
  assert.is(e.code, -32000);
  assert.match(e.message, 'beyond head');
  assert.is(await node.rpc('eth_blockNumber'), '0x2', 'the node still serves');
});

test('answers validate against execution-apis result schemas', async () => {
  const resultValidator = executionApisResults();
  if (!resultValidator) return;
  const answers: [string, unknown[]][] = [
    ['eth_feeHistory', ['0x3', 'latest', [0, 50, 100]]],
    ['eth_feeHistory', ['0x2', '0x1']],
    ['eth_feeHistory', ['0x0', 'latest', []]],
    ['eth_maxPriorityFeePerGas', []],
    ['eth_blobBaseFee', []],
  ];
  for (const [method, params] of answers) {
    const validate = resultValidator(method);
    const result = await node.rpc(method, params);
    assert.ok(validate(result), `${method} ${JSON.stringify(params)}: ${JSON.stringify(validate.errors)}`);
  }
});

test('eth_blobBaseFee is 1 wei, what the EVM BLOBBASEFEE opcode reads', async () => {
  assert.is(await node.rpc('eth_blobBaseFee'), '0x1');
  assert.is(await node.rpc('chain_blobBaseFee'), '0x1');
  // a contract returning BLOBBASEFEE (code 4a5f5260205ff3: BLOBBASEFEE PUSH0 MSTORE PUSH1 32 PUSH0 RETURN)
  const deploy = await sign({ type: 0, gasPrice: 0n, to: null, value: 0n, gasLimit: 100000n, data: '0x664a5f5260205ff35f5260076019f3' });
  const { contractAddress } = await mined(node, await node.rpc('eth_sendRawTransaction', [deploy]));
  const word = await node.rpc('eth_call', [{ to: contractAddress, data: '0x' }, 'latest']);
  assert.is(BigInt(word), 1n);
});

test('eth_maxPriorityFeePerGas is --gasprice: a dynamic-fee transaction at that tip is admitted, below it is not', async () => {
  assert.is(await node.rpc('eth_maxPriorityFeePerGas'), '0x0', 'default --gasprice 0');
  const priced = await startTestNode({ config: { minGasPrice: 7n } });
  try {
    const tip = await priced.rpc('eth_maxPriorityFeePerGas');
    assert.is(tip, '0x7');
    assert.is(await priced.rpc('chain_maxPriorityFeePerGas'), tip);
    assert.is(await priced.rpc('eth_gasPrice'), tip);
    // what wallets send: maxFeePerGas = 2 × base fee (0) + tip
    const sign1559 = (fee: bigint, n: number) =>
      sender.signTransaction(Transaction.from({ type: 2, to: OTHER, value: 1n, gasLimit: 21000n, chainId: 300, nonce: n, maxFeePerGas: fee, maxPriorityFeePerGas: fee }));
    const low = await priced.raw('eth_sendRawTransaction', [await sign1559(6n, 0)]);
    assert.is(low.error?.code, -32000);
    assert.match(low.error!.message, 'underpriced');
    const receipt = await mined(priced, await priced.rpc('eth_sendRawTransaction', [await sign1559(BigInt(tip), 0)]));
    assert.is(receipt.status, '0x1');
    assert.is(receipt.effectiveGasPrice, '0x7');
    assert.equal((await priced.rpc('eth_feeHistory', ['0x1', 'latest', [50]])).reward, [['0x7']]);
  } finally {
    await priced.stop();
  }
});

test('ethers v6: getFeeData and a default sendTransaction work against the node', async () => {
  const provider = new JsonRpcProvider(node.url, undefined, { pollingInterval: 20, staticNetwork: true, cacheTimeout: -1 });
  try {
    const fees = await provider.getFeeData();
    assert.is(fees.gasPrice, 0n);
    assert.is(fees.maxFeePerGas, null, 'ethers reads a base fee of 0 as no EIP-1559 (D12): legacy at eth_gasPrice');
    const wallet = new Wallet(testKey(1), provider);
    const tx = await wallet.sendTransaction({ to: OTHER, value: 5n });
    const receipt = await tx.wait();
    assert.is(receipt!.status, 1);
    assert.is(tx.type, 0);
    assert.is(await provider.getBalance(OTHER) > 0n, true);
    // the explicit EIP-1559 path ethers takes with fee data the node suggests
    const tip = BigInt(await node.rpc('eth_maxPriorityFeePerGas'));
    const typed = await wallet.sendTransaction({ to: OTHER, value: 5n, type: 2, maxPriorityFeePerGas: tip, maxFeePerGas: tip });
    assert.is((await typed.wait())!.status, 1);
  } finally {
    await closePollingProvider(provider);
  }
});

test("geth's cap: a count above 1024 answers the newest 1024 blocks", async () => {
  // 1,030 more blocks of one transfer each (sent 100 at a time: instant sealing makes one block each)
  let last = '';
  for (let i = 0; i < 1030; i++) {
    last = await node.rpc('eth_sendRawTransaction', [await sign({ type: 0, gasPrice: 1n })]);
    if (i % 100 === 99) await mined(node, last);
  }
  const head = Number((await mined(node, last)).blockNumber);
  assert.ok(head > 1030, `head ${head}`);
  const pace = await slowdown();
  const t0 = performance.now();
  const h = await node.rpc('eth_feeHistory', ['0x800', 'latest', [50]]);
  const ms = performance.now() - t0;
  assert.is(h.oldestBlock, `0x${(head - 1023).toString(16)}`);
  assert.is(h.gasUsedRatio.length, 1024);
  assert.is(h.baseFeePerGas.length, 1025);
  assert.is(h.reward.length, 1024);
  const bound = await paced(1000, pace);
  assert.ok(ms < bound, `1024 blocks with rewards answered in ${ms.toFixed(0)} ms (bound ${bound.toFixed(0)} ms at this machine's pace)`);
});

test.run();
