// Issue 19, items 1 and 2: no transaction or call freezes the node. An endless loop sent free
// (gas price 0, a key with no balance) is refused above the chain's per-transaction gas limit
// and runs at it while other requests keep answering; in a block this node proposes, a
// transaction past --miner.txtimeout is left out and dropped; eth_call and eth_estimateGas
// end at --rpc.evmtimeout (an endless loop on @ethereumjs, blake2f with 49,970,000 rounds, a
// search of many view-interpreter probes) while eth_blockNumber answers and blocks are sealed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Transaction, Wallet } from 'ethers';
import { ConfigError, parseFlags, type NodeConfig } from '../src/node/config.ts';
import { GenesisError, parseGenesis } from '../src/chain/genesis.ts';
import { DEV_TX_GAS_LIMIT as DEV_CHAIN_TX_GAS_LIMIT } from '../src/core/dev-genesis.ts';
import { openStore } from '../src/store/lmdb-store.ts';
import { mined, pollBlockNumber, startTestNode, testAddress, testGenesis, testKey, NODE_KEY, type TestNode } from './helpers/node.ts';

/** JUMPDEST PUSH1 0 JUMP: 12 gas an iteration, for ever */
const ENDLESS = '0x5b600056';
/** Runtime code counting 0xc0000 (786,432) down to 0: 20.4M gas, ~50 ms on the view interpreter */
const COUNTDOWN = '0x00000000000000000000000000000000000c0de1';
const COUNTDOWN_CODE = '0x63000c00005b600190038060055700';
/** ENDLESS as a contract's code */
const LOOP = '0x00000000000000000000000000000000000100f1';
const BLAKE2F = '0x0000000000000000000000000000000000000009';
const DEV_TX_GAS_LIMIT = Number(DEV_CHAIN_TX_GAS_LIMIT);

/** The receipt once mined, for slow runs: at most `ms`. */
async function minedWithin(node: TestNode, hash: string, ms: number): Promise<any> {
  for (const end = performance.now() + ms; performance.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    const r = await node.rpc('eth_getTransactionReceipt', [hash]);
    if (r) return r;
  }
  throw new Error(`not mined within ${ms} ms: ${hash}`);
}

function signLoop(w: Wallet | { signTransaction: Wallet['signTransaction'] }, gasLimit: number, nonce = 0): Promise<string> {
  return w.signTransaction(Transaction.from({ to: null, data: ENDLESS, gasLimit, gasPrice: 0n, chainId: 300, type: 0, nonce }));
}

test('dev chain: a free endless loop is refused above 30M gas and at it runs while requests answer', async () => {
  const node = await startTestNode({ dev: true, config: { txBudgetMs: 60_000 } });
  try {
    const attacker = Wallet.createRandom();
    const over = await node.raw('eth_sendRawTransaction', [await signLoop(attacker, DEV_TX_GAS_LIMIT + 1)]);
    assert.is(over.error?.code, -32000);
    assert.ok(over.error!.message.includes(`gas ${DEV_TX_GAS_LIMIT + 1} exceeds the chain's per-transaction limit ${DEV_TX_GAS_LIMIT}`), over.error!.message);

    const poll = pollBlockNumber(node);
    const t0 = performance.now();
    const hash = await node.rpc('eth_sendRawTransaction', [await signLoop(attacker, DEV_TX_GAS_LIMIT)]);
    const receipt = await minedWithin(node, hash, 20_000);
    const ran = performance.now() - t0;
    const slowest = await poll.stop();
    assert.is(receipt.status, '0x0');
    assert.is(BigInt(receipt.gasUsed), BigInt(DEV_TX_GAS_LIMIT));
    assert.ok(slowest < 1000, `eth_blockNumber took ${slowest.toFixed(0)} ms while the loop ran ${ran.toFixed(0)} ms`);

    // eth_sendTransaction's default gas (the spec's 1.5e9) is capped at the limit, and works
    const [dev] = await node.rpc<string[]>('eth_accounts');
    const sent = await node.rpc('eth_sendTransaction', [{ from: dev, to: '0x' + '42'.repeat(20), value: '0x1' }]);
    assert.is((await mined(node, sent)).status, '0x1');
    assert.is(BigInt((await node.rpc('eth_getTransactionByHash', [sent])).gas), BigInt(DEV_TX_GAS_LIMIT));
  } finally {
    await node.stop();
  }
});

test('proposer budget: a transaction running past --miner.txtimeout is left out, dropped and logged', async () => {
  const lines: string[] = [];
  const genesis = testGenesis(NODE_KEY) as { config: Record<string, unknown> };
  genesis.config.txGasLimit = DEV_TX_GAS_LIMIT;
  const node = await startTestNode({ genesis, config: { txBudgetMs: 200, verbosity: 2 }, logWrite: (l) => lines.push(l) });
  try {
    const attacker = Wallet.createRandom();
    const funded = new Wallet(testKey(0));
    const poll = pollBlockNumber(node);
    const loop = await node.rpc('eth_sendRawTransaction', [await signLoop(attacker, DEV_TX_GAS_LIMIT)]);
    const later = await node.rpc('eth_sendRawTransaction', [await signLoop(attacker, 100_000, 1)]);
    const transfer = await node.rpc('eth_sendRawTransaction', [
      await funded.signTransaction(Transaction.from({ to: '0x' + '42'.repeat(20), value: 1n, gasLimit: 21000n, gasPrice: 0n, chainId: 300, type: 0, nonce: 0 })),
    ]);
    assert.is((await mined(node, transfer)).status, '0x1');
    const slowest = await poll.stop();
    assert.ok(slowest < 1000, `eth_blockNumber took ${slowest.toFixed(0)} ms`);
    assert.is(await node.rpc('eth_getTransactionReceipt', [loop]), null);
    assert.is(await node.rpc('eth_getTransactionByHash', [loop]), null);
    assert.ok(lines.some((l) => l.includes(`dropped ${loop}`) && l.includes('200 ms')), lines.join('\n'));
    // sent again, it is refused at once rather than costing the proposer another budget
    const again = await node.raw('eth_sendRawTransaction', [await signLoop(attacker, DEV_TX_GAS_LIMIT)]);
    assert.equal(again.error, { code: -32000, message: `transaction ${loop} was dropped for exceeding the proposer's time budget of 200 ms (--miner.txtimeout)` });
    // the sender's state is untouched; its next nonce waits for the gap to be filled
    assert.is(await node.rpc('eth_getTransactionCount', [attacker.address, 'latest']), '0x0');
    assert.equal(await node.rpc('txpool_status'), { pending: '0x0', queued: '0x1' });
    assert.is(await node.rpc('eth_getTransactionReceipt', [later]), null);
    // sealing goes on: the gap filled by a short transaction, both run
    const filler = await node.rpc('eth_sendRawTransaction', [
      await attacker.signTransaction(Transaction.from({ to: attacker.address, gasLimit: 21000n, gasPrice: 0n, chainId: 300, type: 0, nonce: 0 })),
    ]);
    assert.is((await mined(node, filler)).status, '0x1');
    assert.is((await mined(node, later)).status, '0x0'); // out of gas at 100,000
    assert.equal(await node.rpc('txpool_status'), { pending: '0x0', queued: '0x0' });
  } finally {
    await node.stop();
  }
});

test('a dev chain stored without config.txGasLimit (before it existed) gets 30M when it starts again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chain-node-old-dev-'));
  try {
    await (await startTestNode({ dev: true, dir })).stop();
    const store = openStore(dir);
    const genesis = JSON.parse(store.meta.get('genesisJson') as string);
    assert.is(genesis.config.txGasLimit, DEV_TX_GAS_LIMIT);
    delete genesis.config.txGasLimit;
    await store.meta.put('genesisJson', JSON.stringify(genesis));
    await store.close();
    const node = await startTestNode({ dev: true, dir });
    try {
      const over = await node.raw('eth_sendRawTransaction', [await signLoop(Wallet.createRandom(), DEV_TX_GAS_LIMIT + 1)]);
      assert.ok(over.error?.message.includes(`exceeds the chain's per-transaction limit ${DEV_TX_GAS_LIMIT}`), JSON.stringify(over));
      const [dev] = await node.rpc<string[]>('eth_accounts');
      const sent = await node.rpc('eth_sendTransaction', [{ from: dev, to: '0x' + '42'.repeat(20), value: '0x1' }]);
      assert.is(BigInt((await node.rpc('eth_getTransactionByHash', [sent])).gas), BigInt(DEV_TX_GAS_LIMIT));
    } finally {
      await node.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--rpc.evmtimeout: eth_call and eth_estimateGas end with the timeout error while the node answers and seals', async () => {
  const genesis = testGenesis(NODE_KEY) as { alloc: Record<string, unknown> };
  genesis.alloc[COUNTDOWN] = { balance: '0', code: COUNTDOWN_CODE };
  genesis.alloc[LOOP] = { balance: '0', code: ENDLESS };
  const node = await startTestNode({ genesis, config: { evmTimeoutMs: 400, gasCap: 100_000_000n } });
  try {
    const blake2fInput = '0x' + (49_970_000).toString(16).padStart(8, '0') + '00'.repeat(208) + '01';
    const requests: [string, unknown[]][] = [
      // with value: the view interpreter leaves it to @ethereumjs's
      ['eth_call', [{ from: testAddress(0), to: LOOP, value: '0x1', gas: '0x2faf080' }, 'latest']],
      ['eth_call', [{ to: BLAKE2F, data: blake2fInput, gas: '0x2faf080' }, 'latest']],
      ['eth_estimateGas', [{ from: testAddress(0), to: LOOP, value: '0x1' }]],
      ['eth_estimateGas', [{ to: COUNTDOWN }]], // ~20 probes on the view interpreter, ~50 ms each
    ];
    const funded = new Wallet(testKey(1));
    for (const [i, [method, params]] of requests.entries()) {
      const poll = pollBlockNumber(node);
      const t0 = performance.now();
      const answer = node.raw(method, params).then((r) => ({ r, ms: performance.now() - t0 }));
      // a transaction sent meanwhile is sealed within a second (the call held everything for seconds)
      await new Promise((r) => setTimeout(r, 50));
      const sending = performance.now();
      const tx = await node.rpc('eth_sendRawTransaction', [
        await funded.signTransaction(Transaction.from({ to: funded.address, gasLimit: 21000n, gasPrice: 0n, chainId: 300, type: 0, nonce: i })),
      ]);
      await mined(node, tx);
      const sealedIn = performance.now() - sending;
      const { r, ms } = await answer;
      const slowest = await poll.stop();
      assert.equal(r.error, { code: -32000, message: 'execution aborted (timeout = 400ms)' }, `${method} ${i}: ${JSON.stringify(r)}`);
      assert.ok(ms < 1500, `${method} ${i} answered after ${ms.toFixed(0)} ms`);
      assert.ok(sealedIn < 1000, `${method} ${i}: a transfer took ${sealedIn.toFixed(0)} ms to be sealed`);
      assert.ok(slowest < 1000, `${method} ${i}: eth_blockNumber took ${slowest.toFixed(0)} ms`);
    }
    // what a halted call left behind is undone: calls on @ethereumjs still answer exactly (EIP-152's vector 5)
    const vector5 = '0x0000000c48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b' + '616263' + '00'.repeat(125) + '03' + '00'.repeat(15) + '01';
    assert.is(
      await node.rpc('eth_call', [{ to: BLAKE2F, data: vector5 }, 'latest']),
      '0xba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923',
    );
    assert.is(await node.rpc('eth_estimateGas', [{ from: testAddress(0), to: LOOP, value: '0x1', gas: '0x5208' }]).catch((e) => e.message), 'gas required exceeds allowance (21000): out of gas');
  } finally {
    await node.stop();
  }
});

test('flags and genesis: --rpc.evmtimeout, --miner.txtimeout, config.txGasLimit', () => {
  const flags = (argv: string[]) => parseFlags(argv) as NodeConfig;
  assert.equal([flags([]).evmTimeoutMs, flags([]).txBudgetMs], [5000, 5000]);
  assert.equal([flags(['--rpc.evmtimeout', '0']).evmTimeoutMs, flags(['--miner.txtimeout', '500ms']).txBudgetMs], [0, 500]);
  assert.throws(() => parseFlags(['--rpc.evmtimeout', 'soon']), (e: Error) => e instanceof ConfigError && /--rpc\.evmtimeout must be a positive duration/.test(e.message));
  assert.is(parseGenesis({}).config.txGasLimit, 1_500_000_000n);
  assert.is(parseGenesis({ config: { txGasLimit: '0x1c9c380' } }).config.txGasLimit, 30_000_000n);
  assert.throws(() => parseGenesis({ config: { txGasLimit: 20999 } }), (e: Error) => e instanceof GenesisError && /config\.txGasLimit must be at least 21000/.test(e.message));
});

test.run();
