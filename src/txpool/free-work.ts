// Work nobody pays for (S14). Where gas is free (gas price 0) a transaction costs its sender nothing
// whatever it runs, and a fresh key costs nothing either: forty endless loops from forty fresh keys
// held every proposer for seconds per block. geth and Besu refuse such work by price (geth's
// --txpool.pricelimit 1 wei, Besu's --min-gas-price); a chain that keeps gas free bounds it instead:
//   - a remote transaction is *unpaid* when it pays no gas price and its sender could not pay its
//     gas even at 1 wei a unit (balance < gas limit): unpaid gas in the pool is bounded per sender
//     (one block gas bound) and in total (UNPAID_BLOCKS bounds), so the pool holds at most a few
//     blocks of it, and the proposer's build time bounds what each block spends on it;
//   - a sender whose work went unpaid — dropped for running past the proposer's budget, or
//     included having failed with all its gas spent at price 0 — is refused for COOLDOWN_MS (a loop
//     re-signed as a new transaction no longer costs one more budget each time).
// Transactions this node signed (locals) are exempt, as geth exempts them from its price limit.
import type { PooledTx } from '../tx/pooled-tx.ts';
import { TxRejected } from './admission.ts';

/** unpaid gas the pool holds in all, in block gas bounds: a few blocks of work, then refusals */
export const UNPAID_BLOCKS = 4n;
/** how long a sender whose work went unpaid is refused */
export const COOLDOWN_MS = 10 * 60_000;
/** senders remembered at most (the oldest are forgotten first) */
const MAX_COOLING = 16_384;

/** What a receipt says of a transaction's end. */
export interface Outcome {
  status: number;
  gasUsed: bigint;
}

export class FreeWork {
  /** pooled unpaid transactions: hash → sender and gas */
  private readonly pooled = new Map<string, { sender: string; gas: bigint }>();
  private readonly bySender = new Map<string, bigint>();
  private total = 0n;
  /** sender → until when it is refused (Date.now() ms), oldest first */
  private readonly cooling = new Map<string, { until: number; why: string }>();

  constructor(
    /** the chain's block gas bound */
    private readonly blockGasBound: bigint,
    /** whether the pool still holds a transaction (what left it is forgotten here lazily) */
    private readonly inPool: (hashHex: string) => boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /** Unpaid gas held now (after forgetting what left the pool). */
  get unpaidGas(): bigint {
    this.prune();
    return this.total;
  }

  /**
   * Throws TxRejected when a remote transaction may not enter the pool: its sender is cooling
   * down, or it is unpaid (`balance`: its sender's at the head) beyond the sender's or the pool's
   * bound. Call `admitted` once the pool took it.
   */
  check(ptx: PooledTx, balance: bigint, local: boolean): boolean {
    if (local) return false;
    const cool = this.cooling.get(ptx.senderHex);
    if (cool !== undefined) {
      if (this.now() < cool.until) throw new TxRejected(`sender ${ptx.senderHex} is refused for ${Math.ceil((cool.until - this.now()) / 1000)} s more: ${cool.why}`);
      this.cooling.delete(ptx.senderHex);
    }
    if (!isUnpaid(ptx, balance)) return false;
    const perSender = () => this.bySender.get(ptx.senderHex) ?? 0n;
    const cap = this.blockGasBound * UNPAID_BLOCKS;
    if (perSender() + ptx.gasLimit > this.blockGasBound || this.total + ptx.gasLimit > cap) this.prune();
    if (perSender() + ptx.gasLimit > this.blockGasBound) {
      throw new TxRejected(`txpool is full for unpaid work from ${ptx.senderHex}: it holds ${perSender()} gas at gas price 0 with a balance that cannot pay it, the limit per sender is the block gas bound ${this.blockGasBound}; retry after its transactions are mined, or pay a gas price`);
    }
    if (this.total + ptx.gasLimit > cap) {
      throw new TxRejected(`txpool is full for unpaid work: ${this.total} gas pooled at gas price 0 from senders whose balance cannot pay it (limit ${cap}, ${UNPAID_BLOCKS} block gas bounds); retry later, or pay a gas price`);
    }
    return true;
  }

  /** The pool took `ptx`, which `check` found unpaid. */
  admitted(ptx: PooledTx): void {
    if (this.pooled.has(ptx.hashHex)) return;
    this.pooled.set(ptx.hashHex, { sender: ptx.senderHex, gas: ptx.gasLimit });
    this.bySender.set(ptx.senderHex, (this.bySender.get(ptx.senderHex) ?? 0n) + ptx.gasLimit);
    this.total += ptx.gasLimit;
  }

  /** Refuses the sender's transactions for COOLDOWN_MS. */
  coolDown(senderHex: string, why: string): void {
    this.cooling.delete(senderHex);
    this.cooling.set(senderHex, { until: this.now() + COOLDOWN_MS, why });
    if (this.cooling.size > MAX_COOLING) this.cooling.delete(this.cooling.keys().next().value!);
  }

  /**
   * A committed block (its transaction hashes and receipts): the sender of an unpaid transaction
   * that failed with all its gas spent (out of gas, an invalid opcode: how an endless loop ends)
   * cools down.
   */
  blockOutcomes(hashes: readonly string[], receipts: readonly Outcome[]): void {
    if (this.pooled.size === 0) return;
    hashes.forEach((hash, i) => {
      const unpaid = this.pooled.get(hash);
      const r = receipts[i];
      if (unpaid && r && r.status === 0 && r.gasUsed >= unpaid.gas) this.coolDown(unpaid.sender, `its transaction ${hash} failed unpaid (gas price 0, a balance below its gas) having spent all its ${unpaid.gas} gas`);
    });
  }

  /** Forgets what left the pool (mined, dropped, replaced). */
  private prune(): void {
    for (const [hash, { sender, gas }] of this.pooled) {
      if (this.inPool(hash)) continue;
      this.pooled.delete(hash);
      this.total -= gas;
      const left = (this.bySender.get(sender) ?? 0n) - gas;
      if (left > 0n) this.bySender.set(sender, left);
      else this.bySender.delete(sender);
    }
  }
}

/** Pays no gas price and its sender could not pay its gas even at 1 wei a unit. */
export function isUnpaid(ptx: PooledTx, balance: bigint): boolean {
  // the effective price with a base fee of 0: min(tip, fee cap)
  const price = ptx.tipCap < ptx.gasPrice ? ptx.tipCap : ptx.gasPrice;
  return price === 0n && balance < ptx.gasLimit;
}
