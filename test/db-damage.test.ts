// A damaged datadir: the node refuses to start in words (never a SIGSEGV/SIGBUS, never a head that
// answers balance 0 for a funded account), a missing node below the head's root answers geth's
// "missing trie node" instead of a wrong value, `chain-node db check` finds each kind of damage,
// and start-up errors that are the operator's to fix (a path, a busy port) say what and where.
// The damage is done with plain file writes and through LMDB opened directly, while no node runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, existsSync, statSync, mkdtempSync, openSync, rmSync, truncateSync, writeSync, closeSync, writeFileSync, chmodSync, chownSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { open, type Database } from 'lmdb';
import { RLP } from '@ethereumjs/rlp';
import { Wallet, Transaction } from 'ethers';
import { startTestNode, mined, testKey, testAddress } from './helpers/node.ts';
import { runCli, spawnNode, type CliRun } from './helpers/process.ts';
import { runDbCommand } from '../src/db-command.ts';
import { keccak256 } from '../src/crypto/keccak.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

const root = mkdtempSync(join(tmpdir(), 'chain-node-damage-'));
/** a datadir with a few blocks: transfers and a contract with one storage slot and code */
const sound = join(root, 'sound');
let headStateRoot: Uint8Array;
let contract: string;

/** init code: SSTORE(0, 42), then deploy the one-byte runtime code 0x00 */
const INIT = '0x602a600055' + '6000600053' + '60016000f3';

test.before(async () => {
  const node = await startTestNode({ dir: sound });
  try {
    const w = new Wallet(testKey(0));
    const sign = (nonce: number, fields: object) => w.signTransaction(Transaction.from({ nonce, gasLimit: 100000, gasPrice: 0, chainId: 300, type: 0, ...fields }));
    await mined(node, await node.rpc('eth_sendRawTransaction', [await sign(0, { to: testAddress(3), value: 5n })]));
    const r = await mined(node, await node.rpc('eth_sendRawTransaction', [await sign(1, { data: INIT })]));
    contract = r.contractAddress;
    headStateRoot = node.core.chain.head.header.stateRoot;
  } finally {
    await node.close();
  }
});

test.after(() => rmSync(root, { recursive: true, force: true }));

/** A copy of the sound datadir to damage. */
function copy(name: string): string {
  const dir = join(root, name);
  cpSync(sound, dir, { recursive: true });
  return dir;
}

function overwrite(file: string, offset: number, bytes: Buffer): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
}

/** The state trie DB of a stopped node's datadir, opened directly, for `fn`. */
async function withTrieDb<T>(dir: string, fn: (trie: Database<Uint8Array, Uint8Array>) => T | Promise<T>): Promise<T> {
  const env = open({ path: join(dir, 'chaindata'), maxDbs: 16 });
  try {
    return await fn(env.openDB<Uint8Array, Uint8Array>({ name: 'trie', keyEncoding: 'binary', encoding: 'binary' }));
  } finally {
    await env.close();
  }
}

/** The hash of the stored leaf that holds `key` in the trie under `rootHash`. */
function leafOf(trie: Database<Uint8Array, Uint8Array>, rootHash: Uint8Array, key: Uint8Array): Uint8Array {
  const nibbles = [...key].flatMap((b) => [b >> 4, b & 15]);
  let hash = rootHash;
  let depth = 0;
  for (;;) {
    const node = RLP.decode(trie.get(hash)!) as Uint8Array[];
    if (node.length === 17) {
      hash = node[nibbles[depth++]!]!;
      continue;
    }
    const flag = node[0]![0]! >> 4;
    if (flag >= 2) return hash;
    depth += (node[0]!.length - 1) * 2 + (flag & 1);
    hash = node[1]!;
  }
}

/** The storage root of `address` in the head state of the sound datadir. */
function storageRootOf(trie: Database<Uint8Array, Uint8Array>, address: string): Uint8Array {
  const leaf = RLP.decode(trie.get(leafOf(trie, headStateRoot, keccak256(hexToBytes(address))))!) as Uint8Array[];
  return (RLP.decode(leaf[1]!) as Uint8Array[])[2]!;
}

/** `chain-node db check` in this process (a child costs a second and a half of tsx start-up): what the CLI prints and exits with. */
async function dbCheck(dir: string): Promise<CliRun> {
  let output = '';
  const exit = await runDbCommand(['check', '--datadir', dir], (line) => (output += line + '\n'));
  return { exit, output };
}

function exitedInWords(r: { exit: number | string; output: string }, pattern: RegExp): void {
  assert.is(r.exit, 1, `exit code 1, got ${r.exit}: ${r.output}`);
  assert.match(r.output, pattern);
  assert.not.match(r.output, /\n\s+at /, 'no stack trace');
}

test('zeroed meta pages, a garbage meta page 1: start refuses in words (was SIGSEGV)', async () => {
  const dir = copy('zeroed');
  const file = join(dir, 'chaindata', 'data.mdb');
  overwrite(file, 0, Buffer.alloc(8192));
  const garbled = copy('garbled');
  overwrite(join(garbled, 'chaindata', 'data.mdb'), 4096 + 24, Buffer.alloc(200, 0x11));
  const start = runCli(['--datadir', dir, '--http.port', '0']);
  const check = runCli(['db', 'check', '--datadir', dir]);
  const startGarbled = runCli(['--datadir', garbled, '--http.port', '0']);
  exitedInWords(await start, new RegExp(`database ${file} is damaged: both meta pages are invalid`));
  exitedInWords(await check, /is damaged: both meta pages are invalid/);
  exitedInWords(await startGarbled, /data\.mdb is damaged: meta page 1 is invalid \(bad magic\)/);
});

test('random bytes over the data file (40 × 64, as in issue 33): db check names each damaged table or block in words, exit 1, no stack', async () => {
  const dir = copy('random-bytes');
  const file = join(dir, 'chaindata', 'data.mdb');
  const size = statSync(file).size;
  // the last 400 KB past the two meta pages, at offsets from a fixed seed (the damage is the same each run)
  const from = Math.max(2 * 4096, size - 400 * 1024);
  let seed = createHash('sha256').update('issue 33 item 6').digest();
  for (let i = 0; i < 40; i++) {
    seed = createHash('sha256').update(seed).digest();
    const offset = from + (seed.readUInt32BE(0) % (size - from - 64));
    overwrite(file, offset, Buffer.concat([seed, createHash('sha256').update(seed).update('b').digest()]));
  }
  // the real command: LMDB may abort a process on such pages, which the command survives (children)
  const r = await runCli(['db', 'check', '--datadir', dir], { timeoutMs: 120_000 });
  // (a page LMDB needs to open the file at all is told as such)
  exitedInWords(r, new RegExp(`database ${dir} is damaged: \\d+ problems?|cannot open database ${dir}`));
  for (const line of r.output.trim().split('\n').filter((l) => !/^page \d+ not found error$/.test(l))) assert.match(line, /^chain-node db check: /, `a line in words: ${line}`);
  // each problem names a table and a key, a block, the head, or the part LMDB stopped in
  assert.match(r.output, /chain-node db check: (table \w+|block #\d+|head block|blocks|state|trie node 0x)/);
});

test('truncated data file: start refuses in words (was SIGBUS)', async () => {
  const dir = copy('truncated');
  const file = join(dir, 'chaindata', 'data.mdb');
  truncateSync(file, 3 * 4096);
  exitedInWords(await runCli(['--datadir', dir, '--http.port', '0']), new RegExp(`database ${file} is truncated: 12288 bytes, needs at least \\d+`));
});

test('head state root node deleted: start refuses (was: served balance 0 for funded accounts)', async () => {
  const dir = copy('no-root');
  await withTrieDb(dir, (trie) => trie.remove(headStateRoot));
  const start = runCli(['--datadir', dir, '--http.port', '0']);
  const check = await dbCheck(dir);
  exitedInWords(await start, new RegExp(`is damaged: head state missing: trie node ${bytesToHex(headStateRoot)} not found`));
  exitedInWords(check, new RegExp(`missing: trie node ${bytesToHex(headStateRoot)} not found \\(path 0x\\)`));
});

test('a node below the root deleted: reads through it answer "missing trie node", others still serve, db check names it', async () => {
  const dir = copy('no-leaf');
  const leaf = await withTrieDb(dir, async (trie) => {
    const hash = leafOf(trie, headStateRoot, keccak256(hexToBytes(testAddress(0))));
    assert.ok(await trie.remove(hash));
    return hash;
  });
  assert.not.equal(leaf, headStateRoot);
  const check = await dbCheck(dir);
  const node = await startTestNode({ dir });
  try {
    const r = await node.raw('eth_getBalance', [testAddress(0), 'latest']);
    assert.equal(r.error, { code: -32000, message: `missing trie node ${bytesToHex(leaf)}` }, JSON.stringify(r));
    const nonce = await node.raw('eth_getTransactionCount', [testAddress(0), 'latest']);
    assert.is(nonce.error?.code, -32000);
    const call = await node.raw('eth_call', [{ from: testAddress(1), to: testAddress(0), data: '0x' }, 'latest']);
    assert.equal(call.error, { code: -32000, message: `missing trie node ${bytesToHex(leaf)}` }, JSON.stringify(call));
    const send = await node.raw('eth_sendRawTransaction', [await new Wallet(testKey(0)).signTransaction(Transaction.from({ nonce: 2, to: testAddress(3), gasLimit: 21000, gasPrice: 0, chainId: 300, type: 0 }))]);
    assert.equal(send.error, { code: -32000, message: `missing trie node ${bytesToHex(leaf)}` }, JSON.stringify(send));
    // the node keeps serving what is intact: a balance under another branch, the chain itself
    assert.is(BigInt(await node.rpc('eth_getBalance', [testAddress(3), 'latest'])), 10n ** 24n + 5n);
    assert.is(await node.rpc('eth_blockNumber'), '0x2');
  } finally {
    await node.stop();
  }
  exitedInWords(check, new RegExp(`missing: trie node ${bytesToHex(leaf)} not found \\(path 0x[0-9a-f]+\\)[\\s\\S]*is damaged: 1 problem`));
});

test('db check: a sound datadir passes (exit 0); a missing code and a changed storage node are named', async () => {
  const ok = await runCli(['db', 'check', '--datadir', sound]);
  assert.is(ok.exit, 0, ok.output);
  assert.match(ok.output, /is sound: 3 blocks, 2 transactions, 5 accounts \(1 contracts\), 1 storage slots/);

  const dir = copy('no-code');
  const codeHash = keccak256(Uint8Array.of(0));
  const storageRoot = await withTrieDb(dir, async (trie) => {
    assert.ok(await trie.remove(Buffer.concat([Buffer.from('c'), codeHash])));
    // the contract's storage trie is one leaf: other bytes under its hash
    const root = storageRootOf(trie, contract);
    await trie.put(root, RLP.encode([Uint8Array.of(0x20), Uint8Array.of(0x2b)]));
    return root;
  });
  const bad = await dbCheck(dir);
  assert.is(bad.exit, 1, bad.output);
  assert.match(bad.output, new RegExp(`code of account 0x[0-9a-f]{64}: missing: code ${bytesToHex(codeHash)} not found`));
  assert.match(bad.output, new RegExp(`storage of account 0x[0-9a-f]{64}: damaged: trie node ${bytesToHex(storageRoot)} holds bytes that hash to 0x`));
  const node = await startTestNode({ dir });
  try {
    const code = await node.raw('eth_getCode', [contract, 'latest']);
    assert.equal(code.error, { code: -32000, message: `missing contract code ${bytesToHex(codeHash)}` }, JSON.stringify(code));
  } finally {
    await node.stop();
  }
});

test('a datadir that cannot be created: exit 1 naming the path, no stack', async () => {
  // as root, permissions stop nothing: a datadir under a regular file cannot be created by anyone
  const file = join(root, 'plain-file');
  writeFileSync(file, '');
  exitedInWords(await runCli(['--datadir', join(file, 'data'), '--http.port', '0']), new RegExp(`cannot use ${file}/data: a parent is not a directory \\(ENOTDIR\\)`));
});

test('an LMDB file the user may not read: exit 1 naming the file, no stack', async () => {
  const dir = copy('unreadable');
  const file = join(dir, 'chaindata', 'data.mdb');
  chmodSync(file, 0o600);
  // another user's datadir: run as nobody (the test runs as root, which chmod does not stop)
  const nobody = 65534;
  for (const p of [root, dir, join(dir, 'keystore')]) chmodSync(p, 0o755);
  chmodSync(join(dir, 'chaindata'), 0o777);
  chownSync(join(dir, 'nodekey'), nobody, nobody);
  exitedInWords(await runCli(['--datadir', dir, '--http.port', '0'], { uid: nobody, gid: nobody }), new RegExp(`cannot open database ${file}: permission denied \\(EACCES\\)`));
});

test('busy port: exit 1 with EADDRINUSE, and no datadir is created', async () => {
  const holder = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  const port = (holder.address() as { port: number }).port;
  const dir = join(root, 'never-created');
  try {
    exitedInWords(await runCli(['--datadir', dir, '--http.port', String(port)]), new RegExp(`EADDRINUSE.*127\\.0\\.0\\.1:${port}`));
    assert.not.ok(existsSync(dir), 'the datadir was not created');
  } finally {
    await new Promise((r) => holder.close(r));
  }
});

test('a second dev node on the p2p port of the first: exit 1 naming 127.0.0.1:port (a dev chain listens on loopback) and --p2p.port', async () => {
  const port = 26791; // this suite's own, not the default 16791 other runs may hold
  const first = await spawnNode(['--datadir', join(root, 'dev-1'), '--http.port', '0', '--p2p.port', String(port)]);
  try {
    const second = await runCli(['--datadir', join(root, 'dev-2'), '--http.port', '0', '--p2p.port', String(port)]);
    // was: listen EADDRINUSE: address already in use 0.0.0.0:16791 (the port was probed on every interface)
    exitedInWords(second, new RegExp(`cannot listen for peers on 127\\.0\\.0\\.1:${port}: the address is in use \\(EADDRINUSE; another node on this machine\\?\\); --p2p\\.port chooses another port`));
    // a free port for the second one: it starts
    const third = await runCli(['--datadir', join(root, 'dev-3'), '--http.port', '0', '--p2p.port', '0']);
    assert.is(third.exit, 'started', third.output);
  } finally {
    first.child.kill('SIGTERM');
    await first.exited;
  }
});

test.run();
