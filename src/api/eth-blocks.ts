// eth_/chain_ blocks, transactions and receipts by number, hash and index. Unknown → null (spec).
// Uncles: istanbul blocks have none, so a known block counts 0 and every uncle is null (as geth
// answers for a block without uncles).
import type { ApiContext } from './context.ts';
import type { BlockRecord } from '../chain/types.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { bytesToHex, hexToBytes, quantity } from '../util/hex.ts';
import { blockNumberOf, blockRefOf, type BlockParam, type BlockRef } from './block-param.ts';
import { formatBlock, formatPendingBlock, formatReceipt, formatTx, NOT_IN_BLOCK } from './format.ts';

export function blockHandlers({ core }: ApiContext) {
  const { chain, common } = core;

  const byNumber = (p: BlockParam): BlockRecord | undefined => {
    const n = blockNumberOf(chain, p);
    if (n === 'pending') return undefined;
    const hash = chain.hashByNumber(n);
    return hash && chain.block(hash);
  };
  const byHash = (hash: string): BlockRecord | undefined => chain.block(hexToBytes(hash));
  /** The receipts of a block in order, as eth_getTransactionReceipt formats each. */
  const blockReceipts = (b: BlockRecord) => {
    let firstLog = 0;
    return chain.receipts(b.hash)!.map((r, i) => {
      const receipt = formatReceipt(r, keccak256(b.txs[i]!), b.hash, b.header.number, i, firstLog);
      firstLog += r.logs.length;
      return receipt;
    });
  };
  const txAt = (b: BlockRecord | undefined, index: string) => {
    const i = Number(BigInt(index));
    if (!b || i >= b.txs.length) return null;
    return formatTx(b.txs[i]!, b.senders[i]!, { blockHash: b.hash, blockNumber: b.header.number, blockTimestamp: b.header.timestamp, index: i }, common);
  };
  const rawAt = (b: BlockRecord | undefined, index: string) => {
    const i = Number(BigInt(index));
    return b && i < b.txs.length ? bytesToHex(b.txs[i]!) : null;
  };
  const pendingBlock = () => {
    const head = chain.head;
    const now = BigInt(Math.floor(Date.now() / 1000));
    return formatPendingBlock(head.hash, head.header, now > head.header.timestamp ? now : head.header.timestamp, core.nodeKey.address);
  };

  return {
    getBlockByNumber(block: BlockParam, full: boolean) {
      if (blockNumberOf(chain, block) === 'pending') return pendingBlock();
      const b = byNumber(block);
      return b ? formatBlock(b, full === true, common) : null;
    },
    getBlockByHash(hash: string, full: boolean) {
      const b = byHash(hash);
      return b ? formatBlock(b, full === true, common) : null;
    },
    getBlockTransactionCountByNumber(block: BlockParam) {
      if (blockNumberOf(chain, block) === 'pending') return quantity(core.pool.pendingCount);
      const b = byNumber(block);
      return b ? quantity(b.txs.length) : null;
    },
    getBlockTransactionCountByHash(hash: string) {
      const b = byHash(hash);
      return b ? quantity(b.txs.length) : null;
    },
    getBlockReceipts(block: BlockRef) {
      const ref = blockRefOf(block);
      // the pending block carries no transactions (formatPendingBlock)
      if ('number' in ref && blockNumberOf(chain, ref.number) === 'pending') return [];
      const b = 'hash' in ref ? chain.block(ref.hash) : byNumber(ref.number);
      return b ? blockReceipts(b) : null;
    },
    getUncleCountByBlockNumber(block: BlockParam) {
      const n = blockNumberOf(chain, block);
      return n === 'pending' || chain.hashByNumber(n) ? '0x0' : null;
    },
    getUncleCountByBlockHash: (hash: string) => (chain.headerByHash(hexToBytes(hash)) ? '0x0' : null),
    getUncleByBlockNumberAndIndex: () => null,
    getUncleByBlockHashAndIndex: () => null,

    getTransactionByBlockNumberAndIndex: (block: BlockParam, index: string) => txAt(byNumber(block), index),
    getTransactionByBlockHashAndIndex: (hash: string, index: string) => txAt(byHash(hash), index),
    getRawTransactionByBlockNumberAndIndex: (block: BlockParam, index: string) => rawAt(byNumber(block), index),
    getRawTransactionByBlockHashAndIndex: (hash: string, index: string) => rawAt(byHash(hash), index),

    getTransactionByHash(hash: string) {
      const h = hexToBytes(hash);
      const loc = chain.txLocation(h);
      if (loc) {
        const body = chain.body(loc.blockHash)!;
        const timestamp = chain.headerByHash(loc.blockHash)!.timestamp;
        return formatTx(body.txs[loc.index]!, body.senders[loc.index]!, { blockHash: loc.blockHash, blockNumber: loc.blockNumber, blockTimestamp: timestamp, index: loc.index }, common, h);
      }
      const ptx = core.pool.get(hash.toLowerCase());
      return ptx ? formatTx(ptx.raw, ptx.sender, NOT_IN_BLOCK, common, ptx.hash) : null;
    },

    getRawTransactionByHash(hash: string) {
      const loc = chain.txLocation(hexToBytes(hash));
      if (loc) return bytesToHex(chain.body(loc.blockHash)!.txs[loc.index]!);
      const ptx = core.pool.get(hash.toLowerCase());
      return ptx ? bytesToHex(ptx.raw) : null;
    },

    getTransactionReceipt(hash: string) {
      const h = hexToBytes(hash);
      const loc = chain.txLocation(h);
      if (!loc) return null;
      const receipts = chain.receipts(loc.blockHash)!;
      let firstLog = 0;
      for (let i = 0; i < loc.index; i++) firstLog += receipts[i]!.logs.length;
      return formatReceipt(receipts[loc.index]!, h, loc.blockHash, loc.blockNumber, loc.index, firstLog);
    },
  };
}

