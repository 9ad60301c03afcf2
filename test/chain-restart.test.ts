// Durability: a stopped or killed node restarts at an intact head with consistent state,
// receipts and lookups; SIGKILL in the middle of a transaction stream never leaves half a block.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet, Transaction } from 'ethers';
import { NODE_KEY, testGenesis, testKey, testAddress } from './helpers/node.ts';
import { spawnNode, rpcCall } from './helpers/process.ts';
import { SYNC_COMMIT_TXS } from '../src/chain/chain.ts';

const SINK = '0x' + '5'.repeat(40);

function setup(): { dir: string; args: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'chain-node-restart-'));
  writeFileSync(join(dir, 'nodekey'), NODE_KEY);
  writeFileSync(join(dir, 'genesis.in.json'), JSON.stringify(testGenesis(NODE_KEY, 4, 0)));
  return { dir, args: ['--datadir', dir, '--genesis', join(dir, 'genesis.in.json'), '--http.port', '0', '--verbosity', '1'] };
}

async function signedTransfers(n: number, sender = 0): Promise<string[]> {
  const w = new Wallet(testKey(sender));
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await w.signTransaction(Transaction.from({ to: SINK, value: 1n, nonce: i, gasLimit: 21000, gasPrice: 0, chainId: 300, type: 0 })));
  return out;
}

/**
 * Sends the groups of raw transactions in order (each group one after another) and SIGKILLs the node
 * once `killAfter` transactions were accepted; sends that fail because the node died end the stream.
 */
async function killDuringStream(node: Awaited<ReturnType<typeof spawnNode>>, groups: string[][], killAfter: number): Promise<void> {
  let sent = 0;
  const stream = (async () => {
    for (const group of groups) {
      try {
        for (const raw of group) await rpcCall(node.url, 'eth_sendRawTransaction', [raw]);
      } catch {
        return; // the node died under us
      }
      sent += group.length;
    }
  })();
  while (sent < killAfter) await new Promise((r) => setTimeout(r, 2));
  node.child.kill('SIGKILL');
  assert.is(await node.exited, 'SIGKILL');
  await stream;
}

/**
 * Every canonical block up to the head is complete: body, receipts, lookups, and the sink balance.
 * Checked once the transactions replayed from the journal (answered before the kill) are mined.
 */
async function assertConsistent(url: string): Promise<number> {
  for (let i = 0; i < 250 && (await rpcCall(url, 'txpool_status')).pending !== '0x0'; i++) await new Promise((r) => setTimeout(r, 20));
  const head = Number(BigInt(await rpcCall(url, 'eth_blockNumber')));
  let txCount = 0;
  for (let n = 1; n <= head; n++) {
    const block = await rpcCall(url, 'eth_getBlockByNumber', ['0x' + n.toString(16), false]);
    assert.ok(block, `block ${n} exists`);
    for (const h of block.transactions as string[]) {
      const r = await rpcCall(url, 'eth_getTransactionReceipt', [h]);
      assert.ok(r, `receipt of ${h}`);
      assert.is(r.blockHash, block.hash);
      const tx = await rpcCall(url, 'eth_getTransactionByHash', [h]);
      assert.is(tx.blockNumber, block.number);
      txCount++;
    }
  }
  // each included transfer moved exactly 1 wei: state and blocks agree
  assert.is(BigInt(await rpcCall(url, 'eth_getBalance', [SINK, 'latest'])), BigInt(txCount));
  assert.is(BigInt(await rpcCall(url, 'eth_getTransactionCount', [testAddress(0), 'latest'])), BigInt(txCount));
  return head;
}

test('SIGTERM: clean shutdown, restart resumes at the same head with state intact', async () => {
  const { dir, args } = setup();
  try {
    let node = await spawnNode(args);
    const txs = await signedTransfers(5);
    const hashes = [];
    for (const raw of txs) hashes.push(await rpcCall(node.url, 'eth_sendRawTransaction', [raw]));
    for (let i = 0; i < 200 && !(await rpcCall(node.url, 'eth_getTransactionReceipt', [hashes[4]])); i++) await new Promise((r) => setTimeout(r, 20));
    const headBefore = await rpcCall(node.url, 'eth_getBlockByNumber', ['latest', false]);
    node.child.kill('SIGTERM');
    assert.is(await node.exited, 0, 'exit code 0 on SIGTERM');
    node = await spawnNode(args);
    const headAfter = await rpcCall(node.url, 'eth_getBlockByNumber', ['latest', false]);
    assert.is(headAfter.hash, headBefore.hash);
    assert.is(await assertConsistent(node.url), Number(BigInt(headBefore.number)));
    for (const h of hashes) assert.ok(await rpcCall(node.url, 'eth_getTransactionReceipt', [h]));
    node.child.kill('SIGTERM');
    await node.exited;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SIGKILL in the middle of a transaction stream leaves no half-written block', async () => {
  const { dir, args } = setup();
  try {
    let node = await spawnNode(args);
    const txs = await signedTransfers(400);
    await killDuringStream(node, txs.map((raw) => [raw]), 150);
    node = await spawnNode(args);
    const head = await assertConsistent(node.url);
    assert.ok(head >= 1, 'some blocks were committed before the kill');
    // the chain keeps working after the crash: the next nonce is accepted and sealed
    const next = Number(BigInt(await rpcCall(node.url, 'eth_getTransactionCount', [testAddress(0), 'latest'])));
    const h = await rpcCall(node.url, 'eth_sendRawTransaction', [txs[next]]);
    for (let i = 0; i < 200 && !(await rpcCall(node.url, 'eth_getTransactionReceipt', [h])); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(await rpcCall(node.url, 'eth_getTransactionReceipt', [h]), 'post-crash transaction mined');
    node.child.kill('SIGTERM');
    await node.exited;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('large blocks (committed on LMDB\'s write thread, not synchronously) survive SIGKILL whole', async () => {
  const { dir, args } = setup();
  try {
    let node = await spawnNode(args);
    const txs = await signedTransfers(300);
    const wait = async (hash: string) => {
      for (let i = 0; i < 250 && !(await rpcCall(node.url, 'eth_getTransactionReceipt', [hash])); i++) await new Promise((r) => setTimeout(r, 20));
      return rpcCall(node.url, 'eth_getTransactionReceipt', [hash]);
    };
    // nonces 1…59 wait behind the gap; nonce 0 makes all 60 executable at once: one block
    const big = 60;
    assert.ok(40 > SYNC_COMMIT_TXS, 'the blocks of this test take the asynchronous commit');
    for (let i = 1; i < big; i++) await rpcCall(node.url, 'eth_sendRawTransaction', [txs[i]]);
    await rpcCall(node.url, 'eth_sendRawTransaction', [txs[0]]);
    const last = await wait(Transaction.from(txs[big - 1]!).hash!);
    const block = await rpcCall(node.url, 'eth_getBlockByNumber', [last.blockNumber, false]);
    assert.is(block.transactions.length, big, 'one block');
    // more of them, 40 at a time, each group's first nonce last (one block a group), while the node is killed
    const groups: string[][] = [];
    for (let from = big; from + 40 <= txs.length; from += 40) groups.push([...txs.slice(from + 1, from + 40), txs[from]!]);
    await killDuringStream(node, groups, 120);
    node = await spawnNode(args);
    const head = await assertConsistent(node.url);
    const sizes = [];
    for (let n = 1; n <= head; n++) sizes.push((await rpcCall(node.url, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])).transactions.length);
    assert.ok(sizes.filter((k) => k >= 40).length >= 2, `large blocks before the kill survived: ${sizes.join(' ')}`);
    node.child.kill('SIGTERM');
    await node.exited;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
