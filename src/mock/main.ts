// npm run mock: a mock node answering from openrpc.json's examples (src/mock/mock-server.ts).
//   --port N     default 6792 (0 picks a free one)
//   --host ADDR  default 127.0.0.1
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startMockServer } from './mock-server.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '6792' }, host: { type: 'string', default: '127.0.0.1' } } });
if (!/^\d+$/.test(values.port)) {
  console.error(`mock: --port must be a number, got "${values.port}"`);
  process.exit(1);
}
const document = JSON.parse(readFileSync(new URL('../../openrpc.json', import.meta.url), 'utf8')) as unknown;
const mock = await startMockServer({ document, host: values.host, port: Number(values.port) });
console.log(`mock: serving openrpc.json's examples on ${mock.url} (Ctrl-C stops)`);
const stop = () => void mock.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
