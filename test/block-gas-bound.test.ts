// The block gas bound is a chain rule (S13): a block whose transactions do not fit the chain's
// config.blockGasBound by geth's gas-pool rule (gas used before a transaction + its gas limit) is
// refused on import, whatever its header's gas limit (2^48 here), while a node whose genesis
// allows that much imports the same block.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Transaction, Wallet } from 'ethers';
import { startTestNode, testGenesis, testKey, NODE_KEY, type TestNode } from './helpers/node.ts';
import { CoreChainDoor } from '../src/core/core-chain-door.ts';
import { BLOCK_GAS_BOUND } from '../src/chain/genesis.ts';

/** four endless loops of this much gas, each spending it all: 10M together */
const GAS = 2_500_000n;
/** the bound of the refusing node: the third loop does not fit (5M used + 2.5M > 6M) */
const BOUND = 6_000_000n;
/** JUMPDEST PUSH1 0 JUMP */
const ENDLESS = '0x5b600056';

function genesisWithBound(bound: bigint | undefined): object {
  // blocks by the clock (1 s): the four transfers submitted together land in one
  const g = testGenesis(NODE_KEY, 4, 1) as { config: Record<string, unknown> };
  if (bound !== undefined) g.config.blockGasBound = bound.toString();
  return g;
}

test('a block whose transactions do not fit the block gas bound is refused on import, and imported where the bound allows them', async () => {
  const nodes: TestNode[] = [];
  try {
    // no time budgets: the loops run to their gas whatever the machine's load
    const proposer = await startTestNode({ genesis: genesisWithBound(4n * GAS), config: { txBudgetMs: 0, buildMs: 0 } });
    nodes.push(proposer);
    const sealed = new Promise<void>((resolve) => {
      const off = proposer.core.events.onBlock(() => (off(), resolve()));
    });
    const raws = await Promise.all(
      [0, 1, 2, 3].map((i) => new Wallet(testKey(i)).signTransaction(Transaction.from({ to: null, data: ENDLESS, gasLimit: GAS, gasPrice: 0n, chainId: 300, type: 0, nonce: 0 }))),
    );
    await Promise.all(raws.map((r) => proposer.core.submitRawTransaction(Buffer.from(r.slice(2), 'hex'))));
    await sealed;
    const block = await proposer.rpc('eth_getBlockByNumber', ['0x1', false]);
    assert.is(block.transactions.length, 4, 'the four loops are one block');
    assert.is(BigInt(block.gasUsed), 4n * GAS);
    assert.is(BigInt(block.gasLimit), 2n ** 48n);
    const encoded = new CoreChainDoor(proposer.core).blocks(1n, 1, 16 << 20);

    // a smaller bound: refused, naming what does not fit
    const bounded = await startTestNode({ genesis: genesisWithBound(BOUND), nodeKey: '77'.repeat(32) });
    nodes.push(bounded);
    const refused = await bounded.core.importBlocks(encoded);
    assert.is(refused.imported, 0);
    assert.ok(refused.refused?.reason.includes('transaction 2') && refused.refused.reason.includes("block gas bound"), refused.refused?.reason);
    assert.is(await bounded.rpc('eth_blockNumber'), '0x0');
    // and its pool refuses more than the bound in one transaction
    const big = await new Wallet(testKey(0)).signTransaction(Transaction.from({ to: '0x' + '42'.repeat(20), gasLimit: BOUND + 1n, gasPrice: 0n, chainId: 300, type: 0, nonce: 0 }));
    const answer = await bounded.raw('eth_sendRawTransaction', [big]);
    assert.ok(answer.error?.message.includes(`exceeds the chain's per-transaction limit ${BOUND} (TxGasLimit is 1500000000`), answer.error?.message);

    // a genesis that allows it (and one without config.blockGasBound: 60M): the same block imports
    const allowing = await startTestNode({ genesis: genesisWithBound(4n * GAS), nodeKey: '78'.repeat(32) });
    nodes.push(allowing);
    const imported = await allowing.core.importBlocks(encoded);
    assert.is(imported.refused, undefined, imported.refused?.reason);
    assert.is(imported.imported, 1);
    const byDefault = await startTestNode({ genesis: genesisWithBound(undefined), nodeKey: '79'.repeat(32) });
    nodes.push(byDefault);
    assert.is((await byDefault.core.importBlocks(encoded)).imported, 1);
    assert.ok(BLOCK_GAS_BOUND > 4n * GAS);
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
  }
});

test.run();
