// One lying validator among four (CHAIN_NODE_IRIS_TEST, I12), on real processes: the three honest
// ones refuse each lie with a log line naming the liar and the reason, keep agreeing and keep
// producing blocks, and report equivocation with the liar's address (iris_getEquivocations, I11).
// Two groups of lies on one network: proposals and votes for two blocks at one view with a flood of
// far-future ROUND_CHANGEs; then bad proposals (wrong state root, a timestamp an hour ahead, a gas
// limit above the chain's), a silent proposer and replayed old-round messages; last COMMITs with
// someone else's or no committed seal (that one gets the liar's peer banned, so it comes last).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fundedSender, head, receiptOn, sameHashes, startLocalNetwork, until, type LocalNetwork, type NetworkNode } from './helpers/network.ts';
import { rpcCall } from './helpers/process.ts';

const TIMEOUT_MS = 1000;
/** the most transfers a group sends before every lie it plays must have been seen */
const MAX_TRANSFERS = 24;

let net: LocalNetwork;
let honest: NetworkNode[];
let liar: NetworkNode;
let send: (...via: NetworkNode[]) => Promise<string>;

test.before(async () => {
  net = await startLocalNetwork({ validators: 4, timeoutMs: TIMEOUT_MS });
  honest = net.nodes.slice(0, 3);
  liar = net.nodes[3]!;
  send = await fundedSender(net.dir, net.nodes[0]!);
  await receiptOn(net.nodes[1]!, await send(...net.nodes), 10 * TIMEOUT_MS);
});

test.after(async () => {
  await net?.stop();
});

/** Restarts the liar lying these ways; resolves once it sees the others again. */
async function lying(modes: string): Promise<void> {
  await net.kill(liar);
  await net.restart(liar, { CHAIN_NODE_IRIS_TEST: modes });
  await until('the liar to see its peers', async () => Number(await rpcCall(liar.http, 'net_peerCount')) >= 3);
}

/** What every honest node logged, one string per node. */
const honestLogs = () => honest.map((n) => net.output(n));

/** Transfers one at a time through the honest nodes, each mined there, until `seen()` holds; returns how many blocks the honest nodes grew by. */
async function transfersUntil(what: string, seen: () => Promise<boolean>): Promise<bigint> {
  const start = await head(honest[0]!);
  for (let i = 0; ; i++) {
    const hash = await send(...honest);
    await receiptOn(honest[(i + 1) % 3]!, hash, 20 * TIMEOUT_MS);
    if (await seen()) break;
    assert.ok(i < MAX_TRANSFERS, `${MAX_TRANSFERS} transfers mined, and still not ${what}:\n${honestLogs().map((l) => l.slice(-2000)).join('\n---\n')}`);
  }
  await sameHashes(honest);
  return (await head(honest[0]!)) - start;
}

type Equivocation = { validator: string; number: number; round: number; first: { code: string }; second: { code: string } };
const equivocations = (n: NetworkNode): Promise<Equivocation[]> => rpcCall(n.http, 'iris_getEquivocations');

test('equivocating proposals, votes for two blocks at one view, a far-future ROUND_CHANGE flood: refused, reported, blocks go on', async () => {
  await lying('equivocate,double-vote,round-change-flood');
  const address = liar.address.toLowerCase();
  const proposed = (e: Equivocation) => e.first.code === 'PREPREPARE' || e.second.code === 'PREPREPARE';
  // every honest node holds a double vote; an equivocating proposal (the liar's turn) is held by some
  const reported = async () => {
    const lists = await Promise.all(honest.map(equivocations));
    return lists.every((l) => l.some((e) => !proposed(e))) && lists.flat().some(proposed);
  };
  assert.ok((await transfersUntil('both equivocations reported', reported)) > 0n);
  for (const [i, list] of (await Promise.all(honest.map(equivocations))).entries()) {
    assert.ok(list.every((e) => e.validator === address), `node ${i + 1} blames the liar alone: ${JSON.stringify(list)}`);
  }
  for (const [i, log] of honestLogs().entries()) {
    assert.ok(log.includes(`iris: equivocation by ${address}`), `node ${i + 1} logs the equivocation`);
    assert.match(log, new RegExp(`ROUND_CHANGE from ${address} for block #\\d+ round \\d+ refused: more than 100 rounds past`), `node ${i + 1} refuses the flood`);
  }
});

test('bad proposals, a silent proposer, replayed old rounds, then COMMITs with foreign or no seals: refused, blocks go on', async () => {
  await lying('bad-proposal,silent,replay');
  const address = liar.address.toLowerCase();
  const reasons = [
    new RegExp(`refused the proposal at block #\\d+ round \\d+ from ${address}: block #\\d+ 0x[0-9a-f]+: stateRoot 0x[0-9a-f]+ after execution, the header says`),
    new RegExp(`refused the proposal at block #\\d+ round \\d+ from ${address}: block #\\d+ 0x[0-9a-f]+: timestamp \\d+ is more than \\d+ s in the future`),
    new RegExp(`refused the proposal at block #\\d+ round \\d+ from ${address}: block #\\d+ 0x[0-9a-f]+: gas limit \\d+, the chain's is \\d+`),
    new RegExp(`timeout after \\d+ ms; no proposal from ${address}`),
    new RegExp(`ROUND_CHANGE from ${address} for block #\\d+ round \\d+ dropped: that round is past`),
  ];
  // each honest node sees each: a refusal is its own, not one node's
  const everyone = async () => honestLogs().every((log) => reasons.every((r) => r.test(log)));
  assert.ok((await transfersUntil('every lie refused on every honest node', everyone)) > 0n);

  await lying('bad-seals');
  const sealRefused = new RegExp(`COMMIT from ${address} at block #\\d+ round \\d+ refused: its committed seal is (no signature|0x[0-9a-f]{40}'s, not its sender's)`);
  assert.ok((await transfersUntil('a bad committed seal refused', async () => honestLogs().every((log) => sealRefused.test(log)))) > 0n);
});

test.run();
