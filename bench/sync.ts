// Sync bench (issue 21): a validator's chain of --blocks blocks holding --txs transfers each is made
// in this process (the validator seals them as it would any transactions), then a follower on the
// same genesis takes all of it, and the rate is blocks and transactions per second:
//   - `network` (the row of docs/performance.md's network table): the validator and the follower as processes on loopback, the
//     follower syncing over libp2p from that one peer; timed from its first imported block to the
//     last (the node's own sync line says the same, from the sync's start).
//   - `door` (--door): in this process, the follower's ChainDoor.importBlocks fed with the
//     validator's ChainDoor.blocks in the batches the sync imports from one peer whose ranges arrive
//     faster than they import (REQUESTS_PER_PEER ranges of CHUNK_BLOCKS) — the chain side alone
//     (decoding, seal and sender recovery, execution, commits), no network.
//   - `snap` (--snap): the `network` row twice in one run on the same chain, a follower with
//     `--syncmode full` then one with `--syncmode snap` (N16), each timed from its start (RPC up)
//     until its head is the validator's.
//
//   - `serve` (--serve): two `--syncmode snap` joiners sync from the validator at once; its event
//     loop's answers (net_peerCount, polled) idle and meanwhile, and when each joiner was in step.
//
//   node --import tsx bench/sync.ts [--blocks N] [--txs N] [--door | --snap | --serve] [--chain DIR]
//   (--chain DIR: the validator's datadir is kept there and reused by the next run)
//
// `syncBench()` is what `npm run bench` runs (on the bundle it builds).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startTestNode, type TestNode } from '../test/helpers/node.ts';
import { sealTransferBlocks, undialledGenesis } from '../test/helpers/blocks.ts';
import { CoreChainDoor } from '../src/core/core-chain-door.ts';
import { CHUNK_BLOCKS, REQUESTS_PER_PEER } from '../src/p2p/sync.ts';
import { freePort, startServer, type Server } from './proc.ts';
import { rpcCall } from '../test/helpers/process.ts';

export interface SyncResult {
  blocks: number;
  txs: number;
  seconds: number;
  /** from the follower's start (its RPC up) until it is at the validator's head (network rows) */
  startSeconds?: number;
  /** the follower's CPU seconds over that time */
  startCpuSeconds?: number;
  /** CPU seconds over the import (door: this process; network: the follower's process, on Linux), every thread — on a loaded machine the figure that compares */
  cpuSeconds?: number;
}

const root = fileURLToPath(new URL('..', import.meta.url));

/** A validator node (in-process, stopped when given back) whose chain holds `blocks` blocks of `txs` transfers each. */
async function makeChain(blocks: number, txs: number, dir: string): Promise<void> {
  const a = await startTestNode({ dir, genesis: undialledGenesis(txs), config: { directTransfers: true } });
  try {
    await sealTransferBlocks(a, blocks, txs);
  } finally {
    await a.stop();
  }
}

/** The follower imports the validator's chain door to door, one batch at a time. */
async function importDoorToDoor(dirA: string, dirB: string, txsPerBlock: number): Promise<SyncResult> {
  const a: TestNode = await startTestNode({ dir: dirA, genesis: undialledGenesis(txsPerBlock) });
  // the validator's genesis, and a key of its own: a follower
  const b = await startTestNode({ dir: dirB, genesis: undialledGenesis(txsPerBlock), nodeKey: '77'.repeat(32) });
  try {
    const from = new CoreChainDoor(a.core);
    const to = new CoreChainDoor(b.core);
    const target = from.head().number;
    let txs = 0;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    while (to.head().number < target) {
      const outcome = await to.importBlocks(from.blocks(to.head().number + 1n, REQUESTS_PER_PEER * CHUNK_BLOCKS, 64 << 20));
      if (outcome.refused) throw new Error(`block #${to.head().number + 1n} refused: ${outcome.refused.reason}`);
      txs += outcome.transactions;
    }
    const cpu = process.cpuUsage(cpu0);
    return { blocks: Number(target), txs, seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
}

/** CPU seconds (user + system, every thread) a process has used, from Linux's /proc; undefined elsewhere. */
function cpuSecondsOf(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux)
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** `entry`: the node program and its leading arguments (the bundle in `npm run bench`). */
async function syncOverNetwork(dirA: string, dirB: string, txsPerBlock: number, entry: string[], followerArgs: string[] = []): Promise<SyncResult> {
  const start = async (name: string, dir: string, more: string[]): Promise<Server> => {
    const port = await freePort();
    const args = [...entry, '--datadir', dir, '--genesis', join(dirA, 'genesis.json'), '--http.addr', '127.0.0.1', '--http.port', String(port), '--p2p.port', String(await freePort()), '--verbosity', '1', ...more];
    return startServer(name, port, { cmd: process.execPath, args, cwd: root });
  };
  const a = await start('validator', dirA, []);
  let b: Server | undefined;
  try {
    const target = Number(await rpcCall(a.url, 'eth_blockNumber'));
    b = await start('follower', dirB, ['--bootnodes', (await rpcCall(a.url, 'admin_nodeInfo')).enode, ...followerArgs]);
    const t0 = performance.now();
    const cpu0 = cpuSecondsOf(b.pid);
    // the validator admits the follower as its static peer (the chain has no NodeManagement records)
    await rpcCall(a.url, 'admin_addPeer', [(await rpcCall(b.url, 'admin_nodeInfo')).enode]);
    let first: { at: number; head: number; cpu: number | undefined } | undefined;
    const deadline = performance.now() + 600_000;
    for (;;) {
      const head = Number(await rpcCall(b!.url, 'eth_blockNumber'));
      const at = performance.now();
      if (head > 0) first ??= { at, head, cpu: cpuSecondsOf(b!.pid) };
      if (head >= target) {
        const blocks = target - first!.head;
        const cpu = cpuSecondsOf(b!.pid);
        return { blocks, txs: blocks * txsPerBlock, seconds: (at - first!.at) / 1000, startSeconds: (at - t0) / 1000, ...(cpu !== undefined && cpu0 !== undefined ? { startCpuSeconds: cpu - cpu0 } : {}), ...(cpu !== undefined && first!.cpu !== undefined ? { cpuSeconds: cpu - first!.cpu } : {}) };
      }
      if (at > deadline) throw new Error(`the follower is at block ${head} of ${target} after 10 minutes`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await b?.stop();
    await a.stop();
  }
}

/**
 * `chain`: the validator's datadir, kept — made there when it is not yet (so that runs before and
 * after a change, or under --cpu-prof, import the same chain and spend no time making it).
 */
export async function syncBench(o: { blocks?: number; txs?: number; door?: boolean; entry?: string[]; chain?: string } = {}): Promise<SyncResult> {
  const blocks = o.blocks ?? 10_000;
  const txs = o.txs ?? 10;
  const dirA = o.chain ?? mkdtempSync(join(tmpdir(), 'chain-node-sync-a-'));
  const dirB = mkdtempSync(join(tmpdir(), 'chain-node-sync-b-'));
  try {
    if (o.chain === undefined || !existsSync(join(o.chain, 'test-genesis.json'))) await makeChain(blocks, txs, dirA);
    return o.door ? await importDoorToDoor(dirA, dirB, txs) : await syncOverNetwork(dirA, dirB, txs, o.entry ?? ['--import', 'tsx', 'src/cli.ts']);
  } finally {
    if (o.chain === undefined) rmSync(dirA, { recursive: true, force: true });
    rmSync(dirB, { recursive: true, force: true });
  }
}

/** Latencies (ms) of `net_peerCount` — answered on the node's event loop — polled one after another until `done` says stop. */
async function eventLoopLatencies(url: string, done: () => Promise<boolean>): Promise<number[]> {
  const out: number[] = [];
  let polls = 0;
  for (;;) {
    const t = performance.now();
    await rpcCall(url, 'net_peerCount');
    out.push(performance.now() - t);
    if (++polls % 20 === 0 && (await done())) return out;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

/** The validator while two snap joiners sync from it at once (`--serve`): its event loop's answers idle and meanwhile. */
export async function serveBench(o: { blocks?: number; txs?: number; chain?: string } = {}): Promise<{ idle: number[]; serving: number[]; joiners: number[] }> {
  const blocks = o.blocks ?? 10_000;
  const txs = o.txs ?? 10;
  const dirA = o.chain ?? mkdtempSync(join(tmpdir(), 'chain-node-sync-a-'));
  const dirs = [mkdtempSync(join(tmpdir(), 'chain-node-serve-1-')), mkdtempSync(join(tmpdir(), 'chain-node-serve-2-'))];
  const entry = ['--import', 'tsx', 'src/cli.ts'];
  const start = async (name: string, dir: string, more: string[]): Promise<Server> => {
    const port = await freePort();
    const args = [...entry, '--datadir', dir, '--genesis', join(dirA, 'genesis.json'), '--http.addr', '127.0.0.1', '--http.port', String(port), '--p2p.port', String(await freePort()), '--verbosity', '1', ...more];
    return startServer(name, port, { cmd: process.execPath, args, cwd: root });
  };
  const servers: Server[] = [];
  try {
    if (o.chain === undefined || !existsSync(join(o.chain, 'test-genesis.json'))) await makeChain(blocks, txs, dirA);
    const a = await start('validator', dirA, []);
    servers.push(a);
    const target = Number(await rpcCall(a.url, 'eth_blockNumber'));
    let t = performance.now();
    const idle = await eventLoopLatencies(a.url, async () => performance.now() - t > 3000);
    const enode = (await rpcCall(a.url, 'admin_nodeInfo')).enode;
    const joiners = await Promise.all(dirs.map((d, i) => start(`joiner ${i + 1}`, d, ['--bootnodes', enode, '--syncmode', 'snap'])));
    servers.push(...joiners);
    t = performance.now();
    for (const j of joiners) await rpcCall(a.url, 'admin_addPeer', [(await rpcCall(j.url, 'admin_nodeInfo')).enode]);
    const inStep: number[] = [];
    const serving = await eventLoopLatencies(a.url, async () => {
      for (const [i, j] of joiners.entries()) if (inStep[i] === undefined && Number(await rpcCall(j.url, 'eth_blockNumber')) >= target) inStep[i] = (performance.now() - t) / 1000;
      return inStep.filter((x) => x !== undefined).length === joiners.length;
    });
    return { idle, serving, joiners: inStep };
  } finally {
    for (const s of servers.reverse()) await s.stop();
    if (o.chain === undefined) rmSync(dirA, { recursive: true, force: true });
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

/** Full sync and state sync of the same chain, one after the other (the `snap` row). */
export async function snapBench(o: { blocks?: number; txs?: number; chain?: string } = {}): Promise<{ full: SyncResult; snap: SyncResult; blocks: number }> {
  const blocks = o.blocks ?? 10_000;
  const txs = o.txs ?? 10;
  const dirA = o.chain ?? mkdtempSync(join(tmpdir(), 'chain-node-sync-a-'));
  const dirs = [mkdtempSync(join(tmpdir(), 'chain-node-sync-full-')), mkdtempSync(join(tmpdir(), 'chain-node-sync-snap-'))];
  try {
    if (o.chain === undefined || !existsSync(join(o.chain, 'test-genesis.json'))) await makeChain(blocks, txs, dirA);
    const entry = ['--import', 'tsx', 'src/cli.ts'];
    const full = await syncOverNetwork(dirA, dirs[0]!, txs, entry, ['--syncmode', 'full']);
    const snap = await syncOverNetwork(dirA, dirs[1]!, txs, entry, ['--syncmode', 'snap']);
    return { full, snap, blocks };
  } finally {
    if (o.chain === undefined) rmSync(dirA, { recursive: true, force: true });
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { blocks: { type: 'string', default: '10000' }, txs: { type: 'string', default: '10' }, door: { type: 'boolean', default: false }, snap: { type: 'boolean', default: false }, serve: { type: 'boolean', default: false }, chain: { type: 'string' } } });
  if (values.serve) {
    const r = await serveBench({ blocks: Number(values.blocks), txs: Number(values.txs), chain: values.chain });
    const ms = (xs: number[]) => `median ${quantile(xs, 0.5).toFixed(1)} ms, p99 ${quantile(xs, 0.99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (${xs.length} answers)`;
    console.log(`validator's event loop (net_peerCount) idle: ${ms(r.idle)}`);
    console.log(`while two snap joiners sync from it: ${ms(r.serving)}; joiners in step after ${r.joiners.map((x) => x.toFixed(1) + ' s').join(' and ')}`);
    process.exit(0);
  }
  if (values.snap) {
    const { full, snap, blocks } = await snapBench({ blocks: Number(values.blocks), txs: Number(values.txs), chain: values.chain });
    const row = (name: string, r: SyncResult) => `${name}: ${blocks} blocks in ${r.startSeconds!.toFixed(2)} s from its start (${(blocks / r.startSeconds!).toFixed(0)} blocks/s equivalent)${r.startCpuSeconds === undefined ? '' : `; follower CPU ${r.startCpuSeconds.toFixed(2)} s`}`;
    console.log(row('full', full));
    console.log(row('snap', snap));
    process.exit(0);
  }
  const r = await syncBench({ blocks: Number(values.blocks), txs: Number(values.txs), door: values.door, chain: values.chain });
  const cpu = r.cpuSeconds === undefined ? '' : `; CPU ${r.cpuSeconds.toFixed(2)} s, ${((r.cpuSeconds * 1000) / r.blocks).toFixed(2)} ms a block`;
  console.log(`${values.door ? 'door to door' : 'over the network'}: ${r.blocks} blocks, ${r.txs} txs in ${r.seconds.toFixed(2)} s: ${(r.blocks / r.seconds).toFixed(0)} blocks/s, ${(r.txs / r.seconds).toFixed(0)} tx/s${cpu}`);
}
