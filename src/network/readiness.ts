// When `npm run network` may say `network ready`: every node answers, has a peer (when there is
// more than one node) and has the validators' head. Answering alone is not enough: a follower that
// answers before it has peered or caught up serves an old state (a transfer to it is refused for
// `insufficient funds` the validator's chain already has, N14).
import type { NodeProcess } from './node-process.ts';

/** How often the nodes are asked. */
const POLL_MS = 250;
/** How often what is awaited is said on stderr. */
const REPORT_EVERY_MS = 5000;
/** Waiting fails when no awaited node gained a block or a peer for this long. */
const STALL_MS = 60_000;

interface NodeStep {
  index: number;
  peers: number;
  head: bigint;
}

async function rpc(http: string, method: string): Promise<string> {
  const res = await fetch(http, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) });
  const body = (await res.json()) as { result?: string; error?: { message: string } };
  if (typeof body.result !== 'string') throw new Error(`${method}: ${body.error?.message ?? 'no result'}`);
  return body.result;
}

async function stepOf(p: NodeProcess): Promise<NodeStep> {
  const [peers, head] = await Promise.all([rpc(p.http, 'net_peerCount'), rpc(p.http, 'eth_blockNumber')]);
  return { index: p.slot.index, peers: Number(peers), head: BigInt(head) };
}

/**
 * The nodes not yet in step: without a peer (in a network of more than one), or behind `target`
 * (the validators' highest head, read before the nodes' own heads so a block sealed meanwhile does
 * not move it).
 */
function behind(steps: readonly NodeStep[], target: bigint, networked: boolean): NodeStep[] {
  return steps.filter((s) => (networked && s.peers < 1) || s.head < target);
}

function describe(s: NodeStep, target: bigint): string {
  return `node ${s.index}: ${s.peers} peer(s), block #${s.head} of #${target}`;
}

/**
 * Resolves once every node is in step (see `behind`); rejects when waiting stalls for STALL_MS or
 * `cancelled` resolves first (the command is being stopped). `validators`: nodes 1…V.
 */
export async function untilInStep(nodes: readonly NodeProcess[], validators: number, say: (line: string) => void, cancelled: Promise<unknown>): Promise<void> {
  let stop = false;
  void cancelled.then(() => (stop = true));
  const networked = nodes.length > 1;
  let lastReport = Date.now();
  let lastGain = Date.now();
  const best = new Map<number, number>();
  for (;;) {
    if (stop) throw new Error('stopped while waiting for the nodes to be in step');
    const gone = nodes.find((p) => p.child.exitCode !== null || p.child.signalCode !== null);
    if (gone) throw new Error(`node ${gone.slot.index} exited before the network was in step; its log: ${gone.log}`);
    let waiting: NodeStep[] | undefined;
    let target = 0n;
    try {
      const leaders = await Promise.all(nodes.slice(0, validators).map(stepOf));
      target = leaders.reduce((m, s) => (s.head > m ? s.head : m), 0n);
      waiting = behind(await Promise.all(nodes.map(stepOf)), target, networked);
    } catch {
      // a node between answers (restarting its listener): asked again
    }
    if (waiting?.length === 0) return;
    const now = Date.now();
    if (waiting) {
      // a gain: an awaited node has more blocks or peers than it ever had
      for (const s of waiting) {
        const v = Number(s.head) + s.peers;
        if (v > (best.get(s.index) ?? -1)) {
          best.set(s.index, v);
          lastGain = now;
        }
      }
      if (now - lastReport >= REPORT_EVERY_MS) {
        lastReport = now;
        say(`waiting for ${waiting.map((s) => describe(s, target)).join('; ')}`);
      }
      if (now - lastGain >= STALL_MS) throw new Error(`no progress for ${STALL_MS / 1000} s: ${waiting.map((s) => describe(s, target)).join('; ')} (each node's log is DATADIR/node.log)`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
