// What each peer did wrong, and who is refused for a while because of it. A fault (a malformed
// frame, an invalid transaction or block) costs a point; a peer reaching FAULT_LIMIT points, or
// one refused outright (another chain in the handshake), is banned: disconnected, and refused in
// both directions until the ban ends. Points fade with the ban window, so a rare fault is forgiven.

export const FAULT_LIMIT = 3;
export const BAN_MS = 60_000;

export class PeerFaults {
  private readonly points = new Map<string, { count: number; since: number }>();
  private readonly bans = new Map<string, number>();

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

  ban(peerId: string, reason: string): void {
    this.points.delete(peerId);
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
