// Transactions this node's proposer dropped for running past its time budget (--miner.txtimeout,
// --miner.buildtime), by hash. Such a transaction may be free to send (gas price 0 where the minimum is 0), and each
// time it came back it cost the proposer one more budget of execution before being dropped again:
// admission refuses it for a while instead. Bounded: the oldest are forgotten first.

/** hashes held (~0.5 MB at most): thousands of budgets, each of seconds, spent before one is forgotten */
const MAX_ENTRIES = 4096;
/** how long a dropped transaction stays refused */
const FORGET_AFTER_MS = 3_600_000;

export class OverBudgetDrops {
  /** hash → when it was dropped (Date.now()) and why, oldest first */
  private readonly droppedAt = new Map<string, { at: number; reason: string }>();

  remember(hashHex: string, reason: string): void {
    this.droppedAt.delete(hashHex);
    this.droppedAt.set(hashHex, { at: Date.now(), reason });
    if (this.droppedAt.size > MAX_ENTRIES) this.droppedAt.delete(this.droppedAt.keys().next().value!);
  }

  /** Why admission refuses `hashHex`; undefined when it was not dropped lately. */
  refusal(hashHex: string): string | undefined {
    const dropped = this.droppedAt.get(hashHex);
    if (dropped === undefined) return undefined;
    if (Date.now() - dropped.at > FORGET_AFTER_MS) {
      this.droppedAt.delete(hashHex);
      return undefined;
    }
    return `transaction ${hashHex} was dropped: ${dropped.reason}`;
  }
}
