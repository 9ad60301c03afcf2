// The contract suite catches a handler whose result shape drifts from openrpc.json: the real
// handlers over a fixture chain, two of them broken on purpose, dispatched in-process through the
// real Dispatcher with the node's own result check off — the contract check must report them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildHandlers } from '../../src/api/index.ts';
import { clientVersion } from '../../src/api/node-info.ts';
import { ALL_NAMESPACES } from '../../src/node/config.ts';
import { Dispatcher } from '../../src/rpc/dispatch.ts';
import { replyText } from '../../src/rpc/response.ts';
import { methods } from '../../generated/methods.ts';
import type { JsonRpcResponse } from '../../src/client/transport.ts';
import { DOCUMENT, createFixture, type Document, type Fixture } from './fixtures.ts';
import { failures, runContract, type Send } from './runner.ts';

let fixture: Fixture;
let send: Send;

test.before(async () => {
  fixture = await createFixture();
  const core = fixture.node.core;
  const handlers = buildHandlers(
    { core, datadir: fixture.node.dir, clientVersion: clientVersion('0.0.0'), p2pPort: 0, httpHost: '127.0.0.1', httpLoopback: true, allowInsecureUnlock: false, parsePeerAddress: async () => {} },
    { gasCap: 50_000_000n },
  );
  // Broken on purpose: chain id as a plain number instead of a quantity, blocks without their hash.
  handlers.eth.chainId = (() => 300) as never;
  const getBlockByNumber = handlers.eth.getBlockByNumber;
  handlers.eth.getBlockByNumber = (async (...args: Parameters<typeof getBlockByNumber>) => {
    const block = await getBlockByNumber(...args);
    if (!block) return block;
    const { hash: _dropped, ...rest } = block;
    return rest;
  }) as never;
  const dispatcher = new Dispatcher({ methods, handlers, enabledNamespaces: new Set(ALL_NAMESPACES), checkResults: false, discover: () => DOCUMENT });
  let id = 0;
  send = async (method, params) => JSON.parse(replyText((await dispatcher.handle(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }), { transport: 'http' }))!)) as JsonRpcResponse;
});
test.after(() => fixture.close());

test('a changed result shape fails the contract check, for eth_ and chain_ alike', async () => {
  const only = new Set(['eth_chainId', 'chain_chainId', 'eth_getBlockByNumber', 'chain_getBlockByNumber', 'eth_getBalance']);
  const report = await runContract(DOCUMENT, fixture, send, only);
  assert.equal(report.uncovered, ['eth_chainId', 'chain_chainId'], 'no passing call');
  const failed = failures(report);
  for (const ns of ['eth', 'chain']) {
    assert.ok(failed.some((f) => f.startsWith(`${ns}_chainId/default: result does not match its schema`)), `${ns}_chainId reported:\n${failed.join('\n')}`);
    for (const ex of ['withHashes', 'withFullTransactions', 'pending']) {
      assert.ok(failed.some((f) => f.startsWith(`${ns}_getBlockByNumber/${ex}: result does not match its schema`) && f.includes('hash')), `${ns}_getBlockByNumber/${ex} reported`);
    }
  }
  // The untouched handlers still pass through the same in-process path.
  assert.is(report.methods.find((r) => r.method === 'eth_getBalance')!.passed, 2);
  assert.is(failed.filter((f) => f.startsWith('eth_getBalance')).length, 0);
});

test('an example naming an address the fixture does not provide is reported, not silently run', async () => {
  const drifted = structuredClone(DOCUMENT) as unknown as { methods: { name: string; examples: { params: { value: unknown }[] }[] }[] };
  drifted.methods.find((m) => m.name === 'eth_getBalance')!.examples[0]!.params[0]!.value = '0x' + '77'.repeat(20);
  const report = await runContract(drifted as unknown as Document, fixture, fixture.send, new Set(['eth_getBalance']));
  assert.match(failures(report)[0]!, /^eth_getBalance\/atLatest: names 0x7{40}, which the fixture does not provide/);
});

test.run();
