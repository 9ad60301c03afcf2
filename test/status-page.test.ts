// The status page (GET /status): served with the docs page and under its rules, and in headless
// Chromium it shows the head, blocks, transactions, pool and validators, and follows new blocks
// live over the node's own WebSocket with no other request.
//   STATUS_PNG=docs/status.png npx uvu -r tsx test 'status-page\.test\.ts$'   also writes the README's screenshot
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ALL_NAMESPACES, type NodeConfig } from '../src/node/config.ts';
import { mined, startTestNode, type TestNode } from './helpers/node.ts';
import { chromiumMissing, launchChromium } from './helpers/chromium.ts';

function http(docs: boolean, api: string[] = [...ALL_NAMESPACES]): NodeConfig['http'] {
  return { addr: '127.0.0.1', port: 0, api, corsDomains: [], maxBodyBytes: 5 * 1024 * 1024, maxBatch: 1000, docs };
}

/** GET `path` with a Host header of our choosing (fetch does not let one set it). */
function get(node: TestNode, path: string, host: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const u = new URL(node.url);
  return new Promise((resolve, reject) => {
    request({ host: u.hostname, port: u.port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    })
      .on('error', reject)
      .end();
  });
}

async function transfer(node: TestNode, from: string, value: number): Promise<string> {
  const hash = await node.rpc('eth_sendTransaction', [{ from, to: '0x' + '77'.repeat(20), value: '0x' + value.toString(16) }]);
  await mined(node, hash);
  return hash;
}

test('served with the docs page, under the same rules: on with --http.docs, Host names checked', async () => {
  const on = await startTestNode({ dev: true, config: { http: http(true) } });
  const off = await startTestNode({ dev: true, config: { http: http(false) } });
  try {
    const page = await get(on, '/status', 'localhost');
    assert.is(page.status, 200);
    assert.match(String(page.headers['content-type']), 'text/html');
    assert.match(page.body, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'">`);
    assert.not.match(page.body, /<script[^>]+src=|<link\b/);
    assert.is((await get(on, '/status', 'rebound.example')).status, 403, '--http.vhosts applies');
    assert.is((await get(off, '/status', 'localhost')).status, 405, 'off with the docs page');
  } finally {
    await Promise.all([on.stop(), off.stop()]);
  }
});

test('the sync tile\'s note, from the page served, for what eth_syncing answers mid-sync (without a browser)', async () => {
  const node = await startTestNode({ dev: true, config: { http: http(true) } });
  try {
    node.core.syncProgress = { startingBlock: 0n, currentBlock: 0n, highestBlock: 4000n, phase: 'full', downloadedBlock: 256n, importedBlocks: 0, importedTransactions: 0, blocksPerSecond: 400, secondsLeft: 10 };
    const syncing = await node.rpc('eth_syncing');
    const page = (await get(node, '/status', 'localhost')).body;
    const source = /function syncLine\(s\) \{[\s\S]*?\n\}/.exec(page)?.[0];
    assert.ok(source, 'the page defines syncLine');
    const syncLine = new Function('hexNum', `return (${source})`)((h: string) => parseInt(h, 16)) as (s: unknown) => string;
    assert.is(syncLine(syncing), '#0 of #4000, downloaded to #256 \u00b7 400 blocks/s \u00b7 ETA 10 s');
    node.core.syncProgress = { ...node.core.syncProgress, downloadedBlock: 0n, secondsLeft: undefined };
    assert.is(syncLine(await node.rpc('eth_syncing')), '#0 of #4000 \u00b7 400 blocks/s');
  } finally {
    node.core.syncProgress = undefined;
    await node.stop();
  }
});

const missing = chromiumMissing();
if (missing) {
  console.log(`status-page: render test skipped: ${missing}`);
  test.skip('headless Chromium: head, blocks, transactions, pool, validators, live over the WebSocket');
} else {
  test('headless Chromium: head, blocks, transactions, pool, validators, live over the WebSocket', async () => {
    const node = await startTestNode({ dev: true, config: { http: http(true) } });
    const browser = await launchChromium();
    try {
      const [dev] = await node.rpc<string[]>('eth_accounts');
      for (let i = 1; i <= 3; i++) await transfer(node, dev!, i * 1e15);
      const events = await browser.open(node.url + 'status');
      const text = (sel: string) => browser.evaluate<string>(`document.querySelector(${JSON.stringify(sel)}).textContent`);
      const until = (cond: string) =>
        browser.evaluate(`new Promise((resolve, reject) => {
          const t0 = Date.now();
          (function poll() {
            if (${cond}) return resolve(true);
            if (Date.now() - t0 > 10000) return reject(new Error(${JSON.stringify(`not met: ${cond}`)}));
            setTimeout(poll, 25);
          })();
        })`);
      await until(`document.querySelector('#t-head .value').textContent === '#3' && document.querySelector('#t-validators .value').textContent !== '\u2014'`);
      assert.is(await text('#live'), 'live');
      assert.is(await text('#t-pool .value'), '0 pending');
      assert.is(await text('#t-validators .value'), '1');
      assert.is(await text('#t-peers .value'), '0');
      assert.is(await text('#t-sync .value'), 'in step');
      assert.is(await browser.evaluate<number>(`document.querySelectorAll('#blocks tr').length`), 4, 'blocks #3…#0');
      assert.is(await browser.evaluate<number>(`document.querySelectorAll('#txs tr[data-hash]').length`), 3);
      assert.match(await text('#chain'), /^chain 300 · chain-node\//);
      // a new block arrives over the WebSocket subscription
      const hash = await transfer(node, dev!, 4e15);
      await until(`document.querySelector('#t-head .value').textContent === '#4' && document.querySelector('#txs tr[data-hash="${hash}"]') !== null`);
      assert.match(await text(`#txs tr[data-hash="${hash}"]`), /#4.*0\.004$/);
      if (process.env.STATUS_PNG) writeFileSync(process.env.STATUS_PNG, await browser.screenshot('body', 1200));
      assert.equal(events.requests, [node.url + 'status'], 'nothing fetched but the page (the WebSocket is not a request)');
      assert.equal(events.failures, []);
      assert.equal(events.logs.filter((l) => /^(error|exception)/.test(l)), []);
    } finally {
      await browser.close();
      await node.stop();
    }
  });

  test('while a sync runs, the sync tile shows its phase, progress, rate and time left', async () => {
    const node = await startTestNode({ dev: true, config: { http: http(true) } });
    const browser = await launchChromium();
    try {
      // what a BlockSync publishes through the chain door while it runs (the sync itself: p2p-sync.test.ts)
      node.core.syncProgress = { startingBlock: 0n, currentBlock: 0n, highestBlock: 4000n, phase: 'full', downloadedBlock: 256n, importedBlocks: 0, importedTransactions: 0, blocksPerSecond: 400, secondsLeft: 10 };
      await browser.open(node.url + 'status');
      await browser.evaluate(`new Promise((resolve) => (function poll() { document.querySelector('#t-sync .note').textContent ? resolve(true) : setTimeout(poll, 25); })())`);
      const sync = await browser.evaluate<string>(`document.querySelector('#t-sync .value').textContent + ' / ' + document.querySelector('#t-sync .note').textContent`);
      assert.is(sync, 'syncing (full) / #0 of #4000, downloaded to #256 \u00b7 400 blocks/s \u00b7 ETA 10 s');
    } finally {
      node.core.syncProgress = undefined;
      await browser.close();
      await node.stop();
    }
  });

  test('a listener that serves only eth,net,web3: the other tiles say "not served"', async () => {
    const node = await startTestNode({ dev: true, config: { http: http(true, ['eth', 'net', 'web3']) } });
    const browser = await launchChromium();
    try {
      await browser.open(node.url + 'status');
      await browser.evaluate(`new Promise((resolve) => (function poll() { document.querySelector('#t-pool .note').textContent ? resolve(true) : setTimeout(poll, 25); })())`);
      const tiles = await browser.evaluate<Record<string, string>>(`Object.fromEntries([...document.querySelectorAll('.tile')].map((t) => [t.id, t.querySelector('.value').textContent + ' / ' + t.querySelector('.note').textContent]))`);
      assert.equal(tiles, {
        't-head': '#0 / ' + tiles['t-head']!.split(' / ')[1],
        't-blocktime': '\u2014 / one block so far',
        't-tps': '\u2014 / ',
        't-pool': '\u2014 / not served',
        't-peers': '\u2014 / not served',
        't-validators': '\u2014 / not served',
        't-sync': 'in step / not syncing',
      });
    } finally {
      await browser.close();
      await node.stop();
    }
  });
}

test.run();
