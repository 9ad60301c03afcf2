// Which transport serves (src/rpc/server.ts, A13): 'auto' picks uWebSockets.js
// where its binary loads (here: Node 20 on linux-x64), 'node' serves with node:http + ws, the
// --http.transport flag reaches the server, and a binary that does not load is a reason, not a
// crash. What each transport answers is tested in rpc-server.test.ts, over both.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { startRpcServer } from '../src/rpc/server.ts';
import { loadUws } from '../src/rpc/uws-load.ts';
import { ConfigError, parseFlags, type NodeConfig } from '../src/node/config.ts';
import { startTestNode } from './helpers/node.ts';

const dispatcher = { handle: async (body: string) => `{"jsonrpc":"2.0","id":1,"result":${JSON.stringify(body.length)}}` };

/** POSTs a body; the answer and whether uWebSockets.js wrote it (it adds a `uWebSockets: 20` header). */
async function post(url: string, body: string): Promise<{ json: unknown; uws: boolean }> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { json: await r.json(), uws: r.headers.get('uwebsockets') !== null };
}

async function wsRoundTrip(wsUrl: string): Promise<unknown> {
  const ws = new WebSocket(wsUrl);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const reply = new Promise((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)))));
  ws.send('abc');
  const json = await reply;
  ws.close();
  return json;
}

test("'auto' picks uWebSockets.js here", async () => {
  const s = await startRpcServer({ dispatcher });
  try {
    assert.is(s.transport, 'uws');
    assert.equal(await post(s.url, 'abcd'), { json: { jsonrpc: '2.0', id: 1, result: 4 }, uws: true });
    assert.equal(await wsRoundTrip(s.wsUrl), { jsonrpc: '2.0', id: 1, result: 3 });
  } finally {
    await s.close();
  }
});

test("'node' serves with node:http + ws", async () => {
  const s = await startRpcServer({ dispatcher, transport: 'node' });
  try {
    assert.is(s.transport, 'node');
    assert.equal(await post(s.url, 'abcd'), { json: { jsonrpc: '2.0', id: 1, result: 4 }, uws: false });
    assert.equal(await wsRoundTrip(s.wsUrl), { jsonrpc: '2.0', id: 1, result: 3 });
  } finally {
    await s.close();
  }
});

test('a uWebSockets.js binary that does not load is a reason, not a throw', () => {
  const dir = mkdtempSync(join(tmpdir(), 'uws-load-'));
  try {
    const bogus = join(dir, 'uws_linux_x64_115.node');
    writeFileSync(bogus, 'not an ELF file');
    const r = loadUws(bogus);
    assert.ok('reason' in r, 'no module');
    assert.match((r as { reason: string }).reason, /does not load: .*uws_linux_x64_115\.node/);
    const missing = loadUws(join(dir, 'nothing.node'));
    assert.ok('reason' in missing);
    // the real one still loads (a failed try is not kept)
    assert.ok('uws' in loadUws());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--http.transport: auto by default, uws|node accepted, anything else refused', () => {
  const http = (argv: string[]) => (parseFlags(argv) as NodeConfig).http.transport;
  assert.is(http([]), 'auto');
  assert.is(http(['--http.transport', 'node']), 'node');
  assert.is(http(['--http.transport', 'uws']), 'uws');
  assert.throws(() => parseFlags(['--http.transport', 'fast']), (e: Error) => e instanceof ConfigError && /--http\.transport must be auto, uws or node/.test(e.message));
});

test('the node passes its transport setting to the server', async () => {
  for (const [transport, uws] of [
    ['node', false],
    ['uws', true],
    ['auto', true],
  ] as const) {
    const node = await startTestNode({ transport });
    try {
      const r = await post(node.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }));
      assert.equal(r, { json: { jsonrpc: '2.0', id: 1, result: '0x0' }, uws }, transport);
    } finally {
      await node.stop();
    }
  }
});

test.run();
