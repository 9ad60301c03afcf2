// npm run mock: the mock node (server-js in mock mode behind our guard) answers from openrpc.json's
// examples, survives requests without params, and the SDK works against it.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Router } from '@open-rpc/server-js';
import { dereferenceDocument } from '@open-rpc/schema-utils-js';
import { startMockServer, type MockServer } from '../src/mock/mock-server.ts';
import { ChainClient, RpcError } from '../generated/client/index.ts';

const document = JSON.parse(readFileSync(new URL('../openrpc.json', import.meta.url), 'utf8')) as {
  methods: { name: string; examples: { params: { value: unknown }[]; result: { value: unknown } }[] }[];
};
const example = (name: string) => document.methods.find((m) => m.name === name)!.examples[0]!;
let mock: MockServer;

async function post(body: string): Promise<{ status: number; json: any }> {
  const res = await fetch(mock.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, json: await res.json() };
}

test.before(async () => {
  mock = await startMockServer({ document, port: 0 });
});
test.after(() => mock.close());

test('listens on the port it was given (0: a free one) and answers a method with its example', async () => {
  assert.match(mock.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  assert.ok(mock.port > 0);
  const ex = example('eth_getBalance');
  const r = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: ex.params.map((p) => p.value) }));
  assert.equal(r.json, { jsonrpc: '2.0', id: 1, result: ex.result.value });
});

test('a request without params is answered, not a crash', async () => {
  const noParams = await post('{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}');
  assert.equal(noParams.json, { jsonrpc: '2.0', id: 2, result: example('eth_chainId').result.value });
  const missingRequired = await post('{"jsonrpc":"2.0","id":3,"method":"eth_getBalance"}');
  assert.is(missingRequired.json.error.code, -32602);
  const nullParams = await post('{"jsonrpc":"2.0","id":4,"method":"eth_getBalance","params":null}');
  assert.is(nullParams.json.error.code, -32602);
  assert.is((await post('{"jsonrpc":"2.0","id":5,"method":"net_version","params":[]}')).json.result, '300', 'still up');
});

test('the guard is needed: server-js itself throws on a request without params', async () => {
  const doc = await dereferenceDocument(structuredClone(document) as never);
  const router = new Router(doc as never, { mockMode: true });
  try {
    await router.call('eth_getBalance', undefined);
    assert.unreachable('server-js accepted a call without params: the guard in src/mock may be dropped');
  } catch (e) {
    assert.instance(e, TypeError);
  }
});

test('malformed JSON, bad envelopes, unknown methods and batches get JSON-RPC answers', async () => {
  assert.is((await post('{"jsonrpc":')).json.error.code, -32700);
  assert.is((await post('null')).json.error.code, -32600);
  assert.is((await post('[]')).json.error.code, -32600);
  assert.is((await post('{"jsonrpc":"2.0","id":6,"method":"eth_nope","params":[]}')).json.error.code, -32601);
  const batch = await post('[{"jsonrpc":"2.0","id":7,"method":"eth_chainId"},{"jsonrpc":"2.0","id":8,"method":"web3_clientVersion","params":[]}]');
  assert.equal(batch.json.map((r: { id: number }) => r.id), [7, 8]);
  const res = await fetch(mock.url, { method: 'OPTIONS', headers: { origin: 'http://localhost:5173' } });
  assert.is(res.status, 204);
  assert.is(res.headers.get('access-control-allow-origin'), '*');
});

test('the SDK talks to the mock as to a node', async () => {
  const client = ChainClient.http(mock.url);
  assert.is(await client.eth.chainId(), example('eth_chainId').result.value);
  try {
    await client.eth.getBalance('0x12' as string);
    assert.unreachable();
  } catch (e) {
    assert.instance(e, RpcError);
    assert.is((e as RpcError).code, -32602);
  }
});

test.run();
