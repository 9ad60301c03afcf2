// Power cuts (issue 35): a 4-validator `npm run network` whose four nodes are all SIGKILLed at a
// random moment while a transfer is on its way, restarted on their datadirs with the commands the
// network printed, again and again. After each restart a transfer is sent; the run records how long
// until every node has its receipt, and checks that no height ever held two blocks (across the
// nodes, and across the cuts: a block once seen at a height stays there).
//
//   node --import tsx bench/iris-power-cuts.ts [--cuts 30] [--timeout 10000] [--seed 1]
//
// Long (minutes); not part of npm test. Prints one line per cut and a summary.
import { parseArgs } from 'node:util';
import { rpcCall } from '../test/helpers/process.ts';
import { fundedKey, hashAt, head, nextNonce, signedTransfer, startLocalNetwork, until, type LocalNetwork, type NetworkNode } from '../test/helpers/network.ts';
import { prng } from '../src/util/prng.ts';

const { values } = parseArgs({ options: { cuts: { type: 'string' }, timeout: { type: 'string' }, seed: { type: 'string' } } });
const CUTS = Number(values.cuts ?? 30);
/** npm run network's default round timeout */
const TIMEOUT_MS = Number(values.timeout ?? 10_000);
const random = prng(Number(values.seed ?? 1));
const TO = '0x' + '5e'.repeat(20);

/** Sends raw to every node; one that has it already (or has mined it) is fine. */
async function toAll(nodes: readonly NetworkNode[], raw: string): Promise<void> {
  await Promise.all(nodes.map((n) => rpcCall(n.http, 'eth_sendRawTransaction', [raw]).catch((e: Error) => {
    if (!/already known|nonce too low/.test(e.message)) throw e;
  })));
}

let net: LocalNetwork | undefined;
const seen = new Map<bigint, string>();
const forks: string[] = [];
/** Every block of every node against the first hash seen at its height. */
async function checkBlocks(nodes: readonly NetworkNode[]): Promise<bigint[]> {
  const heads = await Promise.all(nodes.map(head));
  for (const [i, n] of nodes.entries()) {
    for (let h = 0n; h <= heads[i]!; h++) {
      const hash = (await hashAt(n, h))!;
      const first = seen.get(h);
      if (first === undefined) seen.set(h, hash);
      else if (first !== hash) forks.push(`block ${h}: ${first} and, on node ${n.node}, ${hash}`);
    }
  }
  return heads;
}

const waits: number[] = [];
let cutPending = 0;
try {
  const started = Date.now();
  net = await startLocalNetwork({ validators: 4, timeoutMs: TIMEOUT_MS });
  const nodes = net.nodes;
  const key = await fundedKey(net.dir);
  let nonce = await nextNonce(nodes[0]!, key);
  const first = signedTransfer(key, nonce++, TO);
  await toAll(nodes, first.raw);
  await until('the first transfer', () => rpcCall(nodes[0]!.http, 'eth_getTransactionReceipt', [first.hash]), 10 * TIMEOUT_MS);
  console.log(`network of 4 validators up in ${((Date.now() - started) / 1000).toFixed(1)} s; round timeout ${TIMEOUT_MS} ms; ${CUTS} cuts`);
  for (let cut = 1; cut <= CUTS; cut++) {
    // a transfer on its way, and the power goes at a random moment of its block's rounds
    const inFlight = signedTransfer(key, nonce++, TO);
    const from = await Promise.all(nodes.map(head));
    await toAll(nodes, inFlight.raw);
    // its block comes once the period (1 s) since the last has passed, its rounds a few ms later
    const afterMs = Math.floor(random() * 1500);
    await new Promise((r) => setTimeout(r, afterMs));
    const before = await Promise.all(nodes.map(head));
    const pending = before.some((h, i) => h === from[i]);
    if (pending) cutPending++;
    await Promise.all(nodes.map((n) => net!.kill(n)));
    await Promise.all(nodes.map((n) => net!.restart(n)));
    // a pool is memory: the transfer on its way may be gone, and a later nonce would wait for it
    await toAll(nodes, inFlight.raw);
    const probe = signedTransfer(key, nonce++, TO);
    const sentAt = Date.now();
    await toAll(nodes, probe.raw);
    await until(`cut ${cut}: the transfer sent after the restart on every node`, async () => (await Promise.all(nodes.map((n) => rpcCall(n.http, 'eth_getTransactionReceipt', [probe.hash])))).every((r) => r), 30 * TIMEOUT_MS);
    const waited = Date.now() - sentAt;
    waits.push(waited);
    const heads = await checkBlocks(nodes);
    console.log(`cut ${cut}: ${afterMs} ms after a transfer (${pending ? 'its block not yet written on every node' : 'written'}), heads ${before.join('/')} → mined ${waited} ms after the restart (${(waited / TIMEOUT_MS).toFixed(2)} × the timeout), heads ${heads.join('/')}, forks so far ${forks.length}`);
  }
} finally {
  await net?.stop();
}
const sorted = [...waits].sort((a, b) => a - b);
const within = waits.filter((w) => w <= 2 * TIMEOUT_MS).length;
console.log(`${waits.length} of ${CUTS} cuts resumed (${cutPending} cut before some node had the block of the transfer on its way); wait after the restart median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted.at(-1)} ms; ${within} within 2 × the timeout; ${forks.length === 0 ? 'never two blocks at one height' : `FORKS: ${forks.join('; ')}`}`);
process.exitCode = forks.length === 0 && within === CUTS ? 0 : 1;
