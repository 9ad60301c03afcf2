// Core records → wire objects (D6, D11). Quantities are minimal 0x-hex, data is 0x-hex.
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import type { Header } from '../chain/header.ts';
import { encodeHeader } from '../chain/header.ts';
import type { BlockRecord, LogRecord, StoredReceipt } from '../chain/types.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { bytesToHex, quantity, ZERO_HASH } from '../util/hex.ts';
import { logsBloom } from '../chain/bloom.ts';
import type * as T from '../../generated/types.ts';
import { DECODE_OPTIONS } from '../tx/init-code.ts';

export interface TxPosition {
  blockHash: Uint8Array | null;
  blockNumber: bigint | null;
  blockTimestamp: bigint | null;
  index: number | null;
}

/** Position of a transaction that is not in a block (pool, pending). */
export const NOT_IN_BLOCK: TxPosition = { blockHash: null, blockNumber: null, blockTimestamp: null, index: null };

export function decodeTx(raw: Uint8Array, common: Common): TypedTransaction {
  // stored transactions passed checkInitCodeSize when they were admitted
  return createTxFromRLP(raw, { common, ...DECODE_OPTIONS });
}

export function formatTx(raw: Uint8Array, sender: Uint8Array, pos: TxPosition, common: Common, hash?: Uint8Array): T.Transaction {
  const tx = decodeTx(raw, common);
  const out: T.Transaction = {
    blockHash: pos.blockHash ? bytesToHex(pos.blockHash) : null,
    blockNumber: pos.blockNumber === null ? null : quantity(pos.blockNumber),
    blockTimestamp: pos.blockTimestamp === null ? null : quantity(pos.blockTimestamp),
    from: bytesToHex(sender),
    gas: quantity(tx.gasLimit),
    hash: bytesToHex(hash ?? keccak256(raw)),
    input: bytesToHex(tx.data),
    nonce: quantity(tx.nonce),
    to: tx.to ? tx.to.toString() : null,
    gasPrice: '0x0',
    transactionIndex: pos.index === null ? null : quantity(pos.index),
    value: quantity(tx.value),
    type: quantity(tx.type),
    v: quantity(tx.v ?? 0n),
    r: quantity(tx.r ?? 0n),
    s: quantity(tx.s ?? 0n),
  };
  if ('gasPrice' in tx) {
    out.gasPrice = quantity(tx.gasPrice as bigint);
    const v = tx.v ?? 0n;
    if (tx.type === 0 && v >= 35n) out.chainId = quantity((v - 35n) / 2n);
  }
  if (tx.type !== 0) {
    out.chainId = quantity(tx.common.chainId());
    out.yParity = quantity(tx.v ?? 0n);
    const t = tx as unknown as { maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint; accessList?: [Uint8Array, Uint8Array[]][] };
    if (t.maxFeePerGas !== undefined) {
      out.maxFeePerGas = quantity(t.maxFeePerGas);
      out.maxPriorityFeePerGas = quantity(t.maxPriorityFeePerGas!);
      // geth: a mined transaction shows the price it paid, base fee + min(tip, maxFee − base fee),
      // which with our base fee of 0 is min(tip, maxFee); a pending one shows its fee cap
      const tip = t.maxPriorityFeePerGas!;
      out.gasPrice = quantity(pos.blockHash && tip < t.maxFeePerGas ? tip : t.maxFeePerGas);
    }
    out.accessList = (t.accessList ?? []).map(([a, keys]) => ({ address: bytesToHex(a), storageKeys: keys.map(bytesToHex) }));
  }
  return out;
}

/** Block JSON; `transactions` is filled by the caller (hashes or full objects). */
export function formatHeader(hash: Uint8Array, h: Header, size: number): T.Block {
  return {
    number: quantity(h.number),
    hash: bytesToHex(hash),
    parentHash: bytesToHex(h.parentHash),
    nonce: bytesToHex(h.nonce),
    mixHash: bytesToHex(h.mixHash),
    sha3Uncles: bytesToHex(h.sha3Uncles),
    logsBloom: bytesToHex(h.logsBloom),
    transactionsRoot: bytesToHex(h.transactionsRoot),
    stateRoot: bytesToHex(h.stateRoot),
    receiptsRoot: bytesToHex(h.receiptsRoot),
    miner: bytesToHex(h.miner),
    difficulty: quantity(h.difficulty),
    // one unit of difficulty per block (istanbul), so the total is the height + 1
    totalDifficulty: quantity(h.number + 1n),
    extraData: bytesToHex(h.extraData),
    size: quantity(size),
    gasLimit: quantity(h.gasLimit),
    gasUsed: quantity(h.gasUsed),
    timestamp: quantity(h.timestamp),
    baseFeePerGas: quantity(h.baseFeePerGas),
    uncles: [],
    transactions: [],
  };
}

/** RLP size of [header, transactions, uncles] as geth reports it. */
export function blockSize(b: BlockRecord): number {
  const header = encodeHeader(b.header);
  const txs = b.txs.map((raw) => (raw[0]! >= 0xc0 ? RLP.decode(raw) : raw));
  return RLP.encode([RLP.decode(header) as Uint8Array[], txs as never, []]).length;
}

export function formatBlock(b: BlockRecord, full: boolean, common: Common): T.Block {
  const out = formatHeader(b.hash, b.header, blockSize(b));
  out.transactions = full
    ? b.txs.map((raw, i) => formatTx(raw, b.senders[i]!, { blockHash: b.hash, blockNumber: b.header.number, blockTimestamp: b.header.timestamp, index: i }, common))
    : b.txs.map((raw) => bytesToHex(keccak256(raw)));
  return out;
}

/** A pending block object: hash, number, nonce, mixHash and logsBloom are null (spec). */
export function formatPendingBlock(parentHash: Uint8Array, parent: Header, timestamp: bigint, miner: Uint8Array): T.Block {
  return {
    ...formatHeader(parentHash, parent, 0),
    number: null,
    hash: null,
    nonce: null,
    mixHash: null,
    logsBloom: null,
    parentHash: bytesToHex(parentHash),
    miner: bytesToHex(miner),
    gasUsed: '0x0',
    timestamp: quantity(timestamp),
    totalDifficulty: quantity(parent.number + 2n),
    size: '0x0',
    transactions: [],
  };
}

export interface LogPosition {
  blockHash: Uint8Array;
  blockNumber: bigint;
  txHash: Uint8Array;
  txIndex: number;
  logIndex: number;
}

export function formatLog(log: LogRecord, p: LogPosition): T.Log {
  return {
    removed: false,
    logIndex: quantity(p.logIndex),
    transactionIndex: quantity(p.txIndex),
    transactionHash: bytesToHex(p.txHash),
    blockHash: bytesToHex(p.blockHash),
    blockNumber: quantity(p.blockNumber),
    address: bytesToHex(log[0]),
    data: bytesToHex(log[2]),
    topics: log[1].map(bytesToHex),
  };
}

/** Receipt JSON; `firstLogIndex` is the block-wide index of this receipt's first log. */
export function formatReceipt(r: StoredReceipt, txHash: Uint8Array, blockHash: Uint8Array, blockNumber: bigint, index: number, firstLogIndex: number): T.Receipt {
  return {
    transactionHash: bytesToHex(txHash),
    transactionIndex: quantity(index),
    blockHash: bytesToHex(blockHash),
    blockNumber: quantity(blockNumber),
    from: bytesToHex(r.from),
    to: r.to ? bytesToHex(r.to) : null,
    cumulativeGasUsed: quantity(r.cumulativeGasUsed),
    gasUsed: quantity(r.gasUsed),
    effectiveGasPrice: quantity(r.effectiveGasPrice),
    contractAddress: r.contractAddress ? bytesToHex(r.contractAddress) : null,
    logs: r.logs.map((l, i) => formatLog(l, { blockHash, blockNumber, txHash, txIndex: index, logIndex: firstLogIndex + i })),
    logsBloom: bytesToHex(logsBloom(r.logs)),
    status: r.status === 1 ? '0x1' : '0x0',
    type: quantity(r.type),
  };
}

export { ZERO_HASH };
