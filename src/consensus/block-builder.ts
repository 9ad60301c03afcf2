// Building a block this node proposes, the same way for the single-validator sealer and the iris
// engine: the pool's transactions executed on the parent, the istanbul extra naming the set, the
// proposer seal; and putting the committed seals into a decided block's extra.
import type { HeadInfo } from '../chain/chain.ts';
import { headerHash, headerSigHash, type Header } from '../chain/header.ts';
import type { BlockExecutor, ExecutedBlock } from '../exec/executor.ts';
import type { PooledTx } from '../tx/pooled-tx.ts';
import type { NodeKey } from '../crypto/node-key.ts';
import { decodeExtra, encodeExtra } from '../chain/istanbul-extra.ts';
import { seal65 } from './seals.ts';
import type { BlockRules } from './block-rules.ts';

/** The header with these committed seals in its extra (its hash does not change: committed seals are not hashed). */
export function withCommittedSeals(header: Header, seals: Uint8Array[]): Header {
  return { ...header, extraData: encodeExtra({ ...decodeExtra(header.extraData), committedSeals: seals }) };
}

export interface BuiltBlock {
  /** proposer-sealed, no committed seals */
  header: Header;
  hash: Uint8Array;
  built: ExecutedBlock;
}

/**
 * Executes `txs` on `parent` (the executor's state) into a block proposed by `key`: timestamp now
 * (at least the parent's, one second past it when blocks come by the clock), the rules' gas limits
 * and set, the proposer seal. The caller decides whether an empty result is worth a block.
 */
export async function buildBlock(executor: BlockExecutor, parent: HeadInfo, rules: BlockRules, txs: Iterable<PooledTx>, key: NodeKey, period: number, txBudgetMs: number): Promise<BuiltBlock> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const timestamp = now > parent.header.timestamp ? now : parent.header.timestamp + (period > 0 ? 1n : 0n);
  const vanity = decodeExtra(parent.header.extraData).vanity;
  const unsealedExtra = encodeExtra({ vanity, validators: rules.validators, seal: new Uint8Array(0), committedSeals: [] });
  const built = await executor.execute(
    { parent: parent.header, parentHash: parent.hash, timestamp, coinbase: key.address, gasLimit: rules.gasLimit, extraData: unsealedExtra, txGasLimit: rules.txGasLimit },
    txs,
    txBudgetMs,
  );
  const header: Header = { ...built.header };
  const seal = seal65(headerSigHash(header), key.privateKey);
  header.extraData = encodeExtra({ vanity, validators: rules.validators, seal, committedSeals: [] });
  return { header, hash: headerHash(header), built };
}
