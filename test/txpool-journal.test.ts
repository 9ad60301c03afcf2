// The transaction journal (issue 19, item 9): a transaction answered with a hash survives a SIGKILL
// right after the answer — node-signed (eth_sendTransaction) and submitted signed
// (eth_sendRawTransaction) —, a journal whose last append a crash cut short still replays the rest,
// mined transactions leave the file, and --txpool.journal '' / --txpool.nolocals keep none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet, Transaction, encryptKeystoreJsonSync } from 'ethers';
import { NODE_KEY, startTestNode, testGenesis, testKey, testAddress, mined } from './helpers/node.ts';
import { spawnNode, rpcCall, type NodeProcess } from './helpers/process.ts';
import { parseFlags, ConfigError, type NodeConfig } from '../src/node/config.ts';
import { signLegacyTx } from '../src/accounts/signing.ts';
import { makeTxCommon } from '../src/tx/common.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

const SINK = '0x' + '5'.repeat(40);
const PW = 'journal test';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A datadir with a genesis of 1 s blocks, test key 1 in its keystore, and the CLI arguments of a node on it. */
function setup(extra: string[] = []): { dir: string; args: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'chain-node-journal-'));
  writeFileSync(join(dir, 'nodekey'), NODE_KEY);
  mkdirSync(join(dir, 'keystore'));
  const keyFile = encryptKeystoreJsonSync({ address: testAddress(1), privateKey: testKey(1) }, PW, { scrypt: { N: 1024 } });
  writeFileSync(join(dir, 'keystore', `UTC--test--${testAddress(1).slice(2)}`), keyFile);
  writeFileSync(join(dir, 'genesis.in.json'), JSON.stringify(testGenesis(NODE_KEY, 4, 1)));
  return { dir, args: ['--datadir', dir, '--genesis', join(dir, 'genesis.in.json'), '--http.port', '0', '--verbosity', '3', ...extra] };
}

/** A signed transfer of 1 wei from test key `key` (gas price 0: the test chain's minimum). */
function signTransfer(key: number, nonce: number): Promise<string> {
  return new Wallet(testKey(key)).signTransaction(Transaction.from({ to: SINK, value: 1n, nonce, gasLimit: 21000, gasPrice: 0, chainId: 300, type: 0 }));
}

/** The receipt of `hash`, polled for up to `waitMs` (null if it is not mined by then). */
async function receipt(url: string, hash: string, waitMs: number): Promise<any> {
  const until = Date.now() + waitMs;
  for (;;) {
    const r = await rpcCall(url, 'eth_getTransactionReceipt', [hash]);
    if (r || Date.now() > until) return r;
    await sleep(50);
  }
}

async function kill(node: NodeProcess): Promise<void> {
  node.child.kill('SIGKILL');
  assert.is(await node.exited, 'SIGKILL');
}

/** Runs `fn` on a node started on `args`, which is stopped (SIGTERM) afterwards unless `fn` killed it. */
async function withNode<T>(args: string[], fn: (node: NodeProcess) => Promise<T>): Promise<T> {
  const node = await spawnNode(args);
  try {
    return await fn(node);
  } finally {
    if (node.child.exitCode === null && node.child.signalCode === null) {
      node.child.kill('SIGTERM');
      await node.exited;
    }
  }
}

/**
 * What the issue measured, scaled down: 8 requests in flight, 40 transfers signed by the node (an
 * unlocked key file, eth_sendTransaction) and 40 submitted signed (eth_sendRawTransaction), then a
 * transaction queued behind a nonce gap — never mined before the kill, whatever the block timing.
 * Returns every answered hash and the queued one; SIGKILL follows the last answer at once.
 */
async function sendAndKill(node: NodeProcess): Promise<{ answered: string[]; queued: string }> {
  const signer = testAddress(1);
  assert.is(await rpcCall(node.url, 'personal_unlockAccount', [signer, PW, 0]), true);
  const sends: (() => Promise<string>)[] = [];
  for (let i = 0; i < 40; i++) {
    sends.push(async () => rpcCall(node.url, 'eth_sendRawTransaction', [await signTransfer(0, i)]));
    sends.push(() => rpcCall(node.url, 'eth_sendTransaction', [{ from: signer, to: SINK, value: '0x1', gas: '0x5208' }]));
  }
  const answered: string[] = [];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let send = sends.shift(); send; send = sends.shift()) answered.push(await send());
    }),
  );
  const queued = await rpcCall(node.url, 'eth_sendRawTransaction', [await signTransfer(2, 1)]);
  await kill(node);
  return { answered, queued };
}

test('SIGKILL right after the answers: every transaction answered with a hash is mined after the restart', async () => {
  const { dir, args } = setup();
  try {
    const { answered, queued } = await withNode(args, sendAndKill);
    assert.is(answered.length, 80);
    await withNode(args, async (node) => {
      assert.match(node.output(), /txpool journal .*: \d+ of 81 transactions replayed/);
      for (const h of answered) assert.ok(await receipt(node.url, h, 8000), `mined after the restart: ${h}`);
      // the queued one is back in the pool, and mined once its gap is filled
      assert.ok(await rpcCall(node.url, 'eth_getTransactionByHash', [queued]), 'the queued transaction was replayed');
      await rpcCall(node.url, 'eth_sendRawTransaction', [await signTransfer(2, 0)]);
      assert.ok(await receipt(node.url, queued, 8000), 'the queued transaction is mined once the gap is filled');
      assert.is(BigInt(await rpcCall(node.url, 'eth_getTransactionCount', [testAddress(1), 'latest'])), 40n);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--txpool.journal '' keeps no journal: the same crash loses what was not mined (the defect this fixes)", async () => {
  const { dir, args } = setup(['--txpool.journal', '']);
  try {
    const { queued } = await withNode(args, sendAndKill);
    assert.not.ok(existsSync(join(dir, 'transactions.rlp')));
    await withNode(args, async (node) => {
      assert.is(await rpcCall(node.url, 'eth_getTransactionByHash', [queued]), null, 'the answered transaction is gone');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a journal whose last record a crash cut short: the node starts, replays the rest, and appends after it survive', async () => {
  const { dir, args } = setup();
  const journal = join(dir, 'transactions.rlp');
  try {
    const { hashes, cut } = await withNode(args, async (node) => {
      const hashes: string[] = [];
      for (let i = 0; i < 10; i++) hashes.push(await rpcCall(node.url, 'eth_sendRawTransaction', [await signTransfer(0, i)]));
      // the last record: a transaction behind a nonce gap, never mined before the kill
      const cut = await rpcCall(node.url, 'eth_sendRawTransaction', [await signTransfer(1, 1)]);
      await kill(node);
      return { hashes, cut };
    });
    truncateSync(journal, statSync(journal).size - 3);
    // sent again, and one more after it: both survive the next crash (the start rewrote the cut end away)
    const resent = await withNode(args, async (node) => {
      assert.match(node.output(), /\d+ bytes at its end are no record/);
      for (const h of hashes) assert.ok(await receipt(node.url, h, 8000), `replayed and mined: ${h}`);
      assert.is(await rpcCall(node.url, 'eth_getTransactionByHash', [cut]), null, 'the cut record is not replayed');
      const again = await rpcCall(node.url, 'eth_sendRawTransaction', [await signTransfer(1, 1)]);
      const next = await rpcCall(node.url, 'eth_sendRawTransaction', [await signTransfer(1, 2)]);
      await kill(node);
      return [again, next];
    });
    await withNode(args, async (node) => {
      await rpcCall(node.url, 'eth_sendRawTransaction', [await signTransfer(1, 0)]);
      for (const h of resent) assert.ok(await receipt(node.url, h, 8000), `appended after the cut, replayed and mined: ${h}`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the record is in the file before the answer; mined transactions leave it at the rewrite (interval and clean stop)', async () => {
  const lines: string[] = [];
  const node = await startTestNode({ config: { txRejournalMs: 1000, verbosity: 3 }, logWrite: (l) => lines.push(l) });
  const journal = join(node.dir, 'transactions.rlp');
  try {
    const raws = await Promise.all(Array.from({ length: 5 }, (_, i) => signTransfer(0, i)));
    for (const raw of raws) {
      const hash = await node.rpc('eth_sendRawTransaction', [raw]);
      assert.ok(readFileSync(journal).includes(Buffer.from(raw.slice(2), 'hex')), 'journaled before the answer');
      await mined(node, hash);
    }
    const queued = await signTransfer(1, 1);
    await node.rpc('eth_sendRawTransaction', [queued]);
    const queuedBytes = Buffer.from(queued.slice(2), 'hex');
    // the next rewrite keeps only what is still pooled: the queued transaction
    for (let i = 0; i < 60 && readFileSync(journal).includes(Buffer.from(raws[0]!.slice(2), 'hex')); i++) await sleep(50);
    const after = readFileSync(journal);
    assert.ok(after.includes(queuedBytes));
    for (const raw of raws) assert.not.ok(after.includes(Buffer.from(raw.slice(2), 'hex')), 'mined ones left at the rewrite');
    assert.ok(after.length < queuedBytes.length + 8, `one record: ${after.length} bytes`);
  } finally {
    await node.close();
  }
  // a clean stop rewrote it too; a node on the same datadir replays the one queued transaction
  const again = await startTestNode({ dir: node.dir, config: { verbosity: 3 }, logWrite: (l) => lines.push(l) });
  try {
    assert.ok(lines.some((l) => /1 of 1 transactions replayed, 0 refused/.test(l)), lines.join(''));
    assert.is((await again.rpc('txpool_status')).queued, '0x1');
  } finally {
    await again.stop();
    rmSync(node.dir, { recursive: true, force: true });
  }
});

test('appends past 4 MiB rewrite the file without waiting for the interval: it stays near what the pool holds', async () => {
  const node = await startTestNode();
  const journal = join(node.dir, 'transactions.rlp');
  try {
    // signed here: ethers' JavaScript keccak takes ~0.2 s for each of these
    const common = makeTxCommon(300n);
    const data = new Uint8Array(120_000).fill(0xab);
    const key = hexToBytes(testKey(0));
    let largest = 0;
    for (let i = 0; i < 40; i++) {
      const tx = signLegacyTx({ nonce: BigInt(i), gasPrice: 0n, gasLimit: 5_000_000n, to: hexToBytes(SINK), value: 1n, data }, key, common);
      const hash = await node.rpc('eth_sendRawTransaction', [bytesToHex(tx.serialize())]);
      largest = Math.max(largest, statSync(journal).size);
      if (i % 10 === 9) await mined(node, hash);
    }
    // 40 × 120 kB were appended (4.8 MB); a rewrite came at 4 MiB, keeping only what was still pooled
    assert.ok(largest > 4 * 1024 * 1024 - 250_000, `grew to ${largest}`);
    assert.ok(statSync(journal).size < 2 * 1024 * 1024, `rewritten: ${statSync(journal).size} bytes`);
  } finally {
    await node.stop();
  }
});

test("flags: --txpool.journal (default transactions.rlp, '' off), --txpool.rejournal (≥ 1s), --txpool.nolocals keeps no journal", async () => {
  const flags = (...a: string[]) => parseFlags(a) as NodeConfig;
  assert.is(flags().txJournal, 'transactions.rlp');
  assert.is(flags().txRejournalMs, 3_600_000);
  assert.is(flags('--txpool.journal', '').txJournal, '');
  assert.is(flags('--txpool.rejournal', '10m').txRejournalMs, 600_000);
  assert.is(flags('--txpool.nolocals').txNoLocals, true);
  assert.throws(() => flags('--txpool.rejournal', '500ms'), (e: Error) => e instanceof ConfigError && /--txpool.rejournal must be at least 1s, got "500ms"/.test(e.message));
  assert.throws(() => flags('--txpool.rejournal', 'soon'), (e: Error) => e instanceof ConfigError && /--txpool.rejournal must be a positive duration/.test(e.message));
  const node = await startTestNode({ config: { txNoLocals: true } });
  try {
    await mined(node, await node.rpc('eth_sendRawTransaction', [await signTransfer(0, 0)]));
    assert.not.ok(existsSync(join(node.dir, 'transactions.rlp')));
  } finally {
    await node.stop();
  }
});

test.run();
