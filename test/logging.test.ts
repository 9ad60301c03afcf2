// Structured logs: JSON lines (stderr not a terminal, or --log.format json) that parse, each with
// its level, time, module and the fields that explain it; a readable text line otherwise; geth's
// --verbosity and a per-module --log.vmodule.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../src/util/logger.ts';
import { ConfigError, parseFlags } from '../src/node/config.ts';
import { rpcCall, spawnNode } from './helpers/process.ts';

interface Record {
  level: string;
  time: string;
  module?: string;
  msg: string;
  [field: string]: unknown;
}

test('flags: --log.format, --log.vmodule and --verbosity are checked', () => {
  const c = parseFlags(['--log.format', 'json', '--log.vmodule', 'p2p=4,consensus=5', '--verbosity', '2']);
  assert.ok(c !== 'help');
  assert.is(c.logFormat, 'json');
  assert.equal(c.logVmodule, { p2p: 4, consensus: 5 });
  assert.is(c.verbosity, 2);
  const d = parseFlags([]);
  assert.ok(d !== 'help' && d.logFormat === undefined && Object.keys(d.logVmodule!).length === 0);
  const refused = (args: string[], what: RegExp) => assert.throws(() => parseFlags(args), (e: Error) => e instanceof ConfigError && what.test(e.message), args.join(' '));
  refused(['--log.format', 'logfmt'], /--log\.format must be json or text/);
  refused(['--log.vmodule', 'p2p'], /--log\.vmodule: "p2p" is not module=level/);
  refused(['--log.vmodule', 'p2p=9'], /--log\.vmodule p2p must be 0-5/);
  refused(['--verbosity', '6'], /--verbosity must be 0-5/);
});

test('text lines: time, level, module, message and fields; a module is not named twice', () => {
  const lines: string[] = [];
  const log = createLogger(3, (l) => lines.push(l));
  const p2p = log.child('p2p');
  p2p.info('peer connected', { peer: '16Uiu2abc', number: 5n, hash: new Uint8Array([0xab, 0xcd]) });
  p2p.warn('p2p: bootnode ignored: no address');
  p2p.debug('below the level');
  log.error('plain', { note: 'two words' });
  assert.is(lines.length, 3, lines.join(''));
  assert.match(lines[0]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO  p2p: peer connected  peer=16Uiu2abc number=5 hash=0xabcd\n$/);
  assert.match(lines[1]!, / WARN  p2p: bootnode ignored: no address\n$/);
  assert.match(lines[2]!, / ERROR plain  note="two words"\n$/);
});

test('JSON records; a child of a child is a sibling module; --log.vmodule raises and lowers one module', () => {
  const lines: string[] = [];
  const log = createLogger(3, (l) => lines.push(l), { format: 'json', vmodule: { sync: 4, chain: 1 } });
  const chain = log.child('chain');
  chain.info('hidden: chain is at 1');
  chain.error('shown', { number: 2n ** 64n });
  chain.child('sync').debug('sync debug shown', { number: 7n });
  log.debug('root stays at 3');
  const records = lines.map((l) => JSON.parse(l) as Record);
  assert.is(records.length, 2, lines.join(''));
  assert.equal({ ...records[0], time: undefined }, { level: 'error', time: undefined, module: 'chain', msg: 'shown', number: '18446744073709551616' });
  assert.equal({ ...records[1], time: undefined }, { level: 'debug', time: undefined, module: 'sync', msg: 'sync debug shown', number: 7 });
  assert.ok(!Number.isNaN(Date.parse(records[0]!.time)));
});

test('a node process logs JSON lines to a pipe, every line with a module; per-module levels apply', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chain-node-logs-'));
  const node = await spawnNode(['--datadir', dir, '--http.port', '0', '--dev.period', '0', '--lightkdf', '--log.vmodule', 'consensus=4,chain=2']);
  try {
    const [dev] = (await rpcCall(node.url, 'eth_accounts')) as string[];
    const hash = await rpcCall(node.url, 'eth_sendTransaction', [{ from: dev, to: dev, value: '0x1' }]);
    for (let i = 0; i < 200 && !(await rpcCall(node.url, 'eth_getTransactionReceipt', [hash])); i++) await new Promise((r) => setTimeout(r, 25));
    const receipt = await rpcCall(node.url, 'eth_getTransactionReceipt', [hash]);
    await new Promise((r) => setTimeout(r, 100));
    const stderr = node.output().split('\n').filter((l) => l.startsWith('{'));
    const records = stderr.map((l) => JSON.parse(l) as Record);
    assert.ok(records.length >= 2, node.output());
    for (const r of records) {
      assert.type(r.module, 'string', JSON.stringify(r));
      assert.ok(['error', 'warn', 'info', 'debug'].includes(r.level), JSON.stringify(r));
      assert.ok(!Number.isNaN(Date.parse(r.time)), JSON.stringify(r));
    }
    // consensus at 4: its debug line of the sealed block, with the block's number and hash
    const sealed = records.find((r) => r.module === 'consensus' && r.msg.startsWith('sealed block #1'));
    assert.ok(sealed, node.output());
    assert.equal({ number: sealed!.number, hash: sealed!.hash, txs: sealed!.txs, level: sealed!.level }, { number: 1, hash: receipt.blockHash, txs: 1, level: 'debug' });
    // chain at 2: its info line of the new datadir is not written; p2p's at the global 3 is
    assert.not.ok(records.some((r) => r.module === 'chain'), node.output());
    assert.ok(records.some((r) => r.module === 'p2p' && r.level === 'info' && r.msg.includes('listening on')), node.output());
  } finally {
    node.child.kill('SIGTERM');
    await node.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
