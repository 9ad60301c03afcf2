// txpool_ and the pool views of eth_/chain_ (pendingTransactions, pendingTransactionsLength, resend).
import type { ApiContext } from './context.ts';
import type { PooledTx } from '../txpool/pooled-tx.ts';
import type { Transaction } from '../../generated/types.ts';
import { formatTx, NOT_IN_BLOCK } from './format.ts';
import { ZERO_HASH } from '../util/hex.ts';
import { serverError } from './errors.ts';
import { submitHandlers, type SendObject } from './eth-submit.ts';

export function txpoolHandlers({ core }: ApiContext) {
  /** Pool listings carry the 32-byte zero hash as blockHash and null number/index (spec). */
  const poolTx = (p: PooledTx) => ({ ...formatTx(p.raw, p.sender, NOT_IN_BLOCK, core.common, p.hash), blockHash: ZERO_HASH });
  const group = <T>(m: Map<string, PooledTx[]>, f: (p: PooledTx) => T) => {
    const out: Record<string, Record<string, T>> = {};
    for (const [sender, txs] of m) {
      const byNonce: Record<string, T> = {};
      for (const p of txs) byNonce[p.nonce.toString()] = f(p);
      out[sender] = byNonce;
    }
    return out;
  };
  const summary = (p: PooledTx) => `${p.tx.to ? p.tx.to.toString() : 'contract creation'}: ${p.tx.value} wei + ${p.gasLimit} gas × ${p.gasPrice} wei`;
  return {
    content() {
      const { pending, queued } = core.pool.listing();
      return { pending: group(pending, poolTx), queued: group(queued, poolTx) };
    },
    inspect() {
      const { pending, queued } = core.pool.listing();
      return { pending: group(pending, summary), queued: group(queued, summary) };
    },
    status: () => ({ pending: '0x' + core.pool.pendingCount.toString(16), queued: '0x' + core.pool.queuedCount.toString(16) }),
  };
}

export function poolViewHandlers(ctx: ApiContext) {
  const { core } = ctx;
  const submit = submitHandlers(ctx);
  return {
    pendingTransactions() {
      const mine = new Set(core.keystore.accounts());
      const out: Transaction[] = [];
      for (const [sender, txs] of core.pool.listing().pending) {
        if (!mine.has(sender)) continue;
        for (const p of txs) out.push(formatTx(p.raw, p.sender, NOT_IN_BLOCK, core.common, p.hash));
      }
      return out;
    },
    pendingTransactionsLength: () => core.pool.pendingCount,
    async resend(tx: SendObject & { nonce?: string | null }, gasPrice?: string | null, gasLimit?: string | null) {
      const from = tx.from.toLowerCase();
      const { pending, queued } = core.pool.listing();
      const candidates = [...(pending.get(from) ?? []), ...(queued.get(from) ?? [])];
      const match = candidates.find((p) => tx.nonce == null || p.nonce === BigInt(tx.nonce));
      if (!match) throw serverError(`transaction from ${tx.from}${tx.nonce != null ? ` with nonce ${BigInt(tx.nonce)}` : ''} not found in the pool`);
      void gasPrice;
      void gasLimit;
      throw serverError('resend needs transaction replacement, which the pool does not support yet');
    },
  };
}
