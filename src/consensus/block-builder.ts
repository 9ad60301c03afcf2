// Building a block this node proposes, the same way for the single-validator sealer and the iris
// engine: the pool's transactions executed on the parent, the istanbul extra naming the set, the
// proposer seal; and putting the committed seals into a decided block's extra.
import type { HeadInfo } from '../chain/chain.ts';
import { headerHash, headerSigHash, type Header } from '../chain/header.ts';
import type { BlockExecutor, ExecutedBlock, ExecutionBudget } from '../exec/executor.ts';
import type { PooledTx } from '../tx/pooled-tx.ts';
import type { NodeKey } from '../crypto/node-key.ts';
import { decodeExtra, encodeExtra } from '../chain/istanbul-extra.ts';
import { seal65 } from './seals.ts';
import type { BlockRules } from './block-rules.ts';

/** The header with these committed seals in its extra (its hash does not change: committed seals are not hashed). */
export function withCommittedSeals(header: Header, seals: Uint8Array[]): Header {
  return { ...header, extraData: encodeExtra({ ...decodeExtra(header.extraData), committedSeals: seals }) };
}

/**
 * Most bytes of transactions a proposed block holds: the gas limit (2^48) bounds nothing, and a
 * block over the 10 MiB frame (MAX_BLOCK_FRAME) could not reach the other nodes (S30).
 */
export const BLOCK_TX_BYTES = 8 * 1024 * 1024;

/** The transactions that fit in `budget` bytes; a sender whose transaction does not fit stops there (its later nonces need it). */
export function* withinBytes(txs: Iterable<PooledTx>, budget = BLOCK_TX_BYTES): Generator<PooledTx> {
  const stopped = new Set<string>();
  let used = 0;
  for (const ptx of txs) {
    if (stopped.has(ptx.senderHex)) continue;
    if (used + ptx.raw.length > budget) {
      stopped.add(ptx.senderHex);
      continue;
    }
    used += ptx.raw.length;
    yield ptx;
  }
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
 * and set, the proposer seal. `budget`: --miner.txtimeout per transaction and --miner.buildtime
 * for the block, past which the block is sealed with what ran (S13). The caller decides whether an
 * empty result is worth a block.
 */
export async function buildBlock(executor: BlockExecutor, parent: HeadInfo, rules: BlockRules, txs: Iterable<PooledTx>, key: NodeKey, period: number, budget: Pick<ExecutionBudget, 'txMs' | 'buildMs'>): Promise<BuiltBlock> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  // a period under a second (a dev chain's) puts several blocks in one second, as period 0 does
  const timestamp = now > parent.header.timestamp ? now : parent.header.timestamp + (period >= 1 ? 1n : 0n);
  const vanity = decodeExtra(parent.header.extraData).vanity;
  const unsealedExtra = encodeExtra({ vanity, validators: rules.validators, seal: new Uint8Array(0), committedSeals: [] });
  const built = await executor.execute(
    { parent: parent.header, parentHash: parent.hash, timestamp, coinbase: key.address, gasLimit: rules.gasLimit, gasBound: rules.gasBound, extraData: unsealedExtra, txGasLimit: rules.txGasLimit },
    withinBytes(txs),
    budget,
  );
  const header: Header = { ...built.header };
  const seal = seal65(headerSigHash(header), key.privateKey);
  header.extraData = encodeExtra({ vanity, validators: rules.validators, seal, committedSeals: [] });
  return { header, hash: headerHash(header), built };
}
