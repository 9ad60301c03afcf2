// npm run test:contract (and npm test): every method of openrpc.json, both namespaces, called with
// each of its examples on a fixture chain, results checked with the generated result validators.
// Fails if a method has no passing call; prints the per-method table either way.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DOCUMENT, createFixture, type Fixture } from './fixtures.ts';
import { failures, formatReport, runContract } from './runner.ts';

let fixture: Fixture;
test.before(async () => {
  fixture = await createFixture();
});
test.after(() => fixture.close());

test('every method of openrpc.json has a passing example call (100% method coverage)', async () => {
  const report = await runContract(DOCUMENT, fixture, fixture.send);
  console.log(`contract: openrpc.json examples on the fixture chain\n${formatReport(report)}`);
  assert.equal(report.methods.map((r) => r.method), DOCUMENT.methods.map((m) => m.name), 'every method is tried');
  assert.equal(report.uncovered, [], 'methods without a passing call');
  assert.equal(failures(report), [], 'every example passes');
});

test.run();
