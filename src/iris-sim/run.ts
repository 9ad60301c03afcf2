// One seed of the simulator (I15): N validators, each the real iris engine over a stand-in chain,
// on the simulated network, in virtual time. The seed draws the faults (faults.ts) and every random
// choice after; the run stops at the first safety violation, when the chain stops growing for
// `livenessMs` after the faults end, or when every honest validator has written `heights` blocks
// (and a few past the faults' end).
import { MemoryConsensusLog } from '../consensus/iris/memory-log.ts';
import { encodeBlock } from '../chain/block-codec.ts';
import type { HeadInfo } from '../chain/chain.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { nodeKeyFrom, type NodeKey } from '../crypto/node-key.ts';
import type { Logger } from '../util/logger.ts';
import { prng } from '../util/prng.ts';
import { IrisEngine } from '../consensus/iris/engine.ts';
import type { IrisMutations } from '../consensus/iris/ports.ts';
import { Liar } from './byzantine.ts';
import { BlockStore, SimChain, simGenesis } from './chain.ts';
import { SafetyChecker, type Violation } from './checker.ts';
import { memoiseRecovery } from './fast-recovery.ts';
import { describePlan, planFaults, type FaultKind, type FaultPlan } from './faults.ts';
import { SimNetwork } from './network.ts';
import { nodeClock, Scheduler, SIM_EPOCH_MS } from './scheduler.ts';

/**
 * Whether a restarted engine keeps its votes and lock. Today it does not (its VoteGuard and lock
 * live in memory), so a validator that crashes counts as one of the F faulty (I17); with a
 * consensus log in the engine's ports, pass it to the engine in `start` and set this.
 */
export const RESTART_KEEPS_VOTES = true;

/** After the faults end, the chain must grow by this many blocks (and by one at least every `livenessMs`). */
const BLOCKS_AFTER_FAULTS = 3;
/** how often a validator asks a peer for blocks above its head (the p2p sync's part) */
const SYNC_EVERY_MS = 1000;

export interface SimOptions {
  validators: number;
  seed: number;
  /** blocks every honest validator must write */
  heights: number;
  faults: ReadonlySet<FaultKind>;
  /** the span (virtual ms) the faults are placed in */
  windowMs: number;
  periodSeconds: number;
  timeoutMs: number;
  /** longest wait for the next block once the faults have ended */
  livenessMs: number;
  profile?: 'lan' | 'wan';
  loss?: number;
  /** the most partitions a seed draws (default 2) */
  partitions?: number;
  /** the block sync (announcements and pulls) stalls while the faults last: only consensus messages flow */
  stallSync?: boolean;
  /** the faults never end (the scale runs): the run ends at `heights` blocks */
  lasting?: boolean;
  /** CPU ms a validator spends on each consensus message it receives (default 0: free) */
  receiveCostMs?: number;
  /** test-only rule breaks planted in every engine (I16) */
  mutations?: IrisMutations;
  /** engine log lines (info and worse), prefixed with virtual time and validator */
  trace?: (line: string) => void;
}

export interface SeedResult {
  seed: number;
  ok: boolean;
  violations: (Violation | { kind: 'liveness'; step: number; atMs: number; text: string })[];
  plan: string;
  /** the fault kinds that occurred in this seed, and the lies its Byzantine validators told */
  occurred: string[];
  /** blocks every honest validator wrote */
  blocks: number;
  virtualMs: number;
  steps: number;
  /** consensus messages and bytes an honest validator sent per block */
  messagesPerBlock: number;
  bytesPerBlock: number;
  /** rounds beyond the first the decided heights took */
  roundChanges: number;
  /** mean virtual ms between blocks, from the first block to the last */
  blockTimeMs: number;
  /** from the faults' end to the next block every honest validator has */
  recoveryMs: number | undefined;
  amnesiaConflicts: number;
}

function occurred(p: FaultPlan): string[] {
  const kinds: string[] = [];
  if (p.delay) kinds.push('delay');
  if (p.loss > 0) kinds.push('loss');
  if (p.duplicate > 0) kinds.push('duplicate');
  if (p.reorder) kinds.push('reorder');
  if (p.partitions.length > 0) kinds.push('partition');
  if (p.crashes.length > 0) kinds.push('crash');
  if (p.skewMs.some((x) => x !== 0)) kinds.push('skew');
  if (p.byzantine.size > 0) kinds.push('byzantine');
  for (const lies of p.byzantine.values()) for (const l of lies) if (!kinds.includes(l)) kinds.push(l);
  return kinds;
}

const keyCache: NodeKey[] = [];
function simKey(i: number): NodeKey {
  return (keyCache[i] ??= nodeKeyFrom(keccak256(new TextEncoder().encode(`iris simulator validator ${i}`))));
}

const QUIET: Logger = { error() {}, warn() {}, info() {}, debug() {} };

function traceLogger(trace: (line: string) => void, prefix: () => string): Logger {
  const line = (level: string) => (msg: string) => trace(`${prefix()} ${level} ${msg}`);
  return { error: line('ERROR'), warn: line('WARN'), info: line('INFO'), debug() {} };
}

interface SimNode {
  store: BlockStore;
  engine?: IrisEngine;
  chain?: SimChain;
  liar?: Liar;
  /** what the engine signed: kept across its restarts, as the consensus log in a datadir is (I9) */
  log: MemoryConsensusLog;
}

export async function runSeed(o: SimOptions): Promise<SeedResult> {
  memoiseRecovery();
  const n = o.validators;
  const stream = (k: number) => prng(Math.imul(o.seed ^ 0x5bd1e995, 0x9e3779b1) + k * 0x632be5ab);
  const plan: FaultPlan = planFaults(stream(1), { validators: n, kinds: o.faults, windowMs: o.lasting ? Number.MAX_SAFE_INTEGER : o.windowMs, profile: o.profile, loss: o.loss, partitions: o.partitions, restartKeepsVotes: RESTART_KEEPS_VOTES });
  const s = new Scheduler();
  const net = new SimNetwork(s, stream(2), plan, n, o.receiveCostMs);
  const syncRandom = stream(3);
  const liarRandom = stream(4);
  const keys = Array.from({ length: n }, (_, i) => simKey(i));
  const validators = keys.map((k) => k.address).sort(Buffer.compare);
  const genesis = simGenesis(validators, BigInt(SIM_EPOCH_MS / 1000));
  const crashers = new Set(plan.crashes.map((c) => c.node));
  const honest = (i: number) => !plan.byzantine.has(i) && (RESTART_KEEPS_VOTES || !crashers.has(i));
  const honestNodes = Array.from({ length: n }, (_, i) => i).filter(honest);
  const checker = new SafetyChecker(n, honest, (i) => crashers.has(i) && !RESTART_KEEPS_VOTES, () => ({ step: s.steps, atMs: s.now }));
  const nodes: SimNode[] = keys.map(() => ({ store: new BlockStore(genesis), log: new MemoryConsensusLog() }));
  const heights = new Array<number>(n).fill(0);
  const firstWritten: number[] = [];
  const decidedRound: number[] = [];
  let minHeight = 0;
  let progressAt = 0;
  let heightAtEnd: number | undefined;
  let recoveryMs: number | undefined;

  const syncStalled = () => o.stallSync === true && s.now < plan.endMs;
  const written = (i: number, head: HeadInfo, how: 'committed' | 'imported') => {
    const h = Number(head.header.number);
    checker.blockWritten(i, head.header.number, head.hash);
    heights[i] = h;
    firstWritten[h] ??= s.now;
    if (how === 'committed' && !syncStalled()) {
      // the block's announcement (a real node gossips it): peers that missed its end import it
      for (let j = 0; j < n; j++) if (j !== i) net.carry(i, j, () => void nodes[j]!.chain?.importBlock(head));
    }
    if (!honest(i)) return;
    const min = Math.min(...honestNodes.map((k) => heights[k]!));
    if (min > minHeight) {
      minHeight = min;
      progressAt = s.now;
      if (heightAtEnd !== undefined && recoveryMs === undefined && min > heightAtEnd) recoveryMs = s.now - plan.endMs;
    }
  };

  const start = (i: number) => {
    const node = nodes[i]!;
    const key = keys[i]!;
    const clock = nodeClock(s, () => plan.skewMs[i]!);
    const chain = new SimChain({ store: node.store, validators, key, clock, periodSeconds: o.periodSeconds, written: (head, how) => written(i, head, how) });
    const lies = plan.byzantine.get(i);
    if (lies && !node.liar) node.liar = new Liar(lies, { key, head: () => node.store.head, validators, nowMs: () => clock.now(), periodSeconds: o.periodSeconds, random: liarRandom });
    let listener: ((m: Uint8Array) => Promise<unknown>) | undefined;
    const peers = Array.from({ length: n }, (_, j) => j).filter((j) => j !== i);
    const engine = new IrisEngine({
      chain,
      key,
      policy: 0,
      timeoutMs: o.timeoutMs,
      periodSeconds: o.periodSeconds,
      clock,
      consensusLog: node.log,
      mutations: o.mutations,
      log: o.trace ? traceLogger(o.trace, () => `${(s.now / 1000).toFixed(3)}s v${i}`) : QUIET,
      transport: {
        broadcast: (m) => {
          checker.messageSent(i, m);
          if (node.liar) node.liar.broadcast(m, peers, (to, b) => net.send(i, to, b));
          else for (const j of peers) net.send(i, j, m);
        },
        onMessage: (l) => (listener = l),
      },
    });
    engine.meter = {
      roundStarted: (height, round) => {
        if (honest(i)) decidedRound[Number(height)] = Math.max(decidedRound[Number(height)] ?? 0, round);
      },
      roundChanged() {},
    };
    node.engine = engine;
    node.chain = chain;
    engine.start();
    net.attach(i, (m) => {
      node.liar?.heard(m);
      void listener?.(m);
    });
  };

  const crash = (i: number) => {
    const node = nodes[i]!;
    if (!node.engine) return;
    void node.engine.stop();
    node.engine = undefined;
    node.chain = undefined;
    net.attach(i, undefined);
  };

  /** The sync: a validator asks a random peer for the blocks above its head and imports them. */
  const pull = (i: number) => {
    const j = (i + 1 + Math.floor(syncRandom() * (n - 1))) % n;
    net.carry(i, j, () => {
      const blocks = nodes[j]!.store.blocks;
      net.carry(j, i, () => {
        void (async () => {
          for (let h = Number(nodes[i]!.store.head.header.number) + 1; h < blocks.length; h++) {
            const chain = nodes[i]!.chain;
            if (!chain || !(await chain.importBlock(blocks[h]!))) return;
          }
        })();
      });
    });
  };
  const syncTick = () => {
    if (!syncStalled()) for (let i = 0; i < n; i++) if (net.up(i)) pull(i);
    s.after(SYNC_EVERY_MS, syncTick);
  };

  for (let i = 0; i < n; i++) start(i);
  for (const c of plan.crashes) {
    s.at(c.atMs, () => crash(c.node));
    s.at(c.restartMs, () => {
      if (!nodes[c.node]!.engine) start(c.node);
    });
  }
  s.after(SYNC_EVERY_MS, syncTick);
  let target = o.heights;
  if (o.lasting) heightAtEnd = 0;
  else s.at(plan.endMs, () => {
    heightAtEnd = minHeight;
    target = Math.max(o.heights, minHeight + BLOCKS_AFTER_FAULTS);
  });

  const violations: SeedResult['violations'] = [];
  const done = () => heightAtEnd !== undefined && minHeight >= target;
  for (;;) {
    const deadline = () => Math.max(o.lasting ? 0 : plan.endMs, progressAt) + o.livenessMs;
    await s.run(deadline(), () => checker.failed || done());
    if (checker.failed || done()) break;
    if (s.now >= deadline() || s.pending === 0) {
      const behind = honestNodes.filter((k) => heights[k]! <= minHeight).map((k) => `v${k}`);
      violations.push({ kind: 'liveness', step: s.steps, atMs: s.now, text: `no block for ${o.livenessMs} ms after the faults ended: the honest validators stay at #${minHeight} (${behind.join(', ')} there; target #${target})` });
      break;
    }
  }
  for (let i = 0; i < n; i++) crash(i);
  violations.unshift(...checker.violations);

  const blocks = minHeight;
  const sent = honestNodes.reduce((a, k) => ({ messages: a.messages + net.sent[k]!.messages, bytes: a.bytes + net.sent[k]!.bytes }), { messages: 0, bytes: 0 });
  const per = Math.max(1, blocks) * Math.max(1, honestNodes.length);
  let roundChanges = 0;
  for (let h = 1; h <= blocks; h++) roundChanges += decidedRound[h] ?? 0;
  return {
    seed: o.seed,
    ok: violations.length === 0,
    violations,
    plan: describePlan(plan),
    occurred: occurred(plan),
    blocks,
    virtualMs: s.now,
    steps: s.steps,
    messagesPerBlock: sent.messages / per,
    bytesPerBlock: sent.bytes / per,
    roundChanges,
    blockTimeMs: blocks > 1 ? (firstWritten[blocks]! - firstWritten[1]!) / (blocks - 1) : NaN,
    recoveryMs,
    amnesiaConflicts: checker.amnesiaConflicts,
  };
}
