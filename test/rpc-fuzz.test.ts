// The schema-driven fuzzer's bounded budget (test/helpers/rpc-fuzz.ts): a few thousand requests
// drawn from openrpc.json — valid and mutated params for every method it sends, broken envelopes —
// over HTTP and WebSocket, singly and in batches, to a dev-chain node in a child process with a
// contract and some blocks. It fails on any violation: a malformed answer, a refused param answered
// otherwise than -32602, an internal error, a result off its schema, state changed by refused
// requests, an answer later than its bound, a stack or ERROR line in the node's log, the node
// exiting, or its memory growing. The seed is fixed (FUZZ_SEED overrides it); the long run is
// `npm run fuzz -- --minutes N --seed S`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatReport, runFuzz } from './helpers/rpc-fuzz.ts';
import { Wallet, Transaction } from 'ethers';
import { startTestNode, mined, testKey } from './helpers/node.ts';

test('a few thousand schema-drawn requests: no violation', async () => {
  const report = await runFuzz({ seed: Number(process.env.FUZZ_SEED ?? 26), requestsPerRound: 4000, rounds: 1 });
  const summary = formatReport(report);
  assert.is(report.violationCount, 0, summary);
  assert.ok(report.requests >= 4000, summary);
  assert.ok(report.valid > 500 && report.invalid > 1000 && report.results > 300, `both kinds sent, results checked: ${summary}`);
  assert.ok(report.http > 500 && report.ws > 500 && report.inBatches > 500, `both transports, batches: ${summary}`);
  assert.is(report.stateChecks, 1);
  assert.ok(report.methods > 130, summary);
});

test('what the fuzzer found, replayed: each answers a JSON-RPC error in words, none an internal error', async () => {
  const node = await startTestNode({ dev: true });
  try {
    // a contract creation whose value the sender cannot pay: @ethereumjs threw a non-Error out of
    // its call with a checkpoint open, which kept the sender's raised nonce for later calls
    const poor = new Wallet(testKey(5));
    await mined(node, await node.rpc('eth_sendTransaction', [{ from: node.devAccount, to: poor.address, value: '0x100' }]));
    const unpayable = { from: poor.address, value: '0x1000' };
    for (const [method, params] of [
      ['eth_estimateGas', [unpayable]],
      ['eth_createAccessList', [unpayable]],
      ['eth_fillTransaction', [unpayable]],
      ['debug_traceCall', [unpayable]],
      ['debug_traceCall', [unpayable, 'latest', { tracer: 'callTracer' }]],
      ['debug_traceCall', [unpayable, 'latest', { tracer: 'prestateTracer' }]],
    ] as const) {
      const r = await node.raw(method, [...params]);
      assert.ok(r.error === undefined || r.error.code !== -32603, `${method}: ${JSON.stringify(r)}`);
      if (r.error) assert.match(r.error.message, /insufficient balance/, `${method}: ${r.error.message}`);
      // the call tracer's frame fails as a call's does
      if (r.result?.type === 'CREATE') assert.is(r.result.error, 'insufficient balance');
    }
    // the block with the sender's first transaction replays on its parent's state as it was
    const chainId = BigInt(await node.rpc('eth_chainId'));
    const first = await mined(node, await node.rpc('eth_sendRawTransaction', [await poor.signTransaction(Transaction.from({ nonce: 0, to: poor.address, gasLimit: 21000, gasPrice: 0, chainId, type: 0 }))]));
    const traced = await node.raw('debug_traceBlockByNumber', [first.blockNumber]);
    assert.equal(traced.error, undefined, JSON.stringify(traced));
    // impossible transaction fields in a simulated call: @ethereumjs's constructor threw
    const simulate = (call: object) => node.raw('eth_simulateV1', [{ blockStateCalls: [{ calls: [call] }] }, 'latest']);
    const nonce = await simulate({ nonce: '0x' + 'f'.repeat(20) });
    assert.equal(nonce.error, { code: -32602, message: 'nonce cannot equal or exceed MAX_UINT64 (2^64-1), given 1208925819614629174706175' });
    const tip = await simulate({ maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' });
    assert.is(tip.error?.code, -32602, JSON.stringify(tip));
    assert.match(tip.error!.message, /^maxFeePerGas cannot be less than maxPriorityFeePerGas/);
  } finally {
    await node.stop();
  }
});

test.run();
