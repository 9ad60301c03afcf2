// RawJson results (src/rpc/response.ts): text a handler wrote itself goes into the response
// verbatim, and with checkResults on the dispatcher parses it and validates what it is about to
// send — a schema mismatch or text that is not JSON is our bug, answered -32603 and logged.
// Driven through Dispatcher.handle (request text in, response text out), no transport needed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Ajv } from 'ajv';
import { Dispatcher } from '../src/rpc/dispatch.ts';
import { RawJson, rawResult, replyText } from '../src/rpc/response.ts';
import type { Logger, MethodSpec } from '../src/rpc/types.ts';

const ajv = new Ajv({ strict: false });
const logList = ajv.compile({ type: 'array', items: { type: 'object', required: ['blockNumber'], properties: { blockNumber: { type: 'string', pattern: '^0x[0-9a-f]+$' } } } });

let served = '';
const methods = new Map<string, MethodSpec>([
  ['test_logs', { name: 'test_logs', group: 'test', key: 'logs', params: [], required: 0, validateParams: [], validateResult: logList }],
]);
const handlers = { test: { logs: () => rawResult<object[]>(served) } };

const errors: string[] = [];
const log: Logger = { error: (m) => errors.push(m), warn() {}, info() {}, debug() {} };
const dispatcher = (checkResults: boolean) => new Dispatcher({ methods, handlers, enabledNamespaces: new Set(['test']), checkResults, discover: () => null, log });
const request = (id: number | string = 1) => JSON.stringify({ jsonrpc: '2.0', id, method: 'test_logs', params: [] });

test('RawJson text is spliced in verbatim, with checks on and off, and in a batch', async () => {
  // odd spacing survives: nothing re-serializes the text
  served = '[{"blockNumber":"0x1"}, {"blockNumber" :"0x2"}]';
  for (const check of [true, false]) {
    assert.is(await dispatcher(check).handle(request('a'), { transport: 'http' }), `{"jsonrpc":"2.0","id":"a","result":${served}}`);
  }
  assert.is(
    await dispatcher(true).handle(`[${request(1)},${request(2)}]`, { transport: 'ws' }),
    `[{"jsonrpc":"2.0","id":1,"result":${served}},{"jsonrpc":"2.0","id":2,"result":${served}}]`,
  );
  assert.equal(errors, []);
});

test('checkResults validates the parsed text against the result schema', async () => {
  served = '[{"blockNumber":"0x1"},{"blockNumber":17}]';
  const answer = JSON.parse(replyText((await dispatcher(true).handle(request(), { transport: 'http' }))!));
  assert.is(answer.error.code, -32603);
  assert.match(answer.error.message, /^internal error: result of test_logs failed its schema: \[1\]\.blockNumber must be a string$/);
  assert.is(errors.length, 1, 'logged');
  // with checks off the text goes out as it is (like any other result)
  assert.is(await dispatcher(false).handle(request(), { transport: 'http' }), `{"jsonrpc":"2.0","id":1,"result":${served}}`);
});

test('checkResults refuses text that is not JSON instead of sending a broken response', async () => {
  errors.length = 0;
  served = '[{"blockNumber":"0x1"},]';
  const answer = JSON.parse(replyText((await dispatcher(true).handle(request(), { transport: 'http' }))!));
  assert.is(answer.error.code, -32603);
  assert.match(answer.error.message, /^internal error: result of test_logs failed its schema: its JSON text does not parse: /);
  assert.is(errors.length, 1);
});

test('rawResult makes a RawJson', () => {
  const r: unknown = rawResult<number[]>('[1]');
  assert.ok(r instanceof RawJson);
  assert.is((r as RawJson).text, '[1]');
});

test.run();
