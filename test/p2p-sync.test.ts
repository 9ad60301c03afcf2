// The sync between real node processes on loopback: a validator whose chain holds 2,000 blocks (one
// transfer each, sealed in this process beforehand, then served by the validator as a process) and
// a late joiner that syncs them over libp2p. eth_syncing is an object while it runs; a SIGKILL in
// the middle loses nothing committed and the restart resumes from its head; once in step, the
// joiner has the validator's hashes and follows its new blocks.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction, Wallet } from 'ethers';
import { spawnNode, rpcCall, type NodeProcess } from './helpers/process.ts';
import { startTestNode, testKey } from './helpers/node.ts';
import { sealTransferBlocks, undialledGenesis, SINK } from './helpers/blocks.ts';

const BLOCKS = 2000;
const dir = mkdtempSync(join(tmpdir(), 'chain-node-p2p-sync-'));
const started: NodeProcess[] = [];
const genesis = undialledGenesis(1);

async function start(args: string[]): Promise<NodeProcess> {
  const node = await spawnNode([...args, '--http.port', '0', '--p2p.port', '0', '--verbosity', '3']);
  started.push(node);
  return node;
}

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const head = async (node: NodeProcess) => Number(await rpcCall(node.url, 'eth_blockNumber'));
const hashAt = async (node: NodeProcess, n: number) => (await rpcCall(node.url, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])).hash;

test.after(async () => {
  for (const n of started) if (n.child.exitCode === null) n.child.kill('SIGKILL');
  await Promise.all(started.map((n) => n.exited));
  rmSync(dir, { recursive: true, force: true });
});

test('a late joiner syncs 2,000 blocks (eth_syncing an object meanwhile), survives a SIGKILL mid-sync, then follows new blocks', async () => {
  const vdir = join(dir, 'validator');
  const maker = await startTestNode({ dir: vdir, genesis, config: { directTransfers: true } });
  await sealTransferBlocks(maker, BLOCKS, 1);
  await maker.stop();

  const validator = await start(['--datadir', vdir, '--genesis', join(vdir, 'test-genesis.json')]);
  assert.is(await head(validator), BLOCKS);
  const vInfo = await rpcCall(validator.url, 'admin_nodeInfo');
  const fdir = join(dir, 'follower');
  const followerArgs = ['--datadir', fdir, '--genesis', join(vdir, 'genesis.json'), '--bootnodes', vInfo.enode];
  let follower = await start(followerArgs);
  const fInfo = await rpcCall(follower.url, 'admin_nodeInfo');
  // the validator admits the follower as its static peer (the chain has no NodeManagement records)
  assert.is(await rpcCall(validator.url, 'admin_addPeer', [fInfo.enode]), true);

  const syncing = await until('eth_syncing to be an object', async () => {
    const s = await rpcCall(follower.url, 'eth_syncing');
    return typeof s === 'object' && s;
  });
  assert.equal(Object.keys(syncing).slice(0, 10), ['startingBlock', 'currentBlock', 'highestBlock', 'pulledStates', 'knownStates', 'phase', 'downloadedBlock', 'importedBlocks', 'importedTransactions', 'blocksPerSecond']);
  assert.is(syncing.phase, 'full');
  assert.is(syncing.startingBlock, '0x0');
  assert.is(syncing.highestBlock, '0x' + BLOCKS.toString(16));

  // SIGKILL once a few hundred blocks are in
  const reached = await until('the follower to be mid-sync', async () => {
    const n = await head(follower);
    return n >= 300 && n;
  });
  follower.child.kill('SIGKILL');
  await follower.exited;
  assert.ok(reached < BLOCKS, `killed at ${reached}: mid-sync`);

  follower = await start(followerArgs);
  const resumedAt = await head(follower);
  assert.ok(resumedAt >= reached, `restarted at ${resumedAt}, had ${reached} when killed`);
  await until('the follower to be in step', async () => (await head(follower)) >= BLOCKS && (await rpcCall(follower.url, 'eth_syncing')) === false, 60_000, 200);
  // the restart resumed from its head rather than from the genesis
  assert.match(follower.output(), new RegExp(`sync: from block #${resumedAt} to #\\d+`));
  assert.match(follower.output(), /sync: block #\d+ of #\d+, \d+ blocks\/s, \d+ tx\/s.*in step/);
  for (const n of [1, reached, BLOCKS]) assert.is(await hashAt(follower, n), await hashAt(validator, n), `block ${n}`);
  assert.is(await rpcCall(follower.url, 'eth_getBalance', [SINK, 'latest']), '0x' + BLOCKS.toString(16));

  // in step, it follows: a transfer sent to the follower is mined by the validator, and its block comes back
  const raw = await new Wallet(testKey(0)).signTransaction(Transaction.from({ to: SINK, value: 1n, nonce: BLOCKS, gasLimit: 21000, gasPrice: 0, chainId: 300, type: 0 }));
  const hash = await rpcCall(follower.url, 'eth_sendRawTransaction', [raw]);
  const receipt = await until('the receipt on the follower', () => rpcCall(follower.url, 'eth_getTransactionReceipt', [hash]), 15_000);
  assert.is(receipt.blockNumber, '0x' + (BLOCKS + 1).toString(16));
  assert.is(receipt.blockHash, await hashAt(validator, BLOCKS + 1));
});

test.run();
