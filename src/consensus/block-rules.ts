// What governs the block built on a parent: its validator set and the chain parameters in force.
// Both come from the state after the parent (the system contracts: NodeManagement for the set,
// ParameterManagement for the parameters), so every node derives the same rules for the same block.
import type { HeadInfo } from '../chain/chain.ts';

export interface BlockRules {
  /** the block's validator set, as its istanbul extra carries it (byte-sorted addresses) */
  validators: Uint8Array[];
  /** most gas one transaction may carry (TxGasLimit) */
  txGasLimit: bigint;
  /** the block's gas limit (BlockGasLimit) */
  gasLimit: bigint;
  /** most gas the block may use (the gas pool's size when below gasLimit, S13) */
  gasBound: bigint;
  /** whether a block without transactions is sealed (IsProduceEmptyBlock, or --seal.empty) */
  produceEmpty: boolean;
}

/** The rules of the block on top of `parent`. */
export type BlockRulesSource = (parent: HeadInfo) => Promise<BlockRules>;
