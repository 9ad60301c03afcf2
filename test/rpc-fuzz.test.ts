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

test('a few thousand schema-drawn requests: no violation', async () => {
  const report = await runFuzz({ seed: Number(process.env.FUZZ_SEED ?? 26), requestsPerRound: 2500, rounds: 1 });
  const summary = formatReport(report);
  assert.is(report.violationCount, 0, summary);
  assert.ok(report.requests >= 2500, summary);
  assert.ok(report.valid > 500 && report.invalid > 1000 && report.results > 300, `both kinds sent, results checked: ${summary}`);
  assert.ok(report.http > 500 && report.ws > 500 && report.inBatches > 500, `both transports, batches: ${summary}`);
  assert.is(report.stateChecks, 1);
  assert.ok(report.methods > 130, summary);
});

test.run();
