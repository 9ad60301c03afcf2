// The chain parameters in force after a block: ParameterManagement's values at the block's state
// root, each with the default this node applies while it was never set. They rule the block built
// on that block (BlockRules) and what the node admits and estimates meanwhile. Deploy permission is
// not here: a creation reads it inside the EVM, at the state it runs on (src/exec/engine-evm.ts).
import type { HeadInfo } from '../chain/chain.ts';
import type { StateReader } from '../state/reader.ts';
import { PARAM_KEYS, systemStateAt } from '../exec/native/system-state.ts';

export interface ChainParams {
  /** most gas one transaction may carry: TxGasLimit, else the genesis' config.txGasLimit */
  txGasLimit: bigint;
  /** the gas limit of the blocks this node seals: BlockGasLimit; undefined = never set (the parent's gas limit carries on) */
  blockGasLimit: bigint | undefined;
  /** IsProduceEmptyBlock = 1: blocks without transactions are sealed */
  produceEmpty: boolean;
}

/** The parameters after `block`, remembered for the last block asked (the head, on every admission). */
export class ChainParamsReader {
  private last?: { block: HeadInfo; params: Promise<ChainParams> };

  constructor(
    private readonly state: StateReader,
    /** the genesis' config.txGasLimit: ChainConfig's documented place for what TxGasLimit now governs */
    private readonly genesisTxGasLimit: bigint,
  ) {}

  /** `block` is compared by identity: Chain hands out one HeadInfo per head. */
  after(block: HeadInfo): Promise<ChainParams> {
    if (this.last?.block !== block) {
      const params = this.read(block).catch((e: unknown) => {
        // a failed read (e.g. a missing trie node) is not remembered
        if (this.last?.params === params) this.last = undefined;
        throw e;
      });
      this.last = { block, params };
    }
    return this.last.params;
  }

  private async read(block: HeadInfo): Promise<ChainParams> {
    const { params } = systemStateAt(this.state.at(block.header.stateRoot));
    const [txGasLimit, blockGasLimit, produceEmpty] = await Promise.all([
      params.getInt(PARAM_KEYS.txGasLimit),
      params.getInt(PARAM_KEYS.blockGasLimit),
      params.getInt(PARAM_KEYS.isProduceEmptyBlock),
    ]);
    return { txGasLimit: txGasLimit ?? this.genesisTxGasLimit, blockGasLimit, produceEmpty: produceEmpty === 1n };
  }
}
