// The SDK's connection handling against real nodes: a WebSocket client outlives its node's restart
// (same port, same datadir) — it reconnects with backoff, says so, renews its subscription, and the
// same listener gets the next newHeads; per-call abort signals and timeouts over HTTP and WebSocket.
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ChainClient, TransportError, type BlockHeader, type ClientEvents } from '../generated/client/index.ts';
import { ALL_NAMESPACES } from '../src/node/config.ts';
import { startTestNode, type TestNode } from './helpers/node.ts';
import { paced, slowdown } from './helpers/pace.ts';

/** Resolves when `check` holds, polling every 10 ms; rejects after `ms`. */
async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('a WebSocket subscription survives the node’s restart: reconnect event, next newHeads to the same listener', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-reconnect-'));
  let node: TestNode | undefined = await startTestNode({ dev: true, dir });
  const port = node.port;
  const client = ChainClient.ws(node.wsUrl, { reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
  const events: string[] = [];
  let reconnected: ClientEvents['reconnect'] | undefined;
  client.on('disconnect', (e) => events.push(`disconnect: ${e.error.message}`));
  client.on('reconnect', (e) => {
    events.push('reconnect');
    reconnected = e;
  });
  try {
    const heads: BlockHeader[] = [];
    const sub = await client.subscribe('newHeads', (h) => heads.push(h));
    const dev = node.devAccount!;
    await client.eth.sendTransaction({ from: dev, to: dev, value: '0x1' });
    await until('head #1', () => heads.length === 1);

    await node.stop();
    node = undefined;
    await until('the disconnect event', () => events.length === 1);
    assert.match(events[0]!, /^disconnect: WebSocket ws:\/\/127\.0\.0\.1:\d+\/? closed/);
    // calls made while the node is down wait for the reconnect, within their timeout
    const waiting = client.eth.blockNumber();
    await new Promise((r) => setTimeout(r, 100));

    node = await startTestNode({
      dev: true,
      dir,
      config: { http: { addr: '127.0.0.1', port, api: [...ALL_NAMESPACES], corsDomains: [], maxBodyBytes: 5 * 1024 * 1024, maxBatch: 1000 } },
    });
    await until('the reconnect event', () => reconnected !== undefined);
    assert.equal(events, [events[0], 'reconnect']);
    assert.ok(reconnected!.attempts >= 1);
    assert.is(reconnected!.subscriptions, 1);
    assert.equal(reconnected!.failed, []);
    assert.is(await waiting, '0x1', 'the call made during the outage answered after the reconnect');

    await client.eth.sendTransaction({ from: dev, to: dev, value: '0x2' });
    await until('head #2 through the same client and listener', () => heads.length === 2);
    assert.is(heads[1]!.number, '0x2');
    assert.is(await client.eth.unsubscribe(sub.id), true, 'the renewed subscription is the live one on the node');
  } finally {
    await client.close();
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('reconnect: false — the transport stays closed after a loss', async () => {
  const node = await startTestNode({ dev: true });
  const client = ChainClient.ws(node.wsUrl, { reconnect: false });
  let reconnects = 0;
  client.on('reconnect', () => reconnects++);
  try {
    assert.is(await client.eth.chainId(), '0x12c');
    await node.stop();
    try {
      await client.eth.chainId();
      assert.unreachable('answered after its node stopped');
    } catch (e) {
      assert.instance(e, TransportError);
    }
    assert.is(reconnects, 0);
  } finally {
    await client.close();
  }
});

test('per-call options: an aborted call rejects with the signal’s reason, a stalled one times out', async () => {
  // A server that accepts connections and never answers: the stalled node the timeout is for.
  const sockets = new Set<import('node:net').Socket>();
  const stalled: Server = createServer((s) => sockets.add(s));
  await new Promise<void>((r) => stalled.listen(0, '127.0.0.1', r));
  const port = (stalled.address() as { port: number }).port;
  const node = await startTestNode({ dev: true });
  const clients = [ChainClient.http(node.url), ChainClient.ws(node.wsUrl)];
  try {
    for (const client of clients) {
      const aborted = new AbortController();
      aborted.abort();
      try {
        await client.with({ signal: aborted.signal }).eth.chainId();
        assert.unreachable('an aborted call answered');
      } catch (e) {
        assert.is((e as Error).name, 'AbortError');
      }
      assert.is(await client.with({ timeoutMs: 5000 }).eth.chainId(), '0x12c');
      const [id] = await client.batch((api) => [api.eth.chainId()], { timeoutMs: 5000 });
      assert.is(id, '0x12c');
    }
    const slow = ChainClient.http(`http://127.0.0.1:${port}/`);
    const pace = await slowdown();
    const t0 = Date.now();
    try {
      await slow.with({ timeoutMs: 150 }).eth.chainId();
      assert.unreachable('a stalled server answered');
    } catch (e) {
      assert.instance(e, TransportError);
      assert.match((e as Error).message, /no answer within 150 ms/);
    }
    const bound = await paced(2000, pace);
    assert.ok(Date.now() - t0 < bound, `gave up after ${Date.now() - t0} ms (bound ${bound.toFixed(0)} ms at this machine's pace)`);
    const later = new AbortController();
    const call = slow.with({ signal: later.signal }).eth.chainId();
    setTimeout(() => later.abort(), 50);
    try {
      await call;
      assert.unreachable('a stalled server answered');
    } catch (e) {
      assert.is((e as Error).name, 'AbortError');
    }
  } finally {
    for (const c of clients) await c.close();
    await node.stop();
    for (const s of sockets) s.destroy();
    await new Promise((r) => stalled.close(r));
  }
});

test.run();
