// A network of 4 validators against 1 (4 nodes either way, processes on loopback, `npm run network
// -- --validators V`, 1 s blocks): the single-node ingest (bench/ingest.ts: SENDERS senders funded
// first, their transfers sent to node 1, CONNECTIONS in flight) timed until all are mined — tx/s and
// the mean time between the blocks that carried them — then the time from sending a transaction to
// a node (each node in turn) until its receipt is on every node, median and p99.
//   node --import tsx bench/validators.ts [--quick]     (npm run bench runs it too)
import { randomBytes } from 'node:crypto';
import { cleanUp, fundedKey, networkDir, nextNonce, runNetwork, signedTransfer, until, type NetworkNode, type NetworkRun } from '../test/helpers/network.ts';
import { rpcCall } from '../test/helpers/process.ts';
import { signLegacyTx } from '../src/accounts/signing.ts';
import { makeTxCommon } from '../src/tx/common.ts';
import { addressOf } from '../src/crypto/secp256k1.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { runIngest, signTransfers } from './ingest.ts';
import { timeToEveryNode, percentile } from './network.ts';
import { OURS, type Row } from './report.ts';

const NODES = 4;
const SENDERS = 100;
const CONNECTIONS = 32;
const SINK = '0x' + '5e'.repeat(20);
const CHAIN_ID = 300n;

interface Measured {
  txPerSecond: number;
  blockMs: number;
  latencies: number[];
}

/** Funds `keys` from the network's account through node 1 and waits until every funding is mined. */
async function fund(node: NetworkNode, from: Uint8Array, keys: Uint8Array[]): Promise<void> {
  const common = makeTxCommon(CHAIN_ID);
  let nonce = await nextNonce(node, from);
  const hashes: string[] = [];
  for (const k of keys) {
    const tx = signLegacyTx({ nonce: nonce++, gasPrice: 0n, gasLimit: 21_000n, to: addressOf(k), value: 10n ** 18n, data: new Uint8Array(0) }, from, common);
    hashes.push(await rpcCall(node.http, 'eth_sendRawTransaction', [bytesToHex(tx.serialize())]));
  }
  for (const h of hashes) await until(`funding ${h} mined`, () => rpcCall(node.http, 'eth_getTransactionReceipt', [h]), 120_000);
}

async function measure(validators: number, perSender: number, samples: number): Promise<Measured> {
  const dir = networkDir();
  let run: NetworkRun | undefined;
  try {
    run = await runNetwork(dir, ['--nodes', String(NODES), '--validators', String(validators), '--period', '1'], 120_000);
    const nodes = run.nodes;
    const first = nodes[0]!;
    // validators dial every consensus node; a follower needs one peer
    await until('every node connected', async () => (await Promise.all(nodes.map((n) => rpcCall(n.http, 'net_peerCount')))).every((c, i) => Number(c) >= (nodes[i]!.validator ? validators - 1 : 1)), 60_000);
    const key = await fundedKey(dir);
    const keys = Array.from({ length: SENDERS }, () => new Uint8Array(randomBytes(32)));
    await fund(first, key, keys);
    const h0 = BigInt(await rpcCall(first.http, 'eth_blockNumber'));
    const ingest = await runIngest(first.http, signTransfers(keys, perSender, CHAIN_ID, 0n), keys, { inFlight: CONNECTIONS, stallSeconds: 60, budgetSeconds: 900 });
    if (ingest.status !== 'done') throw new Error(`ingest with ${validators} validator(s) ${ingest.status} at ${ingest.mined} of ${ingest.count}`);
    const h1 = BigInt(await rpcCall(first.http, 'eth_blockNumber'));
    const latencies: number[] = [];
    let nonce = await nextNonce(first, key);
    for (let i = 0; i <= samples; i++) {
      // sent at a random point of the block period, as transactions arrive
      await new Promise((r) => setTimeout(r, Math.random() * 1000));
      const t = await timeToEveryNode(nodes, nodes[i % nodes.length]!, signedTransfer(key, nonce++, SINK));
      if (i > 0) latencies.push(t);
    }
    return { txPerSecond: ingest.count / ingest.seconds, blockMs: (ingest.seconds * 1000) / Number(h1 - h0), latencies: latencies.sort((a, b) => a - b) };
  } finally {
    await cleanUp(run, dir);
  }
}

/** The bench's rows: ingest tx/s and block time, and submit-to-receipt-everywhere, for 1 and 4 validators. */
export async function validatorsBench(quick: boolean, log: (line: string) => void = () => {}): Promise<Row[]> {
  const perSender = quick ? 20 : 100;
  const samples = quick ? 10 : 40;
  const rows: Row[] = [];
  for (const v of [1, 4]) {
    const m = await measure(v, perSender, samples);
    const who = `${v} validator${v > 1 ? 's' : ''} + ${NODES - v} follower${NODES - v === 1 ? '' : 's'}`;
    const cell = (value: number) => ({ [OURS]: { value } });
    rows.push({ short: `ingest, ${v} of ${NODES} nodes validating`, label: `ingest over a network of ${NODES} nodes (${who}, loopback, 1 s blocks): ${SENDERS * perSender} transfers from ${SENDERS} senders sent to node 1, until all mined`, unit: 'tx/s', better: 'higher', compare: false, cells: cell(Math.round(m.txPerSecond)) });
    rows.push({ short: `block time while ingesting, ${v} validating`, label: `the same ingest: mean time between the blocks that carried it (${who})`, unit: 'ms', better: 'lower', compare: false, cells: cell(Math.round(m.blockMs)) });
    for (const [p, name] of [[50, 'median'], [99, 'p99']] as const) {
      rows.push({ short: `tx to receipt on ${NODES} nodes, ${v} validating, ${name}`, label: `a transaction sent to each node in turn until its receipt is on all ${NODES} (${who}, 1 s blocks), ${name} of ${samples}`, unit: 'ms', better: 'lower', compare: false, cells: cell(Math.round(percentile(m.latencies, p))) });
    }
    for (const r of rows.slice(-4)) log(`  ${r.label}: ${r.cells[OURS]!.value} ${r.unit}`);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await validatorsBench(process.argv.includes('--quick'), (l) => process.stderr.write(l + '\n'));
  for (const r of rows) process.stdout.write(`| ${r.label} | ${r.cells[OURS]!.value} ${r.unit} |\n`);
}
