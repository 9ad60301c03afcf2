// Propagation over a local network of 4 nodes (1 validator, 3 followers) made by `npm run network`:
// the time from eth_sendRawTransaction on a follower to the transaction's receipt on every node,
// median and p99. Transactions go one at a time, each to the next follower in turn, so each is
// timed alone: forwarded to the validator, sealed, the block announced and imported by every node;
// each is sent at a random point of the block period.
// Two networks: blocks by the clock (1 s, what `npm run network` makes), where the wait for the
// next block dominates, and sealing when a transaction arrives (period 0), which leaves the wire.
//   node --import tsx bench/network.ts [--quick]     (npm run bench runs it too)
import { fundedKey, networkDir, nextNonce, runNetwork, signedTransfer, cleanUp, until, type NetworkNode, type NetworkRun } from '../test/helpers/network.ts';
import { rpcCall } from '../test/helpers/process.ts';
import { OURS, type Row } from './report.ts';

const NODES = 4;
const SINK = '0x' + '5e'.repeat(20);

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** ms from sending `raw` to `via` until every node has its receipt (each polled every 2 ms). */
export async function timeToEveryNode(nodes: NetworkNode[], via: NetworkNode, tx: { raw: string; hash: string }): Promise<number> {
  const t0 = performance.now();
  await rpcCall(via.http, 'eth_sendRawTransaction', [tx.raw]);
  await Promise.all(
    nodes.map(async (n) => {
      const deadline = t0 + 30_000;
      while (!(await rpcCall(n.http, 'eth_getTransactionReceipt', [tx.hash]))) {
        if (performance.now() > deadline) throw new Error(`no receipt of ${tx.hash} on node ${n.node} after 30 s`);
        await new Promise((r) => setTimeout(r, 2));
      }
    }),
  );
  return performance.now() - t0;
}

async function latencies(period: number, samples: number): Promise<number[]> {
  const dir = networkDir();
  let run: NetworkRun | undefined;
  try {
    run = await runNetwork(dir, ['--nodes', String(NODES), '--period', String(period)]);
    const nodes = run.nodes;
    await until('every node connected', async () => (await Promise.all(nodes.map((n) => rpcCall(n.http, 'net_peerCount')))).every((c, i) => Number(c) >= (i === 0 ? NODES - 1 : 1)));
    const key = await fundedKey(dir);
    const followers = nodes.slice(1);
    const ms: number[] = [];
    const first = await nextNonce(nodes[0]!, key);
    // the first transaction warms every path (first forward, first import) and is not counted
    for (let i = 0; i <= samples; i++) {
      // a random point of the block period, as transactions arrive: sent right after the previous
      // receipt, each would wait a whole period for the next block
      await new Promise((r) => setTimeout(r, Math.random() * period * 1000));
      const t = await timeToEveryNode(nodes, followers[i % followers.length]!, signedTransfer(key, first + BigInt(i), SINK));
      if (i > 0) ms.push(t);
    }
    return ms.sort((a, b) => a - b);
  } finally {
    await cleanUp(run, dir);
  }
}

/** The bench's rows: median and p99 for each of the two networks. */
export async function networkBench(quick: boolean, log: (line: string) => void = () => {}): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [period, samples, what] of [
    [1, quick ? 10 : 40, '1 s blocks (npm run network\'s default)'],
    [0, quick ? 30 : 200, 'sealing when a transaction arrives (--period 0)'],
  ] as const) {
    const ms = await latencies(period, samples);
    for (const [p, name] of [[50, 'median'], [99, 'p99']] as const) {
      const value = Math.round(percentile(ms, p) * 10) / 10;
      const label = `transaction sent to a follower until its receipt is on all ${NODES} nodes (1 validator + 3 followers, loopback), ${what}, ${name} of ${samples}`;
      rows.push({ short: `follower tx to receipt on ${NODES} nodes, ${period === 0 ? 'period 0' : '1 s blocks'}, ${name}`, label, unit: 'ms', better: 'lower', compare: false, cells: { [OURS]: { value } } });
      log(`  ${label}: ${value} ms`);
    }
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await networkBench(process.argv.includes('--quick'), (l) => process.stderr.write(l + '\n'));
  for (const r of rows) process.stdout.write(`| ${r.label} | ${r.cells[OURS]!.value} ms |\n`);
}
