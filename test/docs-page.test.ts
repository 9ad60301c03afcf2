// The docs page (generated/docs/index.html; npm run codegen rebuilds it and npm test's freshness
// check covers it): self-contained, served by a real node at GET / and /docs when --http.docs is
// on, and rendered by headless Chromium with every method (params, result, errors, examples) and
// no request leaving the machine.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DOCS_PAGE } from '../docs/page/build.ts';
import { matchesQuery } from '../docs/page/search.ts';
import { ORIGINS, originsOf } from '../docs/page/origin.ts';
import { parseFlags, ALL_NAMESPACES, type NodeConfig } from '../src/node/config.ts';
import { startTestNode, type TestNode } from './helpers/node.ts';
import { docsPageRoutes } from '../src/node/docs-page.ts';
import { createLogger } from '../src/util/logger.ts';
import { chromiumMissing, launchChromium, type PageEvents } from './helpers/chromium.ts';
import { spawnNode } from './helpers/process.ts';

interface Method {
  name: string;
  summary?: string;
  params: { name: string }[];
  result: { name: string };
  errors?: ({ message: string } | { $ref: string })[];
  examples?: { name: string }[];
  tags?: { name: string }[];
}
const doc = JSON.parse(readFileSync(new URL('../openrpc.json', import.meta.url), 'utf8')) as { methods: Method[]; components: { errors: Record<string, { message: string }> } };
const names = doc.methods.map((m) => m.name);
const committed = readFileSync(DOCS_PAGE, 'utf8');

function http(docs: boolean): NodeConfig['http'] {
  return { addr: '127.0.0.1', port: 0, api: [...ALL_NAMESPACES], corsDomains: [], maxBodyBytes: 5 * 1024 * 1024, maxBatch: 1000, docs };
}

test('the page is self-contained: inline script and styles only, a CSP that forbids every request', () => {
  assert.not.match(committed, /<script[^>]+src=/i);
  assert.not.match(committed, /<link\b/i);
  assert.match(committed, `<meta http-equiv="Content-Security-Policy" content="default-src 'none';`);
  const embedded = /<script type="application\/json" id="openrpc-document">([\s\S]*?)<\/script>/.exec(committed)?.[1];
  assert.ok(embedded, 'embedded document');
  const shown = JSON.parse(embedded!) as { methods: Method[] };
  assert.equal(shown.methods.map((m) => m.name), names);
  for (const m of shown.methods) {
    // What docs-react renders is dereferenced: it shows schemas, not `$ref`s.
    assert.not.match(JSON.stringify([m.params, m.result, m.errors, m.examples]), '"$ref"', m.name);
  }
});

test('search: every term must occur in the name, summary, description or a param name', () => {
  const m = { name: 'eth_getBalance', summary: 'Returns the balance of an account in wei.', params: [{ name: 'address' }, { name: 'block' }], result: { name: 'balance' } };
  assert.ok(matchesQuery(m, ''));
  assert.ok(matchesQuery(m, 'GETBALANCE'));
  assert.ok(matchesQuery(m, 'balance wei'));
  assert.ok(matchesQuery(m, 'address'));
  assert.not.ok(matchesQuery(m, 'balance receipt'));
  assert.equal(doc.methods.filter((x) => matchesQuery(x, 'getBalance')).map((x) => x.name), ['eth_getBalance', 'chain_getBalance']);
  // the origin tag is searchable: Venachain's getBalance, the standard feeHistory
  assert.equal(doc.methods.filter((x) => matchesQuery(x, 'venachain getBalance')).map((x) => x.name), ['eth_getBalance', 'chain_getBalance']);
  assert.equal(doc.methods.filter((x) => matchesQuery(x, 'ethereum getBalance')).map((x) => x.name), []);
  assert.equal(doc.methods.filter((x) => matchesQuery(x, 'ethereum feeHistory')).map((x) => x.name), ['eth_feeHistory', 'chain_feeHistory']);
});

test('--http.docs: on by default for a dev chain, off with --genesis, settable either way', () => {
  const flags = (args: string[]) => {
    const c = parseFlags(args);
    if (c === 'help') throw new Error('help');
    return c.http.docs;
  };
  assert.is(flags([]), true);
  assert.is(flags(['--genesis', 'g.json']), false);
  assert.is(flags(['--genesis', 'g.json', '--http.docs', 'true']), true);
  assert.is(flags(['--http.docs', 'false']), false);
  assert.throws(() => flags(['--http.docs', 'yes']), /--http.docs must be true or false/);
});

let node: TestNode | undefined;
test.after(async () => {
  await node?.stop();
});

test('a node with --http.docs serves the page at / and /docs and JSON-RPC on the same port', async () => {
  node = await startTestNode({ config: { http: http(true) } });
  for (const path of ['', 'docs', 'docs?q=getBalance']) {
    const res = await fetch(node.url + path);
    assert.is(res.status, 200, path);
    assert.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.ok((await res.text()) === committed, `${path}: the committed page`);
  }
  assert.is(await node.rpc('eth_chainId'), '0x12c');
  assert.is(node.docsUrl, node.url + 'docs');
  const off = await startTestNode({ config: { http: http(false) } });
  try {
    assert.is((await fetch(off.url)).status, 405);
    assert.is(off.docsUrl, undefined);
  } finally {
    await off.stop();
  }
});

test('the start-up line names the docs page’s URL when the node serves it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'docs-page-cli-'));
  const p = await spawnNode(['--datadir', dir, '--http.port', '0', '--dev.period', '0']);
  try {
    const url = /, API docs and playground (http:\/\/\S+)/.exec(p.startLine)?.[1];
    assert.is(url, p.url + 'docs', p.startLine);
    assert.is((await fetch(url!)).status, 200);
  } finally {
    p.child.kill('SIGTERM');
    await p.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the page is read on its first request; a page removed after start-up is reported, not thrown', () => {
  const dir = mkdtempSync(join(tmpdir(), 'docs-page-'));
  try {
    const page = join(dir, 'index.html');
    copyFileSync(DOCS_PAGE, page);
    const lazy = docsPageRoutes(createLogger(0), page)!.get('/')!;
    rmSync(page);
    assert.match(String(lazy.body), /page unavailable: ENOENT/);
    copyFileSync(DOCS_PAGE, page);
    assert.ok(Buffer.from(lazy.body).toString('utf8') === committed, 'read once it is there again');
    rmSync(page);
    assert.ok(Buffer.from(lazy.body).toString('utf8') === committed, 'and kept');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const missing = chromiumMissing();
if (missing) {
  console.log(`docs-page: render test skipped: ${missing}`);
  test.skip('headless Chromium renders every method with no request leaving the machine');
} else {
  test('headless Chromium renders every method with no request leaving the machine', async () => {
    node ??= await startTestNode({ config: { http: http(true) } });
    const origin = new URL(node.url).origin;
    const browser = await launchChromium();
    /** Waits until React has rendered `count` method panels; returns each panel's text by method name. */
    const panels = async (count: number): Promise<Record<string, string>> => {
      await browser.evaluate(`new Promise((resolve, reject) => {
        const t0 = Date.now();
        (function poll() {
          if (document.querySelectorAll('.MuiAccordion-root[id]').length === ${count}) return resolve(true);
          if (Date.now() - t0 > 30000) return reject(new Error('methods did not render'));
          setTimeout(poll, 50);
        })();
      })`);
      return browser.evaluate(`Object.fromEntries([...document.querySelectorAll('.MuiAccordion-root[id]')].map((e) => [e.id, e.textContent]))`);
    };
    /** Nothing but the page itself was loaded, nothing was blocked, nothing failed. */
    const selfContained = (events: PageEvents, url: string) => {
      const external = events.requests.filter((u) => !u.startsWith(origin + '/') && !u.startsWith('data:'));
      assert.equal(external, [], 'requests that leave the machine');
      assert.equal(events.requests, [url], 'the page itself is the only request');
      assert.equal(events.failures, [], 'failed or blocked loads');
      assert.equal(events.logs.filter((l) => /Content Security Policy|exception|^error/i.test(l)), [], 'errors and CSP violations logged');
    };
    try {
      // The method list: every name with its summary; details render when a method is opened.
      let t = performance.now();
      const list = await browser.open(node.url + 'docs');
      const collapsed = await panels(names.length);
      const listMs = Math.round(performance.now() - t);
      assert.equal(Object.keys(collapsed), names, 'every method, in document order');
      for (const m of doc.methods) assert.ok(collapsed[m.name]!.includes(`${ORIGINS[originsOf(m)[0]!]} · ${m.summary ?? ''}`), `${m.name}: origin and summary`);
      const origins = await browser.evaluate<string>(`document.getElementById('method-origins').textContent`);
      const count = (o: string) => doc.methods.filter((m) => originsOf(m)[0] === o).length;
      assert.match(origins, `Venachain (search "venachain"): ${count('venachain')} Venachain 1.x's methods`);
      assert.match(origins, `Ethereum (search "ethereum"): ${count('ethereum')} standard Ethereum methods beyond them`);

      // The search box narrows the list as one types.
      await browser.evaluate(`document.getElementById('method-search').focus()`);
      await browser.type('getTransactionReceipt');
      assert.equal(Object.keys(await panels(2)), ['eth_getTransactionReceipt', 'chain_getTransactionReceipt']);
      assert.match(await browser.evaluate<string>(`document.getElementById('method-count').textContent`), `2 of ${names.length} methods`);
      selfContained(list, node.url + 'docs');

      // Every method opened (#all): params, result, errors and the first example of each.
      t = performance.now();
      const all = await browser.open(node.url + 'docs#all');
      const rendered = await panels(names.length);
      const allMs = Math.round(performance.now() - t);
      const errorMessage = (e: { message: string } | { $ref: string }) => ('$ref' in e ? doc.components.errors[e.$ref.split('/').pop()!]!.message : e.message);
      for (const m of doc.methods) {
        const text = rendered[m.name]!;
        for (const p of m.params) assert.ok(text.includes(p.name), `${m.name}: param ${p.name}`);
        assert.ok(text.includes('Result') && text.includes(m.result.name), `${m.name}: result ${m.result.name}`);
        for (const e of m.errors ?? []) assert.ok(text.includes(errorMessage(e)), `${m.name}: error ${errorMessage(e)}`);
        // docs-react shows one example at a time (the first; a menu switches): its name and request.
        const first = m.examples?.[0];
        if (first) assert.ok(text.includes(first.name) && text.includes('Request'), `${m.name}: example ${first.name}`);
      }
      selfContained(all, node.url + 'docs');
      console.log(`docs-page: Chromium rendered the list in ${listMs} ms, all ${names.length} methods opened in ${allMs} ms`);
    } finally {
      await browser.close();
    }
  });
}

test.run();
