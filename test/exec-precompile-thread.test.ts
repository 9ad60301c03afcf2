// Issue 19, item 1's follow-up: one precompile call is one synchronous function the execution
// watch cannot interrupt, so modexp, bn254 pairing and BLS12-381 MSM and pairing calls above
// THREAD_ABOVE_GAS run on the EVM's precompile thread. The thread runs @ethereumjs's own code:
// output, gas and errors equal the inline precompile's on valid and malformed inputs. A long call
// ends at --rpc.evmtimeout (eth_call) or --miner.txtimeout (a transaction, dropped) while
// eth_blockNumber keeps answering.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Transaction, Wallet } from 'ethers';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { getActivePrecompiles, type PrecompileInput } from '@ethereumjs/evm';
import { EngineEVM } from '../src/exec/engine-evm.ts';
import { makeCommon } from '../src/tx/common.ts';
import { EXECUTION_TIMEOUT } from '../src/exec/execution-watch.ts';
import { THREAD_ABOVE_GAS } from '../src/exec/heavy-precompiles.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import { mined, pollBlockNumber, startTestNode, testGenesis, testKey, NODE_KEY } from './helpers/node.ts';

const word = (x: bigint, bytes = 32) => x.toString(16).padStart(bytes * 2, '0');

// bn254 (EIP-197): G1 as x ‖ y, G2 as x_im ‖ x_re ‖ y_im ‖ y_re
const BN_P = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47n;
const BN_G1 = word(1n) + word(2n);
const BN_NEG_G1 = word(1n) + word(BN_P - 2n);
const BN_G2 =
  '198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2' +
  '1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed' +
  '090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b' +
  '12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa';
/** `n` pairs e(G1, G2)·e(−G1, G2)·…: the check holds for even n */
const bnPairs = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? BN_NEG_G1 : BN_G1) + BN_G2).join('');
const bnPairingGas = (n: number) => 45_000 + 34_000 * n;

// BLS12-381 (EIP-2537): field elements in 64 bytes, G2 coordinates as c0 ‖ c1
const G1 = bls12_381.G1.Point.BASE;
const G2 = bls12_381.G2.Point.BASE;
const fp = (x: bigint) => word(x, 64);
const g1 = (p: typeof G1) => { const a = p.toAffine(); return fp(a.x) + fp(a.y); };
const g2 = (p: typeof G2) => { const a = p.toAffine(); return fp(a.x.c0) + fp(a.x.c1) + fp(a.y.c0) + fp(a.y.c1); };
const g1Msm = (n: number) => Array.from({ length: n }, (_, i) => g1(G1.multiply(BigInt(i + 2))) + word(BigInt(i) * 0x1234567n + 99n)).join('');
const g2Msm = (n: number) => Array.from({ length: n }, (_, i) => g2(G2.multiply(BigInt(i + 2))) + word(BigInt(i) * 0x7654321n + 5n)).join('');
const blsPairs = (n: number) => Array.from({ length: n }, (_, i) => g1(i % 2 ? G1.negate() : G1) + g2(G2)).join('');
/** a G1 point moved off the curve (y + 1) */
const offCurveG1 = (hex: string) => hex.slice(0, 128) + fp(BigInt('0x' + hex.slice(128, 256)) + 1n) + hex.slice(256);

/** modexp: base ‖ exponent of `expBytes` bytes ‖ modulus, 32 bytes each otherwise */
const modexp = (expBytes: number, modulus = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn) =>
  word(32n) + word(BigInt(expBytes)) + word(32n) + word(3n) + 'a5'.repeat(expBytes) + word(modulus);

const at = (n: number) => n.toString(16).padStart(40, '0');
/** [address, what, input, gas limit] */
const CASES: [string, string, string, number][] = [
  [at(5), 'modexp, short exponent (inline)', modexp(32), 1_000_000],
  [at(5), 'modexp, 4 KiB exponent', modexp(4096), 1_000_000],
  [at(5), 'modexp, 4 KiB exponent, too little gas', modexp(4096), 150_000],
  [at(5), 'modexp, zero modulus', modexp(4096, 0n), 1_000_000],
  [at(5), 'modexp, truncated modulus', modexp(4096).slice(0, -20), 1_000_000],
  [at(5), 'modexp, a base length past any gas', word(1n << 40n) + word(1n) + word(1n) + '01', 10_000_000],
  [at(8), 'bn254 pairing, 1 pair (inline)', bnPairs(1), 1_000_000],
  [at(8), 'bn254 pairing, 4 pairs (holds)', bnPairs(4), 1_000_000],
  [at(8), 'bn254 pairing, 3 pairs (fails)', bnPairs(3), 1_000_000],
  [at(8), 'bn254 pairing, 4 pairs, too little gas', bnPairs(4), 150_000],
  [at(8), 'bn254 pairing, a point off the curve', bnPairs(3) + word(1n) + word(3n) + BN_G2, 1_000_000],
  [at(8), 'bn254 pairing, a length not a multiple of 192', bnPairs(4).slice(0, -2), 1_000_000],
  [at(0x0c), 'BLS12-381 G1 MSM, 12 points', g1Msm(12), 1_000_000],
  [at(0x0c), 'BLS12-381 G1 MSM, too little gas', g1Msm(12), 110_000],
  [at(0x0c), 'BLS12-381 G1 MSM, a point off the curve', offCurveG1(g1Msm(12)), 1_000_000],
  [at(0x0c), 'BLS12-381 G1 MSM, a bad length', g1Msm(12).slice(0, -2), 1_000_000],
  [at(0x0e), 'BLS12-381 G2 MSM, 6 points', g2Msm(6), 1_000_000],
  [at(0x0e), 'BLS12-381 G2 MSM, leading bytes not zero', '01' + g2Msm(6).slice(2), 1_000_000],
  [at(0x0f), 'BLS12-381 pairing, 4 pairs (holds)', blsPairs(4), 1_000_000],
  [at(0x0f), 'BLS12-381 pairing, 3 pairs (fails)', blsPairs(3), 1_000_000],
  [at(0x0f), 'BLS12-381 pairing, a point off the curve', offCurveG1(blsPairs(3)), 1_000_000],
  [at(0x0f), 'BLS12-381 pairing, too little gas', blsPairs(4), 150_000],
];

function outcome(r: { returnValue: Uint8Array; executionGasUsed: bigint; exceptionError?: { error: string } }) {
  return { out: bytesToHex(r.returnValue), gas: r.executionGasUsed, error: r.exceptionError?.error };
}

test('the precompile thread answers as @ethereumjs inline: output, gas and errors, valid and malformed', async () => {
  const evm = new EngineEVM({ common: makeCommon(300n) });
  try {
    const inline = getActivePrecompiles(evm.common);
    let threaded = 0;
    const results = new Map<string, ReturnType<typeof outcome>>();
    for (const [address, what, input, gasLimit] of CASES) {
      const opts = { data: hexToBytes('0x' + input), gasLimit: BigInt(gasLimit), common: evm.common, _EVM: evm } as unknown as PrecompileInput;
      const expected = outcome(await inline.get(address)!(opts));
      // the node's precompile (inline within THREAD_ABOVE_GAS, else the thread) and the thread alone
      assert.equal(outcome(await evm.precompiles.get(address)!(opts)), expected, what);
      assert.equal(outcome(await evm.precompileThread.run(address, opts, () => assert.unreachable('the thread stopped') as never, undefined)), expected, `${what} (thread)`);
      if (expected.error === undefined && expected.gas > THREAD_ABOVE_GAS) threaded++;
      results.set(what, expected);
    }
    assert.ok(threaded >= 7, `${threaded} valid calls above the threshold`);
    // the cases hold what their names say
    assert.is(results.get('bn254 pairing, 4 pairs (holds)')!.out, '0x' + word(1n));
    assert.is(results.get('bn254 pairing, 3 pairs (fails)')!.out, '0x' + word(0n));
    assert.is(results.get('BLS12-381 pairing, 4 pairs (holds)')!.out, '0x' + word(1n));
    assert.is(results.get('bn254 pairing, a point off the curve')!.error !== undefined, true);
    assert.is(results.get('BLS12-381 G1 MSM, a point off the curve')!.error, 'point not on curve');
    assert.is(results.get('modexp, 4 KiB exponent, too little gas')!.error, 'out of gas');
  } finally {
    await evm.close();
  }
});

test('a pairing on the thread halts at the deadline without holding the event loop; the next call starts a new thread', async () => {
  const evm = new EngineEVM({ common: makeCommon(300n) });
  try {
    const pairing = evm.precompiles.get(at(8))!;
    const call = (pairs: number) => pairing({ data: hexToBytes('0x' + bnPairs(pairs)), gasLimit: BigInt(bnPairingGas(pairs)), common: evm.common, _EVM: evm } as unknown as PrecompileInput);
    let slowest = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      slowest = Math.max(slowest, performance.now() - last);
      last = performance.now();
    }, 10);
    const t0 = performance.now();
    evm.executionWatch.limit({ deadline: t0 + 300 });
    const r = await call(880); // 29,965,000 gas: 12–23 s of work
    const ms = performance.now() - t0;
    evm.executionWatch.unlimit();
    clearInterval(ticker);
    assert.is(r.exceptionError?.error, EXECUTION_TIMEOUT);
    assert.is(r.executionGasUsed, BigInt(bnPairingGas(880)));
    assert.ok(ms < 2000, `halted after ${ms.toFixed(0)} ms`);
    assert.ok(slowest < 250, `the event loop was held ${slowest.toFixed(0)} ms`);
    assert.equal(outcome(await call(4)), { out: '0x' + word(1n), gas: BigInt(bnPairingGas(4)), error: undefined });
  } finally {
    await evm.close();
  }
});


test('--rpc.evmtimeout: eth_call of a 880-pair pairing and of a 400 KiB-exponent modexp end with the timeout error while the node answers', async () => {
  const node = await startTestNode({ config: { evmTimeoutMs: 400 } });
  try {
    const calls = [
      { to: '0x' + at(8), data: '0x' + bnPairs(880), gas: '0x' + (30_000_000).toString(16) },
      { to: '0x' + at(5), data: '0x' + modexp(400 * 1024), gas: '0x' + (30_000_000).toString(16) },
    ];
    for (const call of calls) {
      const poll = pollBlockNumber(node);
      const t0 = performance.now();
      const r = await node.raw('eth_call', [call, 'latest']);
      const ms = performance.now() - t0;
      const slowest = await poll.stop();
      assert.equal(r.error, { code: -32000, message: 'execution aborted (timeout = 400ms)' }, `${call.to}: ${JSON.stringify(r).slice(0, 300)}`);
      assert.ok(ms < 2500, `${call.to} answered after ${ms.toFixed(0)} ms`);
      assert.ok(slowest < 1000, `${call.to}: eth_blockNumber took ${slowest.toFixed(0)} ms`);
    }
    // the thread ended with the call and another started (from the sources ~1 s, inside 400 ms only
    // from the bundle; a fresh-clone CI run on a slow spell of this VM once took over 5 s): calls
    // answer exactly again
    let answer: { result?: string; error?: { message: string } } = {};
    for (const end = performance.now() + 15_000; answer.result === undefined && performance.now() < end; ) {
      answer = await node.raw('eth_call', [{ to: '0x' + at(8), data: '0x' + bnPairs(4) }, 'latest']);
    }
    assert.equal(answer.result, '0x' + word(1n), JSON.stringify(answer));
  } finally {
    await node.stop();
  }
});

test('--miner.txtimeout: a transaction calling a 600-pair pairing is dropped while eth_blockNumber answers', async () => {
  const lines: string[] = [];
  const genesis = testGenesis(NODE_KEY) as { config: Record<string, unknown> };
  genesis.config.txGasLimit = 30_000_000;
  const node = await startTestNode({ genesis, config: { txBudgetMs: 300, verbosity: 2 }, logWrite: (l) => lines.push(l) });
  try {
    const sender = new Wallet(testKey(0));
    const poll = pollBlockNumber(node);
    const pairing = await node.rpc('eth_sendRawTransaction', [
      await sender.signTransaction(Transaction.from({ to: '0x' + at(8), data: '0x' + bnPairs(600), gasLimit: 25_000_000n, gasPrice: 0n, chainId: 300, type: 0, nonce: 0 })),
    ]);
    const other = new Wallet(testKey(1));
    const t0 = performance.now();
    const transfer = await node.rpc('eth_sendRawTransaction', [
      await other.signTransaction(Transaction.from({ to: other.address, gasLimit: 21000n, gasPrice: 0n, chainId: 300, type: 0, nonce: 0 })),
    ]);
    assert.is((await mined(node, transfer)).status, '0x1');
    const sealedIn = performance.now() - t0;
    const slowest = await poll.stop();
    assert.ok(slowest < 1000, `eth_blockNumber took ${slowest.toFixed(0)} ms`);
    assert.ok(sealedIn < 2000, `a transfer took ${sealedIn.toFixed(0)} ms to be sealed`);
    assert.is(await node.rpc('eth_getTransactionReceipt', [pairing]), null);
    assert.ok(lines.some((l) => l.includes(`dropped ${pairing}`) && l.includes('300 ms')), lines.join('\n'));
  } finally {
    await node.stop();
  }
});

test.run();
