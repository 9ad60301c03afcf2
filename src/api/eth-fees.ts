// eth_/chain_ fee methods (eth_feeHistory, eth_maxPriorityFeePerGas, eth_blobBaseFee) by geth's rules
// (eth/gasprice/feehistory.go) over a chain whose base fee is always 0 (D12).
import type { ApiContext } from './context.ts';
import type { Header } from '../chain/header.ts';
import type { FeeHistory } from '../../generated/types.ts';
import { quantity } from '../util/hex.ts';
import { EVM_BLOB_BASE_FEE, EVM_BLOCK_BASE_FEE } from '../exec/executor.ts';
import { blockNumberOf, type BlockParam } from './block-param.ts';
import { invalidParams, serverError } from './errors.ts';

/** geth's default of --rpc.feehistory.maxheaderhistory / maxblockhistory: a larger count is capped, not refused */
export const MAX_FEE_HISTORY_BLOCKS = 1024n;

/** Effective tips weighted by gas used, read at each percentile: geth's processBlock, zeros for an empty block. */
function rewardsOf(header: Header, tips: { tip: bigint; gasUsed: bigint }[], percentiles: number[]): string[] {
  if (tips.length === 0) return percentiles.map(() => '0x0');
  const sorted = [...tips].sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
  let i = 0;
  let sumGasUsed = sorted[0]!.gasUsed;
  return percentiles.map((p) => {
    // geth truncates the float threshold to whole gas; the same arithmetic keeps the same picks
    const threshold = BigInt(Math.floor((Number(header.gasUsed) * p) / 100));
    while (sumGasUsed < threshold && i < sorted.length - 1) sumGasUsed += sorted[++i]!.gasUsed;
    return quantity(sorted[i]!.tip);
  });
}

function checkPercentiles(percentiles: number[]): void {
  for (let i = 1; i < percentiles.length; i++) {
    if (percentiles[i]! <= percentiles[i - 1]!) {
      throw invalidParams(`invalid argument 2 (rewardPercentiles): must be strictly increasing, entry ${i} (${percentiles[i]}) is not above entry ${i - 1} (${percentiles[i - 1]})`);
    }
  }
}

export function feeHandlers({ core }: ApiContext) {
  const { chain } = core;
  return {
    // Base fee 0: a tip equal to the node's minimum gas price makes maxFeePerGas (= 2 × 0 + tip) pass admission.
    maxPriorityFeePerGas: () => quantity(core.minGasPrice - EVM_BLOCK_BASE_FEE),
    blobBaseFee: () => quantity(EVM_BLOB_BASE_FEE),

    feeHistory(blockCount: string | number, newestBlock: BlockParam, percentiles?: number[]): FeeHistory {
      if (percentiles) checkPercentiles(percentiles);
      const requested = BigInt(blockCount);
      const resolved = blockNumberOf(chain, newestBlock);
      // the pending block is the head's successor, whose base fee is the history's last entry anyway
      const newest = resolved === 'pending' ? chain.headNumber : resolved;
      if (newest > chain.headNumber) throw serverError(`request beyond head block: requested ${newest}, head ${chain.headNumber}`);
      const capped = requested > MAX_FEE_HISTORY_BLOCKS ? MAX_FEE_HISTORY_BLOCKS : requested;
      const count = Number(capped > newest + 1n ? newest + 1n : capped);
      if (count === 0) return { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [], baseFeePerBlobGas: [], blobGasUsedRatio: [] };

      const oldest = newest - BigInt(count) + 1n;
      const baseFeePerGas: string[] = [];
      const gasUsedRatio: number[] = [];
      const reward: string[][] = [];
      for (let n = oldest; n <= newest; n++) {
        const hash = chain.hashByNumber(n)!;
        const header = chain.headerByHash(hash)!;
        baseFeePerGas.push(quantity(header.baseFeePerGas));
        gasUsedRatio.push(Number(header.gasUsed) / Number(header.gasLimit));
        if (percentiles) {
          const tips = chain.receipts(hash)!.map((r) => ({ tip: r.effectiveGasPrice - header.baseFeePerGas, gasUsed: r.gasUsed }));
          reward.push(rewardsOf(header, tips, percentiles));
        }
      }
      // the next block's base fee: what the executor will give it
      baseFeePerGas.push(quantity(EVM_BLOCK_BASE_FEE));
      const blobBaseFee = quantity(EVM_BLOB_BASE_FEE);
      return {
        oldestBlock: quantity(oldest),
        baseFeePerGas,
        gasUsedRatio,
        baseFeePerBlobGas: Array.from({ length: count + 1 }, () => blobBaseFee),
        blobGasUsedRatio: gasUsedRatio.map(() => 0),
        ...(percentiles ? { reward } : {}),
      };
    },
  };
}
