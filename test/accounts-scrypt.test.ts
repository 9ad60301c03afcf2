// scrypt with geth's standard cost (N = 262144, ~1.5 s of CPU) runs off the event loop: while one
// client creates and unlocks such an account, another client's eth_blockNumber keeps answering.
// With scrypt on the event loop one answer waits for the whole derivation, so the bound is a share
// of the derivation's own time, measured in the same run: it holds on a busy machine, where both
// stretch together.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestNode, type TestNode } from './helpers/node.ts';
import { scryptOffThread } from '../src/accounts/scrypt.ts';

let node: TestNode;

test.before(async () => {
  node = await startTestNode({ config: { lightKdf: false } });
});
test.after(() => node.stop());

/** Runs `work` while polling eth_blockNumber back to back; returns its result and the latencies (ms). */
async function blockNumber(): Promise<void> {
  const r = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' });
  assert.is(((await r.json()) as { result: string }).result, '0x0');
}

/**
 * Runs `work` while a client asks eth_blockNumber every 5 ms; returns its result and each answer's
 * latency, counted from when the request was due (so a stalled event loop, which also delays the
 * client's timer, shows up instead of hiding in the gap).
 */
async function whilePolling<T>(work: () => Promise<T>): Promise<{ result: T; latencies: number[]; took: number }> {
  for (let i = 0; i < 20; i++) await blockNumber(); // warm: connection, JIT
  const latencies: number[] = [];
  let done = false;
  const poller = (async () => {
    while (!done) {
      const due = performance.now() + 5;
      await new Promise((res) => setTimeout(res, 5));
      await blockNumber();
      latencies.push(performance.now() - due);
    }
  })();
  const start = performance.now();
  try {
    const result = await work();
    return { result, latencies, took: performance.now() - start };
  } finally {
    done = true;
    await poller;
  }
}

/**
 * The slowest answer while `work` runs must stay under a quarter of the work's own time, best of
 * up to three runs: scrypt on the event loop makes one answer wait for all of it, every run.
 */
async function slowestAnswer<T>(what: string, work: () => Promise<T>): Promise<T> {
  const runs: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const { result, latencies, took } = await whilePolling(work);
    const max = Math.max(...latencies);
    runs.push(`${latencies.length} answers, max ${max.toFixed(1)} ms while the work took ${took.toFixed(0)} ms`);
    // enough samples that the bound means something: the work takes a second or more
    assert.ok(latencies.length >= 20, `${what}: only ${latencies.length} eth_blockNumber answers`);
    if (max < took / 4) {
      if (process.env.TEST_VERBOSITY) console.log(`${what}: ${runs.join('; ')}`);
      return result;
    }
  }
  assert.unreachable(`${what}: an eth_blockNumber answer waited a quarter of the work's time or more in every run (${runs.join('; ')})`);
  throw new Error('unreachable');
}

// RFC 7914's vectors: light costs like these run on node:crypto's scrypt on the thread pool
// (src/accounts/scrypt.ts), so they are checked against the standard's answers here; the standard
// costs (the worker) by the round trip below and by key files ethers writes (N = 131072) in
// accounts-keystore.
test('light-cost scrypt gives RFC 7914 answers and refuses parameters scrypt does not define', async () => {
  const utf8 = (s: string) => new TextEncoder().encode(s);
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  const password = utf8('password');
  assert.is(
    hex(await scryptOffThread(password, utf8('NaCl'), { N: 1024, r: 8, p: 16, dkLen: 64 })),
    'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640',
  );
  assert.ok(password.every((b) => b === 0), 'the password bytes are zeroed once handed over');
  assert.is(
    hex(await scryptOffThread(utf8('pleaseletmein'), utf8('SodiumChloride'), { N: 16384, r: 8, p: 1, dkLen: 64 })),
    '7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887',
  );
  try {
    await scryptOffThread(utf8('x'), utf8('salt'), { N: 1000, r: 8, p: 1, dkLen: 32 });
    assert.unreachable('N = 1000 is not a power of two');
  } catch (e) {
    assert.instance(e, Error);
    assert.not.instance(e, assert.Assertion);
  }
});

test('newAccount and unlockAccount with standard scrypt do not stall other requests', async () => {
  const address: string = await slowestAnswer('newAccount', () => node.rpc('personal_newAccount', ['standard-cost']));
  const file = readdirSync(join(node.dir, 'keystore')).find((f) => f.endsWith(address.slice(2)))!;
  assert.is(JSON.parse(readFileSync(join(node.dir, 'keystore', file), 'utf8')).crypto.kdfparams.n, 262144);
  assert.is(await slowestAnswer('unlockAccount', () => node.rpc('personal_unlockAccount', [address, 'standard-cost', 0])), true);
});

test.run();
