// Plain value transfers skip @ethereumjs's runTx (src/exec/value-transfer.ts). The reference is
// runTx itself: two nodes with the same genesis and validator key, one with the direct path and
// one without, get the same transactions one block at a time, and every block's state root and
// every receipt must be identical — including the cases where EIP-161 removes a touched empty
// account, the sender is the recipient or the coinbase, and the ones the direct path must leave
// to runTx (a contract, a precompile, an access list).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Wallet, Transaction, computeAddress } from 'ethers';
import { startTestNode, testGenesis, testKey, mined, NODE_KEY, type TestNode } from './helpers/node.ts';

const EMPTY = '0x' + 'e0'.repeat(20); // in genesis with nothing: a 0-value transfer removes it (EIP-161)
const COINBASE = computeAddress('0x' + NODE_KEY);
const fresh = (i: number) => '0x' + i.toString(16).padStart(2, '0').repeat(20);
// init code returning the runtime `PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN`
const DEPLOY = '0x600a600c600039600a6000f3602a60005260206000f3';

let direct: TestNode;
let reference: TestNode;
test.before(async () => {
  const genesis = testGenesis(NODE_KEY, 4) as { alloc: Record<string, { balance: string }> };
  genesis.alloc[EMPTY] = { balance: '0' };
  direct = await startTestNode({ genesis, config: { directTransfers: true } });
  reference = await startTestNode({ genesis, config: { directTransfers: false } });
});
test.after(async () => {
  await direct?.stop();
  await reference?.stop();
});

const nonces = new Map<string, number>();
async function sign(key: string, tx: Record<string, unknown>): Promise<string> {
  const w = new Wallet(key);
  const nonce = nonces.get(w.address) ?? 0;
  nonces.set(w.address, nonce + 1);
  return w.signTransaction(Transaction.from({ chainId: 300, gasLimit: 21_000n, type: 0, gasPrice: 0n, value: 0n, ...tx, nonce }));
}

/** Mines `raw` alone in a block on both nodes; returns both receipts. */
async function mineOnBoth(raw: string) {
  const out = [];
  for (const node of [direct, reference]) {
    const receipt = await mined(node, await node.rpc('eth_sendRawTransaction', [raw]));
    const block = await node.rpc('eth_getBlockByNumber', [receipt.blockNumber, false]);
    out.push({ receipt, stateRoot: block.stateRoot as string });
  }
  return out;
}

const cases: [name: string, key: string, tx: Record<string, unknown>][] = [
  ['transfer to a new account, gas price 0', testKey(0), { to: fresh(1), value: 1000n }],
  ['0 value to an address that does not exist (not created)', testKey(0), { to: fresh(2) }],
  ['0 value to an empty genesis account (removed)', testKey(0), { to: EMPTY }],
  ['to itself, with a gas limit above 21000 (refund)', testKey(0), { to: computeAddress(testKey(0)), value: 5n, gasPrice: 1n, gasLimit: 30_000n }],
  ['to the coinbase, which gets value and fee', testKey(1), { to: COINBASE, value: 7n, gasPrice: 2n }],
  ['from the coinbase, which pays and earns the fee', '0x' + NODE_KEY, { to: fresh(3), value: 1n, gasPrice: 3n }],
  ['EIP-1559: pays min(tip, fee cap)', testKey(2), { type: 2, to: fresh(4), value: 9n, maxFeePerGas: 5n, maxPriorityFeePerGas: 2n, gasPrice: undefined }],
  ['EIP-2930 without an access list', testKey(3), { type: 1, to: fresh(5), value: 11n, gasPrice: 1n }],
  ['EIP-2930 with an access list (runTx)', testKey(3), { type: 1, to: fresh(6), value: 1n, gasPrice: 1n, gasLimit: 30_000n, accessList: [{ address: fresh(6), storageKeys: [] }] }],
  ['to a precompile (runTx: it runs and charges gas)', testKey(2), { to: '0x0000000000000000000000000000000000000004', value: 1n, gasLimit: 30_000n }],
  ['a contract creation (runTx)', testKey(1), { to: null, data: DEPLOY, gasLimit: 100_000n }],
];

test('every block and receipt is the same with and without the direct path', async () => {
  let contract = '';
  for (const [name, key, tx] of cases) {
    const [a, b] = await mineOnBoth(await sign(key, tx));
    assert.is(a!.stateRoot, b!.stateRoot, `state root after: ${name}`);
    for (const field of ['status', 'gasUsed', 'cumulativeGasUsed', 'effectiveGasPrice', 'logsBloom', 'contractAddress', 'from', 'to']) {
      assert.equal(a!.receipt[field], b!.receipt[field], `${field} after: ${name}`);
    }
    if (a!.receipt.contractAddress) contract = a!.receipt.contractAddress;
  }
  // a transfer to the contract runs its code: runTx on both
  const [a, b] = await mineOnBoth(await sign(testKey(0), { to: contract, value: 3n, gasLimit: 50_000n }));
  assert.is(a!.stateRoot, b!.stateRoot, 'state root after a transfer to a contract');
  assert.ok(BigInt(a!.receipt.gasUsed) > 21_000n, 'the contract ran');
  assert.is(reference.core.executor.transfersApplied, 0);
  assert.is(direct.core.executor.transfersApplied, 8, 'the eight plain transfers took the direct path');
});

test('the outcomes are what the rules say, not only equal', async () => {
  for (const node of [direct, reference]) {
    assert.is(await node.rpc('eth_getBalance', [fresh(1), 'latest']), '0x3e8');
    const info = await node.rpc('eth_getAccountBaseInfo', [fresh(2), 'latest']);
    assert.is(info.Nonce, 0);
    assert.is(info.Balance, 0);
    // the coinbase: every fee (gas used × price) plus the 7 sent to it, minus the 1 it sent:
    // 21000×1 (self-transfer) + 7 + 21000×2 − 1 + 21000×2 (EIP-1559 tip) + 21000×1 + 23400×1 (EIP-2930
    // with one address in its access list); transactions at price 0 pay nothing
    assert.is(BigInt(await node.rpc('eth_getBalance', [COINBASE, 'latest'])), 21_000n + 7n + 42_000n - 1n + 42_000n + 21_000n + 23_400n);
  }
});

test('one block of many: direct transfers around runTx ones, the same state as runTx alone', async () => {
  // 1 s blocks, so that a batch lands in one or two blocks of many transactions each
  const genesis = testGenesis(NODE_KEY, 4, 1) as { alloc: Record<string, { balance: string }> };
  genesis.alloc[EMPTY] = { balance: '0' };
  genesis.alloc[COINBASE.toLowerCase()] = { balance: '1000000' };
  const nodes = [await startTestNode({ genesis, config: { directTransfers: true } }), await startTestNode({ genesis, config: { directTransfers: false } })];
  try {
    const next = new Map<string, number>();
    const signed = (key: string, tx: Record<string, unknown>) => {
      const w = new Wallet(key);
      const nonce = next.get(w.address) ?? 0;
      next.set(w.address, nonce + 1);
      return w.signTransaction(Transaction.from({ chainId: 300, gasLimit: 21_000n, type: 0, gasPrice: 1n, value: 0n, ...tx, nonce }));
    };
    const [a, b, c] = [testKey(0), testKey(1), testKey(2)];
    const raws: string[] = [];
    for (let i = 0; i < 6; i++) {
      raws.push(await signed(a, { to: fresh(10 + i), value: 100n + BigInt(i) }));
      raws.push(await signed(b, { to: computeAddress(a), value: 1n }));
    }
    raws.push(await signed(a, { to: computeAddress(a), value: 5n, gasPrice: 2n })); // to itself
    raws.push(await signed(b, { to: '0x0000000000000000000000000000000000000004', value: 1n, gasLimit: 30_000n })); // runTx
    raws.push(await signed(b, { to: COINBASE, value: 7n })); // to the coinbase after runTx
    raws.push(await signed(c, { to: null, data: DEPLOY, gasLimit: 100_000n })); // runTx
    raws.push(await signed(c, { to: EMPTY })); // EIP-161: the empty account goes
    raws.push(await signed(c, { to: fresh(30) })); // 0 to nothing: not created
    raws.push(await signed('0x' + NODE_KEY, { to: fresh(31), value: 3n, gasPrice: 3n })); // the coinbase pays and earns
    raws.push(await signed(a, { to: fresh(10), value: 1n, type: 2, maxFeePerGas: 4n, maxPriorityFeePerGas: 2n, gasPrice: undefined }));
    const heads: string[] = [];
    for (const node of nodes) {
      const body = raws.map((raw, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] }));
      const res = (await (await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as { result?: string; error?: unknown }[];
      assert.ok(res.every((r) => typeof r.result === 'string'), JSON.stringify(res.filter((r) => r.error)));
      const receipts = await Promise.all(res.map((r) => mined(node, r.result!)));
      assert.ok(receipts.every((r) => r.status === '0x1'));
      const last = receipts.map((r) => BigInt(r.blockNumber)).reduce((x, y) => (x > y ? x : y));
      heads.push((await node.rpc('eth_getBlockByNumber', ['0x' + last.toString(16), false])).stateRoot);
      if (node === nodes[0]) {
        const sizes = new Map<string, number>();
        for (const r of receipts) sizes.set(r.blockNumber, (sizes.get(r.blockNumber) ?? 0) + 1);
        assert.ok(Math.max(...sizes.values()) >= 10, `blocks of ${[...sizes.values()].join(', ')} transactions: one must mix many`);
        assert.is(node.core.executor.transfersApplied, raws.length - 2, 'all but the precompile call and the creation took the direct path');
      }
    }
    assert.is(heads[0], heads[1], 'the state after the batch');
    for (const address of [computeAddress(a), computeAddress(b), COINBASE, EMPTY, fresh(10), fresh(30), fresh(31)]) {
      assert.is(await nodes[0]!.rpc('eth_getBalance', [address, 'latest']), await nodes[1]!.rpc('eth_getBalance', [address, 'latest']), address);
    }
  } finally {
    for (const node of nodes) await node.stop();
  }
});

test.run();
