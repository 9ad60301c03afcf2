// @open-rpc/test-coverage against a real node on the fixture chain: its ExamplesRule calls every
// method with each of its examples and accepts a result equal to the example's or valid against
// the method's result schema. Our transport translates the examples' role values into the
// fixture's (test/contract/fixtures.ts), as the contract suite's own runner does.
import { createRequire } from 'node:module';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dereferenceDocument } from '@open-rpc/schema-utils-js';
import { DOCUMENT, createFixture, type Fixture } from './fixtures.ts';

interface CoverageCall {
  methodName: string;
  title: string;
  valid?: boolean;
  reason?: string;
  error?: { code: number; message: string };
}
type Coverage = (options: {
  openrpcDocument: unknown;
  transport: (url: string, method: string, params: unknown[]) => Promise<unknown>;
  reporters: object[];
  rules: object[];
}) => Promise<CoverageCall[]>;

// CommonJS with `exports.default`: required, so ESM and CJS loading agree on what `default` is.
const require = createRequire(import.meta.url);
const coverage = require('@open-rpc/test-coverage').default as Coverage;
const ExamplesRule = require('@open-rpc/test-coverage/build/rules/examples-rule').default as new () => object;
const silent = { onBegin() {}, onTestBegin() {}, onTestEnd() {}, onEnd() {} };

let fixture: Fixture;
test.before(async () => {
  fixture = await createFixture();
});
test.after(() => fixture.close());

test('@open-rpc/test-coverage: every example call of every method is valid', async () => {
  // Its result check compiles each method's result schema with ajv on its own: no `$ref`s, and
  // none of our vocabulary (`x-bigint`, which ajv's strict mode refuses).
  const document = withoutExtensions(await dereferenceDocument(structuredClone(DOCUMENT) as never));
  const calls = await coverage({
    openrpcDocument: document,
    transport: async (_url, method, params) => fixture.send(method, await fixture.prepare(method, params)),
    reporters: [silent],
    rules: [new ExamplesRule()],
  });
  const byMethod = new Map<string, CoverageCall[]>();
  for (const c of calls) byMethod.set(c.methodName, [...(byMethod.get(c.methodName) ?? []), c]);
  const lines = DOCUMENT.methods.map((m) => {
    const list = byMethod.get(m.name) ?? [];
    const ok = list.filter((c) => c.valid).length;
    const bad = list.filter((c) => !c.valid).map((c) => `\n      ${c.title}: ${c.reason ?? JSON.stringify(c.error)}`);
    return `  ${ok > 0 ? '✓' : '✗'} ${m.name.padEnd(46)} ${ok}/${list.length} calls valid${bad.join('')}`;
  });
  console.log(`test-coverage: ${calls.length} calls\n${lines.join('\n')}`);
  assert.equal(DOCUMENT.methods.filter((m) => !byMethod.get(m.name)?.some((c) => c.valid)).map((m) => m.name), [], 'methods without a valid call');
  assert.equal(calls.filter((c) => !c.valid).map((c) => `${c.methodName}: ${c.title}`), [], 'invalid calls');
});

/** The document with `x-` keys removed everywhere (schema extensions and extension fields). */
function withoutExtensions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutExtensions);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !k.startsWith('x-')).map(([k, v]) => [k, withoutExtensions(v)]));
}

test.run();
