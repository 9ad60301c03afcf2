// Transactions this node's proposer dropped for running past its time budget (--miner.txtimeout),
// by hash. Such a transaction may be free to send (gas price 0 where the minimum is 0), and each
// time it came back it cost the proposer one more budget of execution before being dropped again:
// admission refuses it for a while instead. Bounded: the oldest are forgotten first.
export class OverBudgetDrops {
  /** hash → when it was dropped (Date.now()), oldest first */
  private readonly droppedAt = new Map<string, number>();

  constructor(
    private readonly budgetMs: number,
    private readonly maxEntries = 4096,
    private readonly forgetAfterMs = 3_600_000,
  ) {}

  remember(hashHex: string): void {
    this.droppedAt.delete(hashHex);
    this.droppedAt.set(hashHex, Date.now());
    if (this.droppedAt.size > this.maxEntries) this.droppedAt.delete(this.droppedAt.keys().next().value!);
  }

  /** Why admission refuses `hashHex`; undefined when it was not dropped lately. */
  refusal(hashHex: string): string | undefined {
    const at = this.droppedAt.get(hashHex);
    if (at === undefined) return undefined;
    if (Date.now() - at > this.forgetAfterMs) {
      this.droppedAt.delete(hashHex);
      return undefined;
    }
    return `transaction ${hashHex} was dropped for exceeding the proposer's time budget of ${this.budgetMs} ms (--miner.txtimeout)`;
  }
}
