// rpc.discover returns openrpc.json, and the document names every method of the interface
// specification in ../shared/spec — the expected names are derived from the spec's endpoint
// tables (`<ns>_` suffix tables expand to both eth_ and chain_).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startTestNode, type TestNode } from './helpers/node.ts';

const SPEC = fileURLToPath(new URL('../../shared/spec/chain-node-jsonrpc.md', import.meta.url));

/** Method names from the spec's "## Endpoints" tables. */
function specMethodNames(markdown: string): string[] {
  const endpoints = markdown.slice(markdown.indexOf('## Endpoints'), markdown.indexOf('## Authentication'));
  const names = new Set<string>();
  let suffixTable = false;
  let methodTable = false; // inside a "| Method |" or "| Suffix |" table (not e.g. the filter options table)
  for (const line of endpoints.split('\n')) {
    if (line.startsWith('### ')) suffixTable = line.includes('`<ns>_`');
    if (!line.startsWith('|')) methodTable = false;
    if (/^\| (Method|Suffix) \|/.test(line)) methodTable = true;
    const m = /^\| ([A-Za-z0-9_]+)(?: \[websocket\])? \|/.exec(line);
    if (!methodTable || !m || m[1] === 'Method' || m[1] === 'Suffix') continue;
    if (suffixTable) {
      names.add(`eth_${m[1]}`);
      names.add(`chain_${m[1]}`);
    } else {
      names.add(m[1]!);
    }
  }
  return [...names].sort();
}

let node: TestNode;
test.before(async () => {
  node = await startTestNode();
});
test.after(() => node.stop());

test('rpc.discover returns the OpenRPC document the node was generated from', async () => {
  const doc = await node.rpc('rpc.discover');
  const file = JSON.parse(readFileSync(fileURLToPath(new URL('../openrpc.json', import.meta.url)), 'utf8'));
  assert.equal(doc, file);
  assert.ok(String(doc.openrpc).startsWith('1.'));
});

test('every method of the spec is in the document, in eth_ and chain_ forms', async () => {
  if (!existsSync(SPEC)) {
    console.log(`  skipped: ${SPEC} is not present (it lives in the steering repo's shared/)`);
    return;
  }
  const expected = specMethodNames(readFileSync(SPEC, 'utf8'));
  assert.ok(expected.length >= 100, `parsed ${expected.length} names from the spec`);
  const doc = await node.rpc('rpc.discover');
  const names = new Set<string>(doc.methods.map((m: { name: string }) => m.name));
  const missing = expected.filter((n) => !names.has(n));
  assert.equal(missing, [], `missing from openrpc.json: ${missing.join(', ')}`);
  for (const n of names) {
    if (n.startsWith('eth_')) assert.ok(names.has(`chain_${n.slice(4)}`), `${n} has no chain_ twin`);
    if (n.startsWith('chain_')) assert.ok(names.has(`eth_${n.slice(6)}`), `${n} has no eth_ twin`);
  }
});

test('every method in the document is served (no method-not-found for a documented name)', async () => {
  const doc = await node.rpc('rpc.discover');
  for (const m of doc.methods as { name: string }[]) {
    const r = await node.raw(m.name, []);
    assert.ok(r.error?.code !== -32601, `${m.name} is documented but not served`);
  }
});

test.run();
