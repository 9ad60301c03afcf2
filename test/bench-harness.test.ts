// The bench harness's own promises: the "never cacheable" eth_call row really sends a new argument
// in every request, a node that stops mining is reported as stalled within the bound (not waited
// for), "txpool is full" is backpressure that is retried and counted, and the ratio column reads
// "ahead" the right way round for rates and for times.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { measureRate, VARY } from '../bench/load.ts';
import { runIngest, signTransfers } from '../bench/ingest.ts';
import { senderKeys } from '../bench/workload.ts';
import { markdown, ratio, type Report, type Row } from '../bench/report.ts';
import { renderChart } from '../bench/chart.ts';
import { paced, slowdown } from './helpers/pace.ts';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** A loopback JSON-RPC server whose answers `answer` decides; resolves with its URL. */
async function serve(answer: (msg: { id: number; method: string; params: unknown[] }) => unknown): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const parsed = JSON.parse(await readBody(req));
    const one = (m: { id: number; method: string; params: unknown[] }) => {
      const r = answer(m);
      return r instanceof Error ? { jsonrpc: '2.0', id: m.id, error: { code: -32000, message: r.message } } : { jsonrpc: '2.0', id: m.id, result: r };
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(Array.isArray(parsed) ? parsed.map(one) : one(parsed)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

test('the varied eth_call body carries a different 32-byte argument in every request, also across runs', async () => {
  const bodies: string[] = [];
  const server = createServer(async (req, res) => {
    bodies.push(await readBody(req));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"jsonrpc":"2.0","id":1,"result":"0x"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const template = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: '0x' + '11'.repeat(20), data: '0x9507d39a' + VARY }, 'latest'] });
  try {
    const r = await measureRate(url, template, 4, 1);
    assert.ok(bodies.length >= 50, `only ${bodies.length} requests in 1 s`);
    assert.ok(r.reqPerSec > 0);
    // a second run against the same node (the bench measures each node in turns) repeats nothing
    const first = bodies.length;
    await measureRate(url, template, 4, 1);
    assert.ok(bodies.length > first);
    const args = bodies.map((b) => (JSON.parse(b) as { params: [{ data: string }] }).params[0].data);
    for (const a of args) assert.match(a, /^0x9507d39a[0-9a-f]{64}$/);
    assert.is(new Set(args).size, args.length, 'an argument was sent twice');
  } finally {
    server.close();
  }
});

test('a node that accepts transactions but mines none is reported stalled within the bound', async () => {
  const { url, server } = await serve((m) => (m.method === 'eth_sendRawTransaction' ? '0x' + '00'.repeat(32) : '0x0'));
  try {
    const senders = senderKeys(4);
    const pace = await slowdown();
    const t0 = performance.now();
    const r = await runIngest(url, signTransfers(senders, 5, 31337n, 1n), senders, { inFlight: 4, stallSeconds: 1, budgetSeconds: 10 });
    assert.is(r.status, 'stalled');
    assert.is(r.mined, 0);
    const ms = performance.now() - t0;
    const bound = await paced(5000, pace);
    assert.ok(ms < bound, `waited ${ms.toFixed(0)} ms, far beyond the 1 s stall bound (bound ${bound.toFixed(0)} ms at this machine's pace)`);
  } finally {
    server.close();
  }
});

test('"txpool is full" is sent again later and counted; the run then finishes', async () => {
  let refusals = 3;
  let accepted = 0;
  const { url, server } = await serve((m) => {
    if (m.method === 'eth_sendRawTransaction') {
      if (refusals > 0) {
        refusals--;
        return new Error('txpool is full: more than 4096 pending transactions');
      }
      accepted++;
      return '0x' + accepted.toString(16).padStart(64, '0');
    }
    // nothing counts as mined until all 20 are in, then all at once: 5 per sender
    if (m.method === 'eth_getTransactionCount') return accepted === 20 ? '0x5' : '0x0';
    return { status: '0x1' }; // receipts
  });
  try {
    const senders = senderKeys(4);
    const r = await runIngest(url, signTransfers(senders, 5, 31337n, 1n), senders, { inFlight: 2, stallSeconds: 3, budgetSeconds: 10 });
    assert.is(r.status, 'done');
    assert.is(r.refused, 3);
    assert.is(accepted, 20);
  } finally {
    server.close();
  }
});

test('ratio: ours ÷ best peer, ahead means more for rates and less for times; stalled peers do not count', () => {
  const rate: Row = { label: 'rate', short: 'rate', unit: 'req/s', better: 'higher', cells: { 'chain-node': { value: 50 }, anvil: { value: 100 }, ganache: { text: 'stalled' } } };
  const time: Row = { label: 'time', short: 'time', unit: 'ms', better: 'lower', cells: { 'chain-node': { value: 5 }, anvil: { value: 8 }, hardhat: { value: 10 } } };
  assert.equal(ratio(rate), { ratio: 0.5, ahead: false });
  assert.equal(ratio(time), { ratio: 5 / 8, ahead: true });
  const rep: Report = {
    date: '2026-01-01',
    command: 'npm run bench -- --peers',
    machine: 'test',
    loadGenerator: 'wrk',
    columns: [
      { id: 'chain-node', label: 'chain-node' },
      { id: 'anvil', label: 'anvil' },
      { id: 'hardhat', label: 'Hardhat' },
      { id: 'ganache', label: 'ganache' },
    ],
    rows: [rate, time],
    notes: [],
  };
  const md = markdown(rep);
  assert.match(md, '| rate | 50 req/s | 100 req/s | — | stalled | 0.50× **behind** |');
  assert.match(md, '| time | 5.0 ms | 8.0 ms | 10 ms | — | 0.63× ahead |');
  // the chart: the best bar is the full width, ours half of it; a stalled node shows its text
  const svg = renderChart(rep);
  assert.match(svg, /<rect x="\d+" y="\d+" width="440" height="13" fill="#495057">/);
  assert.match(svg, /<rect x="\d+" y="\d+" width="220" height="13" fill="#2f9e44">/);
  assert.match(svg, />stalled</);
});

test.run();
