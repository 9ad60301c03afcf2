// Fault injection, for tests only (--p2p.faults FILE or CHAIN_NODE_P2P_FAULTS=FILE): a JSON file,
// re-read when it changes, says what happens to the gossip this node receives from each peer
// (dropped, delayed, duplicated, reordered) and which peers it is cut off from (a partition).
// Faults act where a message enters this node — before the chain hears it, so a dropped message is
// one this node never saw — and partitions at the connection gater, so both directions stay cut.
// The random choices come from the file's seed (mixed with this node's id, so nodes differ), so a
// run can be repeated. A node without the flag has no FaultInjector: its gossip is judged as is.
//
//   { "seed": 7,
//     "peers": { "*": { "drop": 0.2, "delayMs": [0, 300], "duplicate": 0.1, "reorder": true },
//                "<peer id or 128-hex node key>": { "drop": 1 } },
//     "partition": [["<a>", "<b>"], ["<c>", "<d>"]],
//     "corruptState": true, "stateDelayMs": 200, "stateItems": 64 }
// `corruptState`: this node lies in the state it serves (a bit flipped in each range and code), so
// a state-syncing peer's verification can be tested (N16); `stateDelayMs` / `stateItems` make its
// state answers slow and small, so a state sync lasts long enough to be killed in the middle.
import { readFile } from 'node:fs/promises';
import { peerIdFromString } from '@libp2p/peer-id';
import { sha256 } from '@noble/hashes/sha2.js';
import { prng } from '../util/prng.ts';
import { peerIdOfNodeId } from './peer-address.ts';
import type { Logger } from '../util/logger.ts';

/** How often the file is looked at: a test that rewrites it sees the new faults within this. */
export const FAULT_FILE_POLL_MS = 250;

/** What happens to the gossip from one peer. */
export interface LinkFaults {
  /** probability that a message is dropped */
  drop: number;
  /** each message waits a uniformly random time in [min, max] ms before this node handles it */
  delayMs: [number, number];
  /** probability that the chain hears a message a second time (after its own delay) */
  duplicate: number;
  /** whether delayed messages may overtake each other; else each waits for the one before it */
  reorder: boolean;
}

export interface FaultPlan {
  seed: number;
  /** by peer id; '*' is every peer without a rule of its own */
  peers: Map<string, LinkFaults>;
  /** groups of peer ids: a node in one reaches only the peers of its own group */
  partition: string[][];
  /** this node's state answers lie */
  corruptState: boolean;
  /** each state answer waits this long; and holds at most stateItems leaves (0: no such cap) */
  stateDelayMs: number;
  stateItems: number;
}

export const NO_FAULTS: FaultPlan = { seed: 0, peers: new Map(), partition: [], corruptState: false, stateDelayMs: 0, stateItems: 0 };

function object(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${what} must be an object`);
  return v as Record<string, unknown>;
}

function only(o: Record<string, unknown>, keys: readonly string[], what: string): void {
  for (const k of Object.keys(o)) if (!keys.includes(k)) throw new Error(`${what}: unknown field "${k}" (known: ${keys.join(', ')})`);
}

function probability(v: unknown, what: string): number {
  if (v === undefined) return 0;
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw new Error(`${what} must be a probability from 0 to 1`);
  return v;
}

/** A peer id (16Uiu2…, 12D3…) or a node key (128 hex digits, as enode URLs and NodeManagement hold it): its peer id. */
function peerOf(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new Error(`${what} must be a peer id or a 128-hex node key`);
  try {
    return (/^(0x)?[0-9a-fA-F]{128}$/.test(v) ? peerIdOfNodeId(v.replace(/^0x/, '').toLowerCase()) : peerIdFromString(v)).toString();
  } catch {
    throw new Error(`${what}: "${v}" is neither a peer id nor a node key`);
  }
}

function linkFaults(v: unknown, what: string): LinkFaults {
  const o = object(v, what);
  only(o, ['drop', 'delayMs', 'duplicate', 'reorder'], what);
  let delayMs: [number, number] = [0, 0];
  if (o.delayMs !== undefined) {
    const d = o.delayMs;
    if (!Array.isArray(d) || d.length !== 2 || !d.every((x) => Number.isInteger(x) && x >= 0) || d[0] > d[1]) throw new Error(`${what}.delayMs must be [min, max]: whole milliseconds, 0 ≤ min ≤ max`);
    delayMs = [d[0], d[1]];
  }
  if (o.reorder !== undefined && typeof o.reorder !== 'boolean') throw new Error(`${what}.reorder must be true or false`);
  return { drop: probability(o.drop, `${what}.drop`), delayMs, duplicate: probability(o.duplicate, `${what}.duplicate`), reorder: o.reorder === true };
}

/** The fault file's text as a plan; throws an Error naming the field that is wrong. */
export function parseFaultPlan(text: string): FaultPlan {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON: ${(e as Error).message}`);
  }
  const o = object(json, 'the fault file');
  only(o, ['seed', 'peers', 'partition', 'corruptState', 'stateDelayMs', 'stateItems'], 'the fault file');
  if (o.corruptState !== undefined && typeof o.corruptState !== 'boolean') throw new Error('corruptState must be true or false');
  for (const k of ['stateDelayMs', 'stateItems']) if (o[k] !== undefined && !(Number.isInteger(o[k]) && (o[k] as number) >= 0)) throw new Error(`${k} must be a whole number ≥ 0`);
  if (o.seed !== undefined && !Number.isInteger(o.seed)) throw new Error('seed must be an integer');
  const peers = new Map<string, LinkFaults>();
  for (const [peer, faults] of Object.entries(object(o.peers ?? {}, 'peers'))) peers.set(peer === '*' ? '*' : peerOf(peer, 'peers'), linkFaults(faults, `peers["${peer}"]`));
  const partition = o.partition ?? [];
  if (!Array.isArray(partition) || !partition.every(Array.isArray)) throw new Error('partition must be a list of groups, each a list of peers');
  return { seed: (o.seed as number | undefined) ?? 0, peers, partition: partition.map((g: unknown[], i) => g.map((p, j) => peerOf(p, `partition[${i}][${j}]`))), corruptState: o.corruptState === true, stateDelayMs: (o.stateDelayMs as number | undefined) ?? 0, stateItems: (o.stateItems as number | undefined) ?? 0 };
}

/** The plan in force, and the random choices it asks for, for one node. */
export class FaultInjector {
  private plan: FaultPlan = NO_FAULTS;
  private random!: () => number;
  /** when the last message from each peer is handled: without reorder none is handled before it */
  private readonly lastDelivery = new Map<string, number>();

  constructor(private readonly selfId: string) {
    this.setPlan(NO_FAULTS);
  }

  setPlan(plan: FaultPlan): void {
    this.plan = plan;
    const self = sha256(new TextEncoder().encode(this.selfId));
    this.random = prng((plan.seed ^ new DataView(self.buffer).getInt32(0)) >>> 0);
    this.lastDelivery.clear();
  }

  /**
   * What becomes of one message from `peer`: the delays (ms from now) after which this node handles
   * it — none: dropped; two: the second is a duplicate.
   */
  inbound(peer: string, now = Date.now()): number[] {
    const f = this.plan.peers.get(peer) ?? this.plan.peers.get('*');
    if (f === undefined) return [0];
    if (f.drop > 0 && this.random() < f.drop) return [];
    const copies = f.duplicate > 0 && this.random() < f.duplicate ? 2 : 1;
    const delays: number[] = [];
    for (let i = 0; i < copies; i++) {
      const [min, max] = f.delayMs;
      let at = now + min + Math.round(this.random() * (max - min));
      if (!f.reorder) at = Math.max(at, this.lastDelivery.get(peer) ?? 0);
      this.lastDelivery.set(peer, Math.max(at, this.lastDelivery.get(peer) ?? 0));
      delays.push(at - now);
    }
    return delays;
  }

  /**
   * `validate` (a gossip topic validator) behind this node's faults: a dropped message gets
   * `dropped` at once, a delayed one waits, a duplicate is validated again later (only the first
   * answer reaches gossipsub, which relays on it).
   */
  guard<P extends { toString(): string }, M, R>(validate: (peer: P, msg: M) => Promise<R>, dropped: R): (peer: P, msg: M) => Promise<R> {
    return async (peer, msg) => {
      const [first, ...again] = this.inbound(peer.toString());
      if (first === undefined) return dropped;
      for (const ms of again) setTimeout(() => void validate(peer, msg).catch(() => undefined), ms).unref();
      if (first > 0) await new Promise((r) => setTimeout(r, first));
      return validate(peer, msg);
    };
  }

  /** How this node serves state: lying, slowly, in small answers. */
  stateServing(): { corrupt: boolean; delayMs: number; maxItems: number } {
    return { corrupt: this.plan.corruptState, delayMs: this.plan.stateDelayMs, maxItems: this.plan.stateItems };
  }

  /** Whether a partition puts `peer` beyond this node's reach (this node is in a group that does not name it). */
  separated(peer: string): boolean {
    const mine = this.plan.partition.find((g) => g.includes(this.selfId));
    return mine !== undefined && !mine.includes(peer);
  }
}

/**
 * Reads `file` now and whenever its text changes (polled): each good plan goes to `apply`; a file
 * that is missing or wrong keeps the plan in force and is logged once. Returns the stop function.
 */
export async function watchFaultFile(file: string, apply: (plan: FaultPlan) => void, log: Logger): Promise<() => void> {
  let last: string | undefined;
  const check = async () => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      text = `(unreadable: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
      if (text !== last) log.warn(`p2p faults: ${file} ${text}: no change to the faults in force`);
      last = text;
      return;
    }
    if (text === last) return;
    last = text;
    try {
      const plan = parseFaultPlan(text);
      apply(plan);
      log.warn(`p2p faults: ${file} in force: ${describe(plan)}`);
    } catch (e) {
      log.warn(`p2p faults: ${file} ignored: ${(e as Error).message}`);
    }
  };
  await check();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void check().finally(() => (busy = false));
  }, FAULT_FILE_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

function describe(plan: FaultPlan): string {
  const links = [...plan.peers].map(([peer, f]) => `${peer}: drop ${f.drop}, delay ${f.delayMs[0]}–${f.delayMs[1]} ms, duplicate ${f.duplicate}${f.reorder ? ', reorder' : ''}`);
  const groups = plan.partition.length > 0 ? [`partition ${plan.partition.map((g) => `[${g.join(' ')}]`).join(' | ')}`] : [];
  return [...links, ...groups, ...(plan.corruptState ? ['corrupt state answers'] : []), ...(plan.stateDelayMs || plan.stateItems ? [`state answers delayed ${plan.stateDelayMs} ms, at most ${plan.stateItems || 'any'} leaves`] : [])].join('; ') || 'none';
}
