// `chain-node export` / `import` round trip: a chain with transfers and a contract whose storage
// changes is exported (the CLI in a child process, and in-process by range, gzip-compressed),
// imported into fresh datadirs made from the same genesis, and a node started on the result serves
// the same head hash, state root, balances, storage and receipts over JSON-RPC. A second import skips
// what the chain has; a foreign genesis, a missing genesis, a truncated file and a tampered block are
// refused in words. `db check` finds a body removed and receipts altered while no node runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { Wallet, Transaction } from 'ethers';
import { startTestNode, mined, testKey, testAddress, testGenesis, NODE_KEY } from './helpers/node.ts';
import { runCli, spawnNode, type CliRun } from './helpers/process.ts';
import { resealed } from './helpers/blocks.ts';
import { runExportCommand } from '../src/export-command.ts';
import { runImportCommand } from '../src/import-command.ts';
import { runDbCommand } from '../src/db-command.ts';
import { readBlockFile } from '../src/chain/block-file.ts';
import { decodeBlock } from '../src/chain/block-codec.ts';
import { hexToBytes } from '../src/util/hex.ts';

const root = mkdtempSync(join(tmpdir(), 'chain-node-export-'));
const source = join(root, 'source');
const genesisFile = join(source, 'test-genesis.json');
const FOLLOWER_KEY = '77'.repeat(32);
/** runtime code: SSTORE(0, calldata word 0) */
const RUNTIME = '60003560005500';
/** init code: CODECOPY the 7-byte runtime after these 12 bytes and return it */
const INIT = '0x6007600c60003960076000f3' + RUNTIME;

let head: { number: string; hash: string; stateRoot: string };
let contract: string;
let callHash: string;

test.before(async () => {
  const node = await startTestNode({ dir: source });
  try {
    const w = new Wallet(testKey(0));
    const send = async (nonce: number, fields: object) => mined(node, await node.rpc('eth_sendRawTransaction', [await w.signTransaction(Transaction.from({ nonce, gasLimit: 100000, gasPrice: 0, chainId: 300, type: 0, ...fields }))]));
    await send(0, { to: testAddress(3), value: 5n });
    contract = (await send(1, { data: INIT })).contractAddress;
    await send(2, { to: contract, data: '0x' + '2a'.padStart(64, '0') });
    const call = await send(3, { to: contract, data: '0x' + '2b'.padStart(64, '0') });
    callHash = call.transactionHash;
    await send(4, { to: testAddress(2), value: 7n });
    const latest = await node.rpc('eth_getBlockByNumber', ['latest', false]);
    head = { number: latest.number, hash: latest.hash, stateRoot: latest.stateRoot };
  } finally {
    await node.close();
  }
});

test.after(() => rmSync(root, { recursive: true, force: true }));

async function inProcess(run: typeof runImportCommand, args: string[]): Promise<CliRun> {
  let output = '';
  const exit = await run(args, (line) => (output += line + '\n'), (line) => (output += line + '\n'));
  return { exit, output };
}

/** The head a node started on `dir` serves, with the contract's slot and a receipt; the node is stopped. */
async function servedBy(dir: string) {
  const node = await startTestNode({ dir, nodeKey: FOLLOWER_KEY });
  try {
    assert.is(await node.rpc('eth_mining'), false);
    const latest = await node.rpc('eth_getBlockByNumber', ['latest', false]);
    return {
      head: { number: latest.number, hash: latest.hash, stateRoot: latest.stateRoot },
      slot: await node.rpc('eth_getStorageAt', [contract, '0x0', 'latest']),
      code: await node.rpc('eth_getCode', [contract, 'latest']),
      balance: await node.rpc('eth_getBalance', [testAddress(2), 'latest']),
      receipt: (await node.rpc('eth_getTransactionReceipt', [callHash]))?.status,
    };
  } finally {
    await node.stop();
  }
}

test('CLI: export → import into a fresh datadir → a node on it serves the same head hash, state root, storage and receipts', async () => {
  const file = join(root, 'chain.rlp');
  const exported = await runCli(['export', file, '--datadir', source]);
  assert.is(exported.exit, 0, exported.output);
  assert.match(exported.output, new RegExp(`wrote blocks 0…${Number(head.number)} \\(${Number(head.number) + 1} blocks, last ${head.hash}\\)`));
  // geth's layout: RLP blocks back to back, nothing else
  let count = 0;
  for await (const { bytes } of readBlockFile(file)) assert.is(decodeBlock(bytes).header.number, BigInt(count++));
  assert.is(count, Number(head.number) + 1);

  const fresh = join(root, 'fresh');
  const imported = await runCli(['import', file, '--datadir', fresh, '--genesis', genesisFile]);
  assert.is(imported.exit, 0, imported.output);
  // the progress line (stderr), then the result (stdout)
  assert.match(imported.output, new RegExp(`chain-node import: ${Number(head.number)} blocks imported \\(5 transactions[^\\n]*blocks/s\\)`));
  assert.match(imported.output, new RegExp(`chain-node import: ${file}: ${Number(head.number)} blocks imported \\(\\d+ transactions; 1 already in the chain\\) in [\\d.]+ s; head #${Number(head.number)} ${head.hash}`));
  assert.not.match(imported.output, /\n\s+at /);

  const served = await servedBy(fresh);
  assert.equal(served.head, head);
  assert.is(served.slot, '0x' + '2b'.padStart(64, '0'));
  assert.is(served.code, '0x' + RUNTIME);
  assert.is(BigInt(served.balance), 10n ** 24n + 7n);
  assert.is(served.receipt, '0x1');
  const check = await inProcess((argv, out) => runDbCommand(argv, out), ['check', '--datadir', fresh]);
  assert.is(check.exit, 0, check.output);
});

test('export beside a node serving the datadir (LMDB read-only): the same blocks', async () => {
  const node = await spawnNode(['--datadir', source, '--http.port', '0']);
  try {
    const file = join(root, 'beside.rlp');
    const r = await runCli(['export', file, '--datadir', source]);
    assert.is(r.exit, 0, r.output);
    assert.equal(readFileSync(file), readFileSync(join(root, 'chain.rlp')));
  } finally {
    node.child.kill('SIGTERM');
    await node.exited;
  }
});

test('by range, gzip-compressed, into a datadir with the validator key: 0…2 then 3…head onto it; importing again skips every block', async () => {
  const first = join(root, 'first.rlp.gz');
  const rest = join(root, 'rest.rlp.gz');
  assert.is((await inProcess(runExportCommand, [first, '0', '2', '--datadir', source])).exit, 0);
  const r = await inProcess(runExportCommand, [rest, '3', '--datadir', source]);
  assert.is(r.exit, 0, r.output);
  assert.equal([...readFileSync(first).subarray(0, 2)], [0x1f, 0x8b], 'gzip');
  const dir = join(root, 'ranges');
  // the validator's own key: the import still writes the chain (no sealer runs)
  mkdirSync(dir);
  writeFileSync(join(dir, 'nodekey'), NODE_KEY);
  const a = await inProcess(runImportCommand, [first, '--datadir', dir, '--genesis', genesisFile]);
  assert.is(a.exit, 0, a.output);
  assert.match(a.output, / 2 blocks imported .* head #2 /);
  // the datadir holds the chain now: no --genesis
  const b = await inProcess(runImportCommand, [rest, '--datadir', dir]);
  assert.is(b.exit, 0, b.output);
  assert.match(b.output, new RegExp(`${Number(head.number) - 2} blocks imported \\(\\d+ transactions; 0 already in the chain\\).* head #${Number(head.number)} ${head.hash}`));
  const again = await inProcess(runImportCommand, [first, '--datadir', dir]);
  assert.is(again.exit, 0, again.output);
  assert.match(again.output, /: 0 blocks imported \(0 transactions; 3 already in the chain\)/);
  assert.equal((await servedBy(dir)).head, head);
});

test('refused in words: a foreign genesis, a new datadir without --genesis, out-of-range export bounds', async () => {
  const file = join(root, 'all.rlp');
  assert.is((await inProcess(runExportCommand, [file, '--datadir', source])).exit, 0);
  const foreign = join(root, 'foreign-genesis.json');
  writeFileSync(foreign, JSON.stringify(testGenesis(NODE_KEY, 2)));
  const dir = join(root, 'foreign');
  const r = await inProcess(runImportCommand, [file, '--datadir', dir, '--genesis', foreign]);
  assert.is(r.exit, 1, r.output);
  assert.match(r.output, /all\.rlp begins with genesis block 0x[0-9a-f]{64}, but the chain in \S+foreign has genesis 0x[0-9a-f]{64}: import into a datadir created with the exported chain's genesis/);
  assert.match(r.output, /0 blocks imported .* head #0 /);

  const none = await inProcess(runImportCommand, [file, '--datadir', join(root, 'no-genesis')]);
  assert.is(none.exit, 1, none.output);
  assert.match(none.output, /no-genesis holds no chain: give the genesis the exported chain began with \(--genesis FILE/);

  const beyond = await inProcess(runExportCommand, [join(root, 'x.rlp'), '2', '99', '--datadir', source]);
  assert.is(beyond.exit, 1);
  assert.match(beyond.output, new RegExp(`blocks 2…99 are not in the chain \\(head is #${Number(head.number)}\\)`));
  const usage = await inProcess(runExportCommand, [join(root, 'x.rlp'), 'two', '--datadir', source]);
  assert.is(usage.exit, 2);
  assert.match(usage.output, /FROM and TO are block numbers/);
});

test('a damaged file: the blocks before the damage are imported, the damage is named by its offset', async () => {
  const file = join(root, 'damaged.rlp');
  assert.is((await inProcess(runExportCommand, [file, '--datadir', source])).exit, 0);
  const blocks: { bytes: Uint8Array; offset: number }[] = [];
  for await (const b of readBlockFile(file)) blocks.push({ bytes: Uint8Array.from(b.bytes), offset: b.offset });

  // block 3's header claims another state root, sealed again by the validator: execution disagrees
  const tampered = join(root, 'tampered.rlp');
  const forged = resealed(blocks[3]!.bytes, (h) => (h.stateRoot = hexToBytes('0x' + '11'.repeat(32))));
  writeFileSync(tampered, Buffer.concat([...blocks.slice(0, 3).map((b) => b.bytes), forged, ...blocks.slice(4).map((b) => b.bytes)]));
  const dir = join(root, 'tampered-dir');
  const t = await inProcess(runImportCommand, [tampered, '--datadir', dir, '--genesis', genesisFile]);
  assert.is(t.exit, 1, t.output);
  assert.match(t.output, new RegExp(`the block at offset ${blocks[3]!.offset} of \\S+tampered\\.rlp is refused: block #3 0x[0-9a-f]{64}: stateRoot 0x[0-9a-f]{64} after execution, the header says 0x${'11'.repeat(32)}; 2 blocks imported`));
  assert.not.match(t.output, /\n\s+at /);

  // cut inside the last block
  truncateSync(file, blocks.at(-1)!.offset + 10);
  const cut = await inProcess(runImportCommand, [file, '--datadir', join(root, 'cut-dir'), '--genesis', genesisFile]);
  assert.is(cut.exit, 1, cut.output);
  assert.match(cut.output, new RegExp(`the file ends inside a block: 10 bytes from offset ${blocks.at(-1)!.offset} are no whole block; ${blocks.length - 2} blocks imported .* head #${blocks.length - 2} `));
  // not a block at all
  writeFileSync(file, Buffer.concat([blocks[0]!.bytes, Buffer.from('hello')]));
  const garbage = await inProcess(runImportCommand, [file, '--datadir', join(root, 'cut-dir')]);
  assert.is(garbage.exit, 1, garbage.output);
  assert.match(garbage.output, new RegExp(`no block at offset ${blocks[0]!.bytes.length}: byte 0x68 does not begin an RLP list`));
  // a .gz that is not gzip
  const notGzip = join(root, 'not-gzip.rlp.gz');
  writeFileSync(notGzip, Buffer.concat([blocks[0]!.bytes, blocks[1]!.bytes]));
  const gz = await inProcess(runImportCommand, [notGzip, '--datadir', join(root, 'cut-dir')]);
  assert.is(gz.exit, 1, gz.output);
  assert.match(gz.output, /not-gzip\.rlp\.gz does not decompress \(gzip\) after 0 bytes: incorrect header check/);
  assert.not.match(gz.output, /\n\s+at /);
});

test('db check on an imported datadir finds a body removed and receipts altered (node stopped)', async () => {
  const file = join(root, 'for-check.rlp');
  assert.is((await inProcess(runExportCommand, [file, '--datadir', source])).exit, 0);
  const dir = join(root, 'to-damage');
  assert.is((await inProcess(runImportCommand, [file, '--datadir', dir, '--genesis', genesisFile])).exit, 0);
  const damaged = join(root, 'damaged-dir');
  cpSync(dir, damaged, { recursive: true });
  const env = open({ path: join(damaged, 'chaindata'), maxDbs: 16 });
  const canon = env.openDB<Uint8Array, number>({ name: 'canon', encoding: 'binary' });
  const bodies = env.openDB({ name: 'bodies', keyEncoding: 'binary', encoding: 'msgpack' });
  const receipts = env.openDB<any[], Uint8Array>({ name: 'receipts', keyEncoding: 'binary', encoding: 'msgpack' });
  const [h2, h4] = [canon.get(2)!, canon.get(4)!];
  assert.ok(await bodies.remove(h2));
  const r4 = receipts.get(h4)!;
  await receipts.put(h4, r4.map((r) => ({ ...r, status: 0 })));
  await env.close();
  const check = await inProcess((argv, out) => runDbCommand(argv, out), ['check', '--datadir', damaged]);
  assert.is(check.exit, 1, check.output);
  assert.match(check.output, /block #2 0x[0-9a-f]{64}: body not found/);
  assert.match(check.output, /block #4 0x[0-9a-f]{64}: receipts do not match the header's receiptsRoot/);
  assert.match(check.output, /is damaged: 2 problems/);
});

test.run();
