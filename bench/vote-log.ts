// What a durable vote costs (I9, I14). Per vote: an fdatasync'ed append to the consensus log (the
// node's way, src/core/consensus-log-file.ts) against an LMDB synced commit (putSync, and an
// awaited put), VOTES of each in a temp dir here. Per block, on `npm run network` (processes on
// loopback): at --period 0, BLOCKS transfers sent one at a time to node 1, each waited for, with 1
// and 4 validators — ms per block; at --period 1 with 4 validators, a transfer every 250 ms for
// 20 s — the gaps between the timestamps of the blocks made meanwhile.
//   node --import tsx bench/vote-log.ts [--votes] [--blocks]     (both when neither is given)
import { open } from 'lmdb';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cleanUp, fundedKey, networkDir, nextNonce, runNetwork, signedTransfer, until, type NetworkRun } from '../test/helpers/network.ts';
import { rpcCall } from '../test/helpers/process.ts';

const VOTES = 300;
const BLOCKS = 40;
const SINK = '0x' + '5e'.repeat(20);

async function perVote(): Promise<Record<string, number>> {
  const { FileConsensusLog } = await import('../src/core/consensus-log-file.ts');
  const dir = mkdtempSync(join(process.cwd(), '.vote-log-'));
  try {
    const log = new FileConsensusLog(dir, { error() {}, warn() {}, info() {}, debug() {} });
    const digest = new Uint8Array(32).fill(7);
    const us = (t: bigint) => Math.round(Number(process.hrtime.bigint() - t) / 1000 / VOTES);
    let t = process.hrtime.bigint();
    for (let i = 0; i < VOTES; i++) log.vote({ sequence: BigInt(i), round: 0, code: 1, digest });
    const append = us(t);
    log.close();
    const env = open({ path: join(dir, 'lmdb'), compression: false });
    t = process.hrtime.bigint();
    for (let i = 0; i < VOTES; i++) env.putSync('v' + i, Buffer.from(digest));
    const putSync = us(t);
    t = process.hrtime.bigint();
    for (let i = 0; i < VOTES; i++) await env.put('w' + i, Buffer.from(digest));
    const put = us(t);
    await env.close();
    return { fsyncAppendUs: append, lmdbPutSyncUs: putSync, lmdbAwaitedPutUs: put };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function network<T>(args: string[], run: (r: NetworkRun, dir: string) => Promise<T>): Promise<T> {
  const dir = networkDir();
  let r: NetworkRun | undefined;
  try {
    r = await runNetwork(dir, ['--nodes', '4', '--timeout', '1000', ...args], 120_000);
    const nodes = r.nodes;
    const validators = nodes.filter((n) => n.validator).length;
    // validators dial every consensus node; a follower needs one peer
    await until('every node connected', async () => (await Promise.all(nodes.map((n) => rpcCall(n.http, 'net_peerCount')))).every((c, i) => Number(c) >= (nodes[i]!.validator ? validators - 1 : 1)), 60_000);
    return await run(r, dir);
  } finally {
    await cleanUp(r, dir);
  }
}

/** ms per block at --period 0: each transfer its own block. */
function periodZero(validators: number): Promise<number> {
  return network(['--validators', String(validators), '--period', '0'], async (r, dir) => {
    const node = r.nodes[0]!;
    const key = await fundedKey(dir);
    let nonce = await nextNonce(node, key);
    // the first block after the promotion settles the set
    const first = signedTransfer(key, nonce++, SINK);
    await rpcCall(node.http, 'eth_sendRawTransaction', [first.raw]);
    await until('the first transfer', () => rpcCall(node.http, 'eth_getTransactionReceipt', [first.hash]), 60_000);
    const h0 = BigInt(await rpcCall(node.http, 'eth_blockNumber'));
    const t0 = performance.now();
    for (let i = 0; i < BLOCKS; i++) {
      const tx = signedTransfer(key, nonce++, SINK);
      await rpcCall(node.http, 'eth_sendRawTransaction', [tx.raw]);
      await until(`transfer ${i}`, () => rpcCall(node.http, 'eth_getTransactionReceipt', [tx.hash]), 60_000);
    }
    const blocks = Number(BigInt(await rpcCall(node.http, 'eth_blockNumber')) - h0);
    return Math.round((performance.now() - t0) / blocks);
  });
}

/** The timestamp gaps of the blocks made at --period 1 under a steady trickle of transfers. */
function periodOne(): Promise<{ blocks: number; oneSecond: number; longest: number }> {
  return network(['--validators', '4', '--period', '1'], async (r, dir) => {
    const node = r.nodes[0]!;
    const key = await fundedKey(dir);
    let nonce = await nextNonce(node, key);
    const h0 = BigInt(await rpcCall(node.http, 'eth_blockNumber')) + 2n;
    const end = Date.now() + 20_000;
    while (Date.now() < end) {
      await rpcCall(r.nodes[Number(nonce % 4n)]!.http, 'eth_sendRawTransaction', [signedTransfer(key, nonce++, SINK).raw]);
      await new Promise((d) => setTimeout(d, 250));
    }
    const h1 = BigInt(await rpcCall(node.http, 'eth_blockNumber'));
    const times: number[] = [];
    for (let h = h0; h <= h1; h++) times.push(Number(BigInt((await rpcCall(node.http, 'eth_getBlockByNumber', ['0x' + h.toString(16), false])).timestamp)));
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    return { blocks: gaps.length, oneSecond: gaps.filter((g) => g === 1).length, longest: Math.max(...gaps) };
  });
}

const all = !process.argv.includes('--votes') && !process.argv.includes('--blocks');
if (all || process.argv.includes('--votes')) console.log(JSON.stringify({ votes: VOTES, ...(await perVote()) }));
if (all || process.argv.includes('--blocks')) {
  console.log(JSON.stringify({ period0msPerBlock1Validator: await periodZero(1), period0msPerBlock4Validators: await periodZero(4) }));
  console.log(JSON.stringify({ period1With4Validators: await periodOne() }));
}
