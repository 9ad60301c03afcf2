// The chain parameters in force after a block: ParameterManagement's values at the block's state
// root, each with the default this node applies while it was never set. They rule the block built
// on that block (BlockRules) and what the node admits and estimates meanwhile. Deploy permission is
// not here: a creation reads it inside the EVM, at the state it runs on (src/exec/engine-evm.ts).
import type { HeadInfo } from '../chain/chain.ts';
import type { StateReader, StateView } from '../state/reader.ts';
import { PARAM_KEYS, PARAMETER_MANAGEMENT, systemStateAt, systemStorageRoot } from '../exec/native/system-state.ts';


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
  /** the values last read, by ParameterManagement's storage root */
  private lastRead?: { storageRoot: string; params: ChainParams };

  constructor(
    private readonly state: StateReader,
    /** the genesis' config.txGasLimit: ChainConfig's documented place for what TxGasLimit now governs */
    private readonly genesisTxGasLimit: bigint,
  ) {}

  /** `block` is compared by identity: Chain hands out one HeadInfo per head. `view`: the state after it, when the caller has one. */
  after(block: HeadInfo, view: StateView = this.state.at(block.header.stateRoot)): Promise<ChainParams> {
    if (this.last?.block !== block) {
      const params = this.read(view).catch((e: unknown) => {
        // a failed read (e.g. a missing trie node) is not remembered
        if (this.last?.params === params) this.last = undefined;
        throw e;
      });
      this.last = { block, params };
    }
    return this.last.params;
  }

  private async read(view: StateView): Promise<ChainParams> {
    // the values move only with ParameterManagement's storage root: a block that did not write it
    // (nearly all) has its parent's, read with one account instead of three slots (an imported
    // block's rules, and the sealer's, ask for every block)
    const storageRoot = await systemStorageRoot(view, PARAMETER_MANAGEMENT);
    if (this.lastRead?.storageRoot === storageRoot) return this.lastRead.params;
    const { params } = systemStateAt(view);
    const [txGasLimit, blockGasLimit, produceEmpty] = await Promise.all([
      params.getInt(PARAM_KEYS.txGasLimit),
      params.getInt(PARAM_KEYS.blockGasLimit),
      params.getInt(PARAM_KEYS.isProduceEmptyBlock),
    ]);
    const read = { txGasLimit: txGasLimit ?? this.genesisTxGasLimit, blockGasLimit, produceEmpty: produceEmpty === 1n };
    this.lastRead = { storageRoot, params: read };
    return read;
  }
}
