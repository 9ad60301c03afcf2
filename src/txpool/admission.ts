// Stateless and state checks a transaction passes before it enters the pool, with the messages
// geth uses so client libraries recognise them.
import { RLP } from '@ethereumjs/rlp';
import type { Common } from '@ethereumjs/common';
import { bytesToBigInt } from '../util/hex.ts';
import { decodePooledTxWith, TxDecodeError, type PooledTx } from '../tx/pooled-tx.ts';
import { recoveryHere, type SignatureRecovery } from '../tx/signature-recovery.ts';
import type { StateView } from '../state/reader.ts';

export const MAX_TX_BYTES = 128 * 1024;

export interface AdmissionRules {
  chainId: bigint;
  minGasPrice: bigint;
  blockGasLimit: bigint;
  /** the chain's per-transaction gas limit (ChainConfig.txGasLimit) */
  txGasLimit: bigint;
}

export class TxRejected extends Error {}

/** Refused for what the transaction is, whatever the state: not a transaction, a bad signature, another chain, too big. A peer that sends it is at fault. */
export class TxMalformed extends TxRejected {}

/** Chain id a signed serialization claims, read before full decoding so the error names it. */
function claimedChainId(raw: Uint8Array): bigint | undefined {
  try {
    if (raw[0]! >= 0xc0) {
      const f = RLP.decode(raw) as Uint8Array[];
      const v = bytesToBigInt(f[6] ?? new Uint8Array(0));
      return v >= 35n ? (v - 35n) / 2n : undefined;
    }
    const f = RLP.decode(raw.subarray(1)) as Uint8Array[];
    return bytesToBigInt(f[0] ?? new Uint8Array(0));
  } catch {
    return undefined;
  }
}

/**
 * Decodes, checks signature, size, chain id, gas and price. Returns the pooled form. A transaction
 * `refused` still holds decoded (sent again after "txpool is full") skips decoding and recovery;
 * the sender is recovered by `recovery` (default: on this thread).
 */
export async function checkStateless(raw: Uint8Array, common: Common, rules: AdmissionRules, refused?: RecentlyRefused, recovery: SignatureRecovery = recoveryHere): Promise<PooledTx> {
  if (raw.length === 0) throw new TxMalformed('invalid transaction: empty input');
  if (raw.length > MAX_TX_BYTES) throw new TxMalformed(`oversized data: transaction size ${raw.length} exceeds the limit of ${MAX_TX_BYTES} bytes`);
  let ptx = refused?.take(raw);
  if (!ptx) {
    try {
      ptx = await decodePooledTxWith(raw, common, recovery);
    } catch (e) {
      if (!(e instanceof TxDecodeError)) throw e;
      // the decoder refuses a chain id other than ours; only then is the encoding read again, to name it
      const claimed = claimedChainId(raw);
      if (claimed !== undefined && claimed !== rules.chainId) {
        throw new TxMalformed(`invalid chain id: transaction is signed for chain ${claimed}, this chain is ${rules.chainId}`);
      }
      throw new TxMalformed(e.message);
    }
  }
  const minGas = ptx.tx.getMinimumGasLimit();
  if (ptx.gasLimit < minGas) throw new TxRejected(`intrinsic gas too low: have ${ptx.gasLimit}, want ${minGas}`);
  if (ptx.gasLimit > rules.blockGasLimit) throw new TxRejected(`exceeds block gas limit: tx gas ${ptx.gasLimit}, block gas limit ${rules.blockGasLimit}`);
  if (ptx.gasLimit > rules.txGasLimit) throw new TxRejected(`transaction gas limit too high: gas ${ptx.gasLimit} exceeds the chain's per-transaction limit ${rules.txGasLimit}`);
  if (ptx.gasPrice < rules.minGasPrice) throw new TxRejected(`transaction underpriced: gas price ${ptx.gasPrice} below the node's minimum ${rules.minGasPrice}`);
  return ptx;
}

/** Nonce and balance against the head state. */
export async function checkState(ptx: PooledTx, head: StateView): Promise<void> {
  const account = await head.getAccount(ptx.sender);
  const nonce = account?.nonce ?? 0n;
  const balance = account?.balance ?? 0n;
  if (ptx.nonce < nonce) throw new TxRejected(`nonce too low: next nonce ${nonce}, tx nonce ${ptx.nonce}`);
  if (balance < ptx.cost) throw new TxRejected(`insufficient funds for gas * price + value: balance ${balance}, tx cost ${ptx.cost}`);
}

/**
 * Decoded transactions the pool or the state checks refused lately, by their exact bytes. Clients
 * send a transaction refused as "txpool is full" again and again until it fits (the bench's ingest
 * with 1 s blocks: thousands of times); decoding and recovering it each time was ~150 µs of the
 * event loop. Bounded by count and by bytes; the oldest entries go first.
 */
export class RecentlyRefused {
  private readonly entries = new Map<string, PooledTx>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 4096,
    private readonly maxBytes = 8 * 1024 * 1024,
  ) {}

  remember(ptx: PooledTx): void {
    const key = keyOf(ptx.raw);
    if (this.entries.has(key) || ptx.raw.length > this.maxBytes) return;
    this.entries.set(key, ptx);
    this.bytes += ptx.raw.length;
    for (const [k, old] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= old.raw.length;
    }
  }

  /** The decoded transaction, as if it arrived now; undefined when it is not held. */
  take(raw: Uint8Array): PooledTx | undefined {
    if (this.entries.size === 0) return undefined;
    const key = keyOf(raw);
    const ptx = this.entries.get(key);
    if (!ptx) return undefined;
    this.entries.delete(key);
    this.bytes -= ptx.raw.length;
    return { ...ptx, arrivedAt: Date.now() };
  }
}

/** The exact bytes as a string key (no hash to trust: equal keys are equal transactions). */
function keyOf(raw: Uint8Array): string {
  return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
}
