// "Try it" on the docs page: the params a panel starts with, their live check (the node's own
// param checks, so the message shown before sending is the one the node answers), the shell line,
// and — in headless Chromium against the node serving the page — eth_getBalance of the dev account,
// eth_call with a bad param refused on the page before anything is sent, and eth_subscribe
// ("newHeads") showing a push. PLAYGROUND_SCREENSHOT=docs/playground.png saves the README's image.
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { MethodObject } from '@open-rpc/meta-schema';
import { checkEdited, endpoint, initialParams, shellLine, shownServers } from '../docs/page/playground.ts';
import { ALL_NAMESPACES } from '../src/node/config.ts';
import { startTestNode, type TestNode } from './helpers/node.ts';
import { chromiumMissing, launchChromium, type Browser, type PageEvents } from './helpers/chromium.ts';

const doc = JSON.parse(readFileSync(new URL('../openrpc.json', import.meta.url), 'utf8')) as { methods: MethodObject[]; servers: { url: string }[] };
const method = (name: string) => doc.methods.find((m) => m.name === name)!;
const BAD_CALL = [{ to: '0x12' }, 'latest'];

let node: TestNode;
test.before(async () => {
  node = await startTestNode({
    dev: true,
    config: { http: { addr: '127.0.0.1', port: 0, api: [...ALL_NAMESPACES], corsDomains: [], maxBodyBytes: 5 * 1024 * 1024, maxBatch: 1000, docs: true } },
  });
});
test.after(async () => {
  await node.stop();
});

test('a panel starts from the method’s first example; every method’s starts valid', () => {
  assert.equal(initialParams(method('eth_getBalance')), ['0xc3024ee055f812112e0b12857fdc5784e0128732', 'latest']);
  assert.equal(initialParams(method('eth_subscribe')), ['newHeads']);
  for (const m of doc.methods) assert.is(checkEdited(m.name, JSON.stringify(initialParams(m))).problem, undefined, m.name);
  // without an example: one value per required param, from its schema (eth_getBalance's block is optional)
  const bare = { ...method('eth_getBalance'), examples: [] } as unknown as MethodObject;
  assert.equal(initialParams(bare), ['']);
});

test('the live check refuses what the node refuses, in the node’s words', async () => {
  assert.match(checkEdited('eth_call', '[{').problem!, /^not JSON: /);
  assert.is(checkEdited('eth_call', '{"to":"0x12"}').problem, 'params must be a JSON array: one value per parameter, in order');
  const refused = checkEdited('eth_call', JSON.stringify(BAD_CALL));
  assert.equal(refused.params, BAD_CALL, 'still sendable: the node answers it');
  const answered = await node.raw('eth_call', BAD_CALL);
  assert.is(answered.error?.code, -32602);
  assert.is(refused.problem, answered.error!.message);
  assert.is(checkEdited('eth_blockNumber', '[1]').problem, 'too many arguments, want at most 0');
});

test('the endpoint and server list: the serving node; a page opened from a file uses the document’s', () => {
  const served = { protocol: 'http:', origin: 'http://10.0.0.5:8545' };
  assert.is(endpoint(doc.servers, served), 'http://10.0.0.5:8545/');
  assert.equal(shownServers(doc.servers, served).map((s) => s.url), ['http://10.0.0.5:8545/']);
  const file = { protocol: 'file:', origin: 'null' };
  assert.is(endpoint(doc.servers, file), doc.servers[0]!.url);
  assert.equal(shownServers(doc.servers, file), doc.servers);
  assert.is(
    shellLine('http://h:1/', 'web3_sha3', ["it's"]),
    `curl -s -H 'content-type: application/json' http://h:1/ -d '{"jsonrpc":"2.0","id":1,"method":"web3_sha3","params":["it'\\''s"]}'`,
  );
  assert.match(shellLine('http://h:1/', 'eth_subscribe', ['newHeads']), /^npx wscat -c ws:\/\/h:1\/ /);
});

/** Polls `expression` in the page until it is truthy (10 s at most); returns its value. */
function waitFor<T>(browser: Browser, what: string, expression: string): Promise<T> {
  return browser.evaluate<T>(`new Promise((resolve, reject) => {
    const t0 = Date.now();
    (function poll() {
      let v;
      try { v = (${expression}); } catch {}
      if (v) return resolve(v);
      if (Date.now() - t0 > 10000) return reject(new Error(${JSON.stringify(`timed out waiting for ${what}`)}));
      setTimeout(poll, 25);
    })();
  })`);
}

/** Opens `method`'s panel (the page opened at #method) and types `params` into its editor; returns what the page loaded and logged. */
async function tryIt(browser: Browser, name: string, params?: unknown[]): Promise<PageEvents> {
  const events = await browser.open(`${node.url}docs#${name}`);
  await waitFor(browser, `${name}'s Try it`, `!!document.querySelector('[data-try=open][data-method=${name}]')`);
  await browser.evaluate(`document.querySelector('[data-try=open][data-method=${name}]').click()`);
  await waitFor(browser, `${name}'s editor`, `!!document.querySelector('#try-${name} [data-try=params]')`);
  if (params) {
    await browser.evaluate(`(() => { const t = document.querySelector('#try-${name} [data-try=params]'); t.focus(); t.select(); })()`);
    await browser.type(JSON.stringify(params));
  }
  return events;
}

const text = (name: string, part: string) => `document.querySelector('#try-${name} [data-try=${part}]')?.textContent`;

const missing = chromiumMissing();
if (missing) {
  console.log(`docs-playground: browser test skipped: ${missing}`);
  test.skip('Try it in headless Chromium: eth_getBalance, a refused eth_call, eth_subscribe pushes');
} else {
  test('Try it in headless Chromium: eth_getBalance, a refused eth_call, eth_subscribe pushes', async () => {
    const browser = await launchChromium();
    const dev = node.devAccount!;
    try {
      // eth_getBalance of the dev account, sent over HTTP to the node serving the page
      await tryIt(browser, 'eth_getBalance', [dev, 'latest']);
      assert.is(await waitFor(browser, 'a valid mark', text('eth_getBalance', 'problem')), 'params match the schemas');
      await browser.evaluate(`document.querySelector('#try-eth_getBalance [data-try=send]').click()`);
      const response = JSON.parse(await waitFor<string>(browser, 'the answer', text('eth_getBalance', 'response'))) as { result: string };
      assert.is(response.result, await node.rpc('eth_getBalance', [dev, 'latest']));
      assert.match(await browser.evaluate<string>(text('eth_getBalance', 'time')), /^answered in \d+\.\d ms$/);
      assert.is(
        await browser.evaluate<string>(text('eth_getBalance', 'shell')),
        `curl -s -H 'content-type: application/json' ${node.url} -d '{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["${dev}","latest"]}'`,
      );
      // the server list names this node, not the document's default address
      const page = await browser.evaluate<string>('document.body.textContent');
      assert.ok(page.includes(node.url) && page.includes('this node'), 'the serving node in the server list');
      if (process.env.PLAYGROUND_SCREENSHOT) writeFileSync(process.env.PLAYGROUND_SCREENSHOT, await browser.screenshot('#try-eth_getBalance', 1000));

      // eth_call with a bad param: the message shows as it is typed, and nothing has been sent
      const events = await tryIt(browser, 'eth_call', BAD_CALL);
      const problem = await waitFor<string>(browser, 'the validation message', `document.querySelector('#try-eth_call [data-try=problem][data-valid=false]')?.textContent`);
      const nodeSays = (await node.raw('eth_call', BAD_CALL)).error!.message;
      assert.is(problem, nodeSays);
      assert.equal(events.requests, [`${node.url}docs`], 'nothing sent before Send');
      assert.is(await browser.evaluate<string>(`document.querySelector('#try-eth_call [data-try=send]').textContent`), 'Send anyway');

      // eth_subscribe newHeads over a WebSocket: the subscription id, then a push per sealed block
      const subscribing = await tryIt(browser, 'eth_subscribe');
      await browser.evaluate(`document.querySelector('#try-eth_subscribe [data-try=send]').click()`);
      const subscribed = JSON.parse(await waitFor<string>(browser, 'the subscription id', text('eth_subscribe', 'response'))) as { result: string };
      assert.match(subscribed.result, /^0x[0-9a-f]+$/);
      const hash = await node.rpc('eth_sendTransaction', [{ from: dev, to: dev, value: '0x1' }]);
      const receipt = await waitForReceipt(hash);
      const pushes = await waitFor<string>(browser, 'a push', text('eth_subscribe', 'pushes'));
      const push = JSON.parse(pushes.slice(0, pushes.indexOf('\n}') + 2)) as { method: string; params: { subscription: string; result: { number: string; hash: string } } };
      assert.is(push.method, 'eth_subscription');
      assert.is(push.params.subscription, subscribed.result);
      assert.is(push.params.result.hash, receipt.blockHash);
      for (const e of [events, subscribing]) assert.equal(e.logs.filter((l) => /Content Security Policy|exception|^error/i.test(l)), [], 'errors and CSP violations logged');
    } finally {
      await browser.close();
    }
  });
}

async function waitForReceipt(hash: string): Promise<{ blockHash: string }> {
  for (let i = 0; i < 500; i++) {
    const r = await node.rpc('eth_getTransactionReceipt', [hash]);
    if (r) return r;
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error(`not mined: ${hash}`);
}

test.run();
