// What each peer did wrong, and who is refused for a while because of it. A fault (a malformed
// frame, an invalid transaction or block, a head claimed and not served) costs a point; a peer
// reaching FAULT_LIMIT points, or one refused outright (another chain in the handshake), is banned:
// disconnected, and refused in both directions until the ban ends. Points fade with the ban window,
// so a rare fault is forgiven.
//
// Waste (N10): messages that are well formed but of no use — a block this node has, a consensus
// message for a view gone by or one the engine already holds, the same message twice from one peer —
// cost a token of the peer's budget. Honest peers send some (a proposer's block reaches validators
// that decided it themselves; the last COMMIT of a height arrives after the quorum), about one or
// two a block each, so the budget refills with every new head and with time; a peer that runs it
// dry is sending far more than any honest one, and each time it does it gets a fault.

export const FAULT_LIMIT = 3;
export const BAN_MS = 60_000;
/** Waste a peer may send at once: a fault each time it runs past it. */
export const WASTE_BUDGET = 32;
/** Tokens back per new head (a height's honest waste is a few) … */
export const WASTE_PER_HEAD = 16;
/** … and per second (round changes of a chain that makes no block). */
export const WASTE_PER_SECOND = 8;

interface Bucket {
  tokens: number;
  at: number;
}

export class PeerFaults {
  private readonly points = new Map<string, { count: number; since: number }>();
  private readonly bans = new Map<string, number>();
  private readonly waste = new Map<string, Bucket>();

  /** `onBan`: the host disconnects the peer. */
  constructor(private readonly onBan: (peerId: string, reason: string) => void) {}

  /** Counts a fault; bans the peer at the limit. */
  fault(peerId: string, reason: string): void {
    const now = Date.now();
    const p = this.points.get(peerId);
    const entry = p && now - p.since < BAN_MS ? p : { count: 0, since: now };
    entry.count++;
    this.points.set(peerId, entry);
    if (entry.count >= FAULT_LIMIT) this.ban(peerId, `${entry.count} faults, the last: ${reason}`);
  }

  /** Charges `cost` tokens of waste; a peer whose budget runs dry gets a fault (and a full budget again). Returns whether it did. */
  wasted(peerId: string, what: string, cost = 1): boolean {
    const now = Date.now();
    const b = this.waste.get(peerId) ?? { tokens: WASTE_BUDGET, at: now };
    b.tokens = Math.min(WASTE_BUDGET, b.tokens + ((now - b.at) / 1000) * WASTE_PER_SECOND) - cost;
    b.at = now;
    this.waste.set(peerId, b);
    if (b.tokens >= 0) return false;
    b.tokens = WASTE_BUDGET;
    this.fault(peerId, `more than ${WASTE_BUDGET} messages of no use at once, the last: ${what}`);
    return true;
  }

  /** A new head: every peer's budget grows (a full one is forgotten). */
  newHead(): void {
    for (const [id, b] of this.waste) {
      b.tokens += WASTE_PER_HEAD;
      if (b.tokens >= WASTE_BUDGET) this.waste.delete(id);
    }
  }

  ban(peerId: string, reason: string): void {
    this.points.delete(peerId);
    this.waste.delete(peerId);
    this.bans.set(peerId, Date.now() + BAN_MS);
    this.onBan(peerId, reason);
  }

  banned(peerId: string): boolean {
    const until = this.bans.get(peerId);
    if (until === undefined) return false;
    if (Date.now() < until) return true;
    this.bans.delete(peerId);
    return false;
  }
}
