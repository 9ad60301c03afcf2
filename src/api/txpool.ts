// txpool_ and the pool views of eth_/chain_ (pendingTransactions, pendingTransactionsLength, resend).
import type { ApiContext } from './context.ts';
import type { PooledTx } from '../tx/pooled-tx.ts';
import type { Transaction } from '../../generated/types.ts';
import { formatTx, NOT_IN_BLOCK } from './format.ts';
import { bytesToHex, quantity, ZERO_HASH } from '../util/hex.ts';
import { serverError } from './errors.ts';
import { txSender, type SendObject } from './eth-submit.ts';

/** Pool listings carry the 32-byte zero hash as blockHash and null number/index (the spec). */
function poolTx(p: PooledTx, ctx: ApiContext): Transaction {
  return { ...formatTx(p.raw, p.sender, NOT_IN_BLOCK, ctx.core.common, p.hash), blockHash: ZERO_HASH };
}

/** geth's txpool_inspect line: "<to>: <value> wei + <gas> gas × <gasPrice> wei". */
export function inspectSummary(p: PooledTx): string {
  const to = p.tx.to ? p.tx.to.toString() : 'contract creation';
  return `${to}: ${p.tx.value} wei + ${p.gasLimit} gas × ${p.gasPrice} wei`;
}

/** nonce (decimal string) → f(tx), in nonce order. */
function byNonce<T>(txs: readonly PooledTx[], f: (p: PooledTx) => T): Record<string, T> {
  const out: Record<string, T> = {};
  for (const p of txs) out[p.nonce.toString()] = f(p);
  return out;
}

/** sender → nonce (decimal string) → f(tx); senders' transactions come in nonce order. */
function bySenderAndNonce<T>(m: Map<string, PooledTx[]>, f: (p: PooledTx) => T): Record<string, Record<string, T>> {
  const out: Record<string, Record<string, T>> = {};
  for (const [sender, txs] of m) out[sender] = byNonce(txs, f);
  return out;
}

export function txpoolHandlers(ctx: ApiContext) {
  const { pool } = ctx.core;
  return {
    content() {
      const { pending, queued } = pool.listing();
      const f = (p: PooledTx) => poolTx(p, ctx);
      return { pending: bySenderAndNonce(pending, f), queued: bySenderAndNonce(queued, f) };
    },
    /** geth's shape, blockHash null as execution-apis has it (txpool_content keeps Venachain's zero hash) */
    contentFrom(address: string) {
      const { pending, queued } = pool.listingOf(address.toLowerCase());
      const f = (p: PooledTx): Transaction => ({ ...poolTx(p, ctx), blockHash: null });
      return { pending: byNonce(pending, f), queued: byNonce(queued, f) };
    },
    inspect() {
      const { pending, queued } = pool.listing();
      return { pending: bySenderAndNonce(pending, inspectSummary), queued: bySenderAndNonce(queued, inspectSummary) };
    },
    status: () => ({ pending: quantity(pool.pendingCount), queued: quantity(pool.queuedCount) }),
  };
}

type ResendObject = SendObject & { nonce?: string | null };

/** Does the pooled transaction carry every field the caller gave? */
function matches(p: PooledTx, o: ResendObject): boolean {
  if (o.nonce != null && BigInt(o.nonce) !== p.nonce) return false;
  if (o.to !== undefined && (o.to === null ? p.tx.to !== undefined : p.tx.to?.toString() !== o.to.toLowerCase())) return false;
  if (o.gas != null && BigInt(o.gas) !== p.gasLimit) return false;
  if (o.gasPrice != null && BigInt(o.gasPrice) !== p.gasPrice) return false;
  if (o.value != null && BigInt(o.value) !== p.tx.value) return false;
  const input = o.input ?? o.data;
  if (input != null && input.toLowerCase() !== bytesToHex(p.tx.data)) return false;
  return true;
}

export function poolViewHandlers(ctx: ApiContext) {
  const { core } = ctx;
  const { sendAs } = txSender(ctx);
  return {
    async pendingTransactions() {
      const mine = new Set(await core.accounts.accounts());
      const out: Transaction[] = [];
      for (const [sender, txs] of core.pool.listing().pending) {
        if (mine.has(sender)) for (const p of txs) out.push(poolTx(p, ctx));
      }
      return out;
    },
    pendingTransactionsLength: () => core.pool.pendingCount,

    /**
     * geth's resend: the pool transaction matching the given fields is signed again by its sender
     * (an account the node signs for, unlocked) with the new gas price and limit and submitted;
     * the pool's replacement rule (--txpool.pricebump) lets it take the old one's place.
     */
    async resend(tx: ResendObject, gasPrice?: string | null, gasLimit?: string | null) {
      const from = tx.from.toLowerCase();
      const found = core.pool.ofSender(from).filter((p) => matches(p, tx));
      const which = `from ${tx.from}${tx.nonce != null ? ` with nonce ${BigInt(tx.nonce)}` : ''}`;
      if (found.length === 0) throw serverError(`transaction not found: no pool transaction ${which} matches the given fields`);
      if (found.length > 1) throw serverError(`several pool transactions ${which} match the given fields (nonces ${found.map((p) => p.nonce).join(', ')}): give the nonce`);
      const old = found[0]!;
      return sendAs({
        from,
        to: old.tx.to?.toString() ?? null,
        nonce: quantity(old.nonce),
        value: quantity(old.tx.value),
        input: bytesToHex(old.tx.data),
        gasPrice: gasPrice != null && BigInt(gasPrice) !== 0n ? gasPrice : quantity(old.gasPrice),
        gas: gasLimit != null && BigInt(gasLimit) !== 0n ? gasLimit : quantity(old.gasLimit),
      });
    },
  };
}
