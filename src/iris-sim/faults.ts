// What goes wrong in one seed (I15): drawn from the seed alone, so a seed names its faults. Every
// fault but clock skew and the Byzantine validators ends by `endMs`; liveness is judged after it.
// At most F validators are faulty: Byzantine ones, and (while restarts lose the engine's votes,
// I17) the ones that crash.

export const FAULT_KINDS = ['delay', 'loss', 'duplicate', 'reorder', 'partition', 'crash', 'skew', 'byzantine'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** One-way message delay: uniform in [minMs, maxMs], a `tail` share of messages `tailFactor` times as late. */
export interface DelayProfile {
  name: 'lan' | 'wan';
  minMs: number;
  maxMs: number;
  tail: number;
  tailFactor: number;
}

export const PROFILES: Record<DelayProfile['name'], DelayProfile> = {
  lan: { name: 'lan', minMs: 0.2, maxMs: 3, tail: 0.02, tailFactor: 20 },
  wan: { name: 'wan', minMs: 20, maxMs: 200, tail: 0.01, tailFactor: 5 },
};

/** How a Byzantine validator lies: a second block for its proposals, a second vote for each vote, or nothing at all. */
export type Lie = 'equivocate' | 'double-vote' | 'silent';

export interface FaultPlan {
  profile: DelayProfile;
  /** delays vary per message (else every message takes minMs, the link's latency) */
  delay: boolean;
  loss: number;
  duplicate: number;
  /** messages of one link may overtake each other */
  reorder: boolean;
  partitions: { atMs: number; healMs: number; groups: number[][] }[];
  crashes: { node: number; atMs: number; restartMs: number }[];
  skewMs: number[];
  byzantine: Map<number, Lie[]>;
  /** when the faults that end have ended */
  endMs: number;
}

export interface PlanOptions {
  validators: number;
  kinds: ReadonlySet<FaultKind>;
  /** the span the faults are placed in (ms of virtual time) */
  windowMs: number;
  profile?: DelayProfile['name'];
  /** a fixed loss (the scale runs), else drawn */
  loss?: number;
  /** the most partitions a seed draws (default 2) */
  partitions?: number;
  /** restarts keep the engine's votes and lock (a consensus log): crashed validators count as honest */
  restartKeepsVotes: boolean;
}

export function planFaults(random: () => number, o: PlanOptions): FaultPlan {
  const n = o.validators;
  const f = Math.floor((n - 1) / 3);
  const has = (k: FaultKind) => o.kinds.has(k);
  const between = (a: number, b: number) => a + (b - a) * random();
  const int = (a: number, b: number) => Math.floor(between(a, b + 1));
  const profile = PROFILES[o.profile ?? (random() < 0.5 ? 'lan' : 'wan')];
  const w = o.windowMs;
  const plan: FaultPlan = {
    profile,
    delay: has('delay'),
    loss: o.loss ?? (has('loss') ? between(0, 0.15) : 0),
    duplicate: has('duplicate') ? between(0, 0.1) : 0,
    reorder: has('reorder'),
    partitions: [],
    crashes: [],
    skewMs: Array.from({ length: n }, () => (has('skew') ? between(-5000, 5000) : 0)),
    byzantine: new Map(),
    endMs: w,
  };
  for (let p = has('partition') ? int(0, o.partitions ?? 2) : 0; p > 0; p--) {
    const atMs = between(0, w * 0.8);
    const side = Array.from({ length: n }, () => random() < 0.5);
    if (side.every((s) => s === side[0])) side[int(0, n - 1)] = !side[0];
    const groups = [0, 1].map((g) => side.flatMap((s, i) => (Number(s) === g ? [i] : [])));
    plan.partitions.push({ atMs, healMs: Math.min(w, atMs + between(100, w / (o.partitions ?? 2) / 2)), groups });
  }
  // the faulty validators, in a seeded order
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = int(0, i);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  let faulty = has('byzantine') || (has('crash') && !o.restartKeepsVotes) ? (random() < 0.75 ? f : int(0, f)) : 0;
  const crashers: number[] = [];
  for (const node of order) {
    if (faulty === 0) break;
    const byzantine = has('byzantine') && (!has('crash') || random() < 0.5);
    if (byzantine) plan.byzantine.set(node, lies(random));
    else crashers.push(node);
    faulty--;
  }
  // with a consensus log a restart is no fault: any validator may crash
  if (has('crash') && o.restartKeepsVotes) for (const node of order) if (!plan.byzantine.has(node) && random() < 0.5) crashers.push(node);
  for (const node of crashers) {
    for (let c = int(1, 3); c > 0; c--) {
      const atMs = between(0, w * 0.9);
      plan.crashes.push({ node, atMs, restartMs: Math.min(w, atMs + between(0, w / 3)) });
    }
  }
  return plan;
}

function lies(random: () => number): Lie[] {
  const r = random();
  if (r < 0.25) return ['silent'];
  if (r < 0.5) return ['equivocate'];
  if (r < 0.75) return ['double-vote'];
  return ['equivocate', 'double-vote'];
}

/** The plan in a few words, for a failing seed's report. */
export function describePlan(p: FaultPlan): string {
  const parts = [`${p.profile.name}${p.delay ? '' : ' (fixed delay)'}`, `loss ${(p.loss * 100).toFixed(1)} %`, `dup ${(p.duplicate * 100).toFixed(1)} %`, p.reorder ? 'reorder' : 'fifo'];
  for (const x of p.partitions) parts.push(`partition ${x.groups.map((g) => g.join(',')).join(' | ')} ${ms(x.atMs)}–${ms(x.healMs)}`);
  for (const c of p.crashes) parts.push(`crash v${c.node} ${ms(c.atMs)}–${ms(c.restartMs)}`);
  if (p.skewMs.some((s) => s !== 0)) parts.push(`skew ${p.skewMs.map((s) => Math.round(s)).join('/')} ms`);
  for (const [node, l] of p.byzantine) parts.push(`byzantine v${node} ${l.join('+')}`);
  return parts.join('; ');
}

const ms = (x: number) => `${(x / 1000).toFixed(2)}s`;
