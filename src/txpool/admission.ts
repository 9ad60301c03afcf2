// The one path a transaction takes into the pool, whether a client or a peer sent it: the stateless
// checks, the chain's rules at the head, what is known or mined, nonce and balance, unpaid work and
// the pool's own rules, with the messages geth uses so client libraries recognise them.
import { RLP } from '@ethereumjs/rlp';
import type { Common } from '@ethereumjs/common';
import { bytesToBigInt } from '../util/hex.ts';
import { decodePooledTxWith, TxDecodeError, type PooledTx } from '../tx/pooled-tx.ts';
import { recoveryHere, type SignatureRecovery } from '../tx/signature-recovery.ts';
import type { StateView } from '../state/reader.ts';
import type { TxPool } from './pool.ts';
import type { OverBudgetDrops } from './over-budget.ts';
import type { FreeWork } from './free-work.ts';

import { MAX_TX_BYTES } from '../codec/tx-size.ts';

export { MAX_TX_BYTES };

export interface AdmissionRules {
  chainId: bigint;
  minGasPrice: bigint;
  blockGasLimit: bigint;
  /** the chain's per-transaction gas limit in force (ChainParams.txGasLimit: at most the block gas bound) */
  txGasLimit: bigint;
  /** the per-transaction limit as set, when the block gas bound lowered it (the error then says why) */
  txGasLimitSet?: bigint;
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
  if (ptx.gasLimit > rules.txGasLimit) {
    const why = rules.txGasLimitSet !== undefined && rules.txGasLimitSet > rules.txGasLimit ? ` (TxGasLimit is ${rules.txGasLimitSet}; the block gas bound, genesis config.blockGasBound, caps it: no block may reserve more)` : '';
    throw new TxRejected(`transaction gas limit too high: gas ${ptx.gasLimit} exceeds the chain's per-transaction limit ${rules.txGasLimit}${why}`);
  }
  if (ptx.gasPrice < rules.minGasPrice) throw new TxRejected(`transaction underpriced: gas price ${ptx.gasPrice} below the node's minimum ${rules.minGasPrice}`);
  return ptx;
}

/** Nonce and balance against the head state; returns the sender's account as the head holds it. */
export async function checkState(ptx: PooledTx, head: StateView): Promise<{ nonce: bigint; balance: bigint }> {
  const account = await head.getAccount(ptx.sender);
  const nonce = account?.nonce ?? 0n;
  const balance = account?.balance ?? 0n;
  if (ptx.nonce < nonce) throw new TxRejected(`nonce too low: next nonce ${nonce}, tx nonce ${ptx.nonce}`);
  if (balance < ptx.cost) throw new TxRejected(`insufficient funds for gas * price + value: balance ${balance}, tx cost ${ptx.cost}`);
  return { nonce, balance };
}

/** What admission reads of the chain: its rules and state at the head, and what is mined. */
export interface AdmissionChain {
  rules(): Promise<AdmissionRules>;
  headState(): StateView;
  isMined(hash: Uint8Array): boolean;
}

/** Admission of both paths (a client's RPC and a peer's gossip) into the pool. */
export class TxAdmission {
  /** decoded transactions refused by the state or the pool, for when they are sent again */
  private readonly refused = new RecentlyRefused();

  constructor(
    private readonly common: Common,
    private readonly chain: AdmissionChain,
    private readonly pool: TxPool,
    /** transactions a proposer of this node dropped for its time budget, refused when they come back */
    private readonly overBudget: OverBudgetDrops,
    /** unpaid work's bounds and the senders cooling down (S14) */
    private readonly freeWork: FreeWork,
    /** recovers the senders: on the event loop or on recovery threads (A20) */
    private readonly recovery: SignatureRecovery,
  ) {}

  /** `local`: this node signed it (geth's locals, never evicted); `fromPeer`: it came by gossip. */
  async admit(raw: Uint8Array, o: { local: boolean; fromPeer?: true }): Promise<PooledTx> {
    const ptx = await checkStateless(raw, this.common, await this.chain.rules(), this.refused, this.recovery);
    // geth's words: `already known` is for the pool; a mined one is answered as its nonce is (ethers: NONCE_EXPIRED)
    if (this.pool.has(ptx.hashHex)) throw new TxRejected(`already known: ${ptx.hashHex}`);
    if (this.chain.isMined(ptx.hash)) throw new TxRejected(`nonce too low: ${ptx.hashHex} is already mined`);
    const overBudget = this.overBudget.refusal(ptx.hashHex);
    if (overBudget) throw new TxRejected(overBudget);
    if (o.fromPeer) ptx.fromPeer = true;
    try {
      const { balance } = await checkState(ptx, this.chain.headState());
      // a local sender is one whose transactions this node signed before, or this one
      const unpaid = this.freeWork.check(ptx, balance, o.local || this.pool.isLocal(ptx.senderHex));
      await this.pool.add(ptx, { local: o.local });
      if (unpaid) this.freeWork.admitted(ptx);
    } catch (e) {
      // kept decoded for a resend, which may come through this node's RPC
      delete ptx.fromPeer;
      this.refused.remember(ptx);
      throw e;
    }
    return ptx;
  }
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
