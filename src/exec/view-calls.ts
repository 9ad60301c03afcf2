// The fast path of eth_call / eth_estimateGas (A17): a message the view interpreter can run
// (src/exec/view-interpreter.ts) is answered from state read at the call's root without entering
// @ethereumjs; everything else — and every message the interpreter bails out of — returns
// undefined and runs on @ethereumjs as before. What is read at a root (accounts, code, slots) is
// remembered for that root: state under a root never changes.
import type { StateReader } from '../state/reader.ts';
import { bytesToBigInt, bytesToHex } from '../util/hex.ts';
import { ISTANBUL_DIGEST } from '../chain/istanbul-extra.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { analyseCode, LOW_ADDRESSES, MAX_VIEW_GAS, runView, type AccountInfo, type CodeAnalysis, type ViewEnv } from './view-interpreter.ts';
import { EVM_BLOCK_BASE_FEE } from './executor.ts';
import type { CallContext, CallOutcome, CallRequest } from './call.ts';
import { isSystemContract } from './native/system-state.ts';

/** Roots whose reads are remembered (the head and a few recent blocks). */
const ROOTS = 4;
/** Contracts and slots remembered per root; past this the root's memo starts over (bounds memory). */
const ENTRIES_PER_ROOT = 65_536;
/** Code analyses kept, by code hash. */
const ANALYSES = 512;
/** A message that reads more new slots or accounts than this goes to @ethereumjs (each read re-runs it). */
const MAX_READS = 64;
/**
 * A message that first needs a slot or an account after more gas than this goes to @ethereumjs
 * instead of being run again: re-running repeats all the work before the read, so a call that
 * computes heavily and then reads new state would cost up to MAX_READS times its work. This
 * bounds the repeated work of one call to MAX_READS × RERUN_GAS (6.4M gas, a fraction of the
 * default 50M gas cap).
 */
const RERUN_GAS = 100_000;

/** An account as read at a root: what BALANCE / EXTCODE* see, its code, the slots read so far. */
interface Contract extends AccountInfo {
  address: bigint;
  storage: Map<bigint, bigint>;
}

interface RootMemo {
  contracts: Map<bigint, Contract>;
  /** contracts plus slots read */
  entries: number;
}

/** What a message needs read from the state before the interpreter can run it (again). */
export class StateNeeded {
  constructor(readonly read: () => Promise<void>) {}
}

export class ViewCalls {
  /** what ran here rather than on @ethereumjs (for tests and the bench) */
  answered = 0;
  private readonly roots = new Map<string, RootMemo>();
  /** the memo of the root asked for last (the head, mostly), found without hex-encoding the root */
  private last: { root: Uint8Array; memo: RootMemo } | undefined;
  private readonly analyses = new Map<string, CodeAnalysis>();
  private readonly prevRandao = bytesToBigInt(ISTANBUL_DIGEST);
  private coinbase: { bytes: Uint8Array; value: bigint } | undefined;

  constructor(
    private readonly reader: StateReader,
    private readonly chainId: bigint,
    /** whether another engine (the wasm VM, `interpreter: all`) runs this code instead of the EVM */
    private readonly claimedElsewhere: (code: Uint8Array) => boolean,
    /** the precompiles' addresses, warm from a message's start */
    private readonly precompiles: readonly bigint[],
  ) {}

  /**
   * Without waiting: the outcome, undefined when the message must run on @ethereumjs, or the state
   * read that has to happen first. A view whose contract and slots were read before answers here.
   */
  tryCall(req: CallRequest, ctx: CallContext, gasLimit: bigint): CallOutcome | undefined | StateNeeded {
    const to = req.to;
    if (to === undefined || (req.value !== undefined && req.value !== 0n) || gasLimit > MAX_GAS) return undefined;
    const address = bytesToBigInt(to);
    // a message to a precompile goes to @ethereumjs (the interpreter runs a few only as call targets)
    if (address <= LOW_ADDRESSES) return undefined;
    const root = ctx.stateRoot;
    const memo = this.memo(root);
    const contract = memo.contracts.get(address);
    if (contract === undefined) return new StateNeeded(() => this.loadContract(memo, root, to));
    if (contract.analysis === undefined) return undefined;
    const caller = req.from ? bytesToBigInt(req.from) : 0n;
    const env: ViewEnv = {
      address: contract.address,
      caller,
      origin: caller,
      data: req.data ?? EMPTY,
      gasPrice: req.gasPrice ?? 0n,
      coinbase: this.coinbaseOf(ctx.coinbase),
      timestamp: ctx.timestamp,
      number: ctx.number,
      blockGasLimit: ctx.gasLimit,
      chainId: this.chainId,
      prevRandao: this.prevRandao,
      baseFee: EVM_BLOCK_BASE_FEE,
      precompiles: this.precompiles,
      account: (address) => memo.contracts.get(address),
      storage: (address, slot) => memo.contracts.get(address)?.storage.get(slot),
    };
    const r = runView(contract.analysis, env, Number(gasLimit));
    if (r.kind === 'bail' || r.kind === 'halt') return undefined;
    if (r.kind === 'outOfGas') {
      this.answered++;
      return { success: false, returnValue: EMPTY, executionGasUsed: gasLimit, error: 'out of gas' };
    }
    if (r.kind === 'need') return r.gasUsed > RERUN_GAS ? undefined : new StateNeeded(() => this.readSlot(memo, root, r.address, r.slot));
    if (r.kind === 'needAccount') return r.gasUsed > RERUN_GAS ? undefined : new StateNeeded(() => this.loadContract(memo, root, word(r.address, 20)));
    this.answered++;
    return { success: !r.reverted, returnValue: r.returnValue, executionGasUsed: BigInt(r.gasUsed), error: r.reverted ? 'revert' : undefined };
  }

  /**
   * Finishes a message tryCall answered with `first`: makes each read and tries again. The outcome,
   * or undefined when the message must run on @ethereumjs.
   */
  async complete(first: StateNeeded, req: CallRequest, ctx: CallContext, gasLimit: bigint): Promise<CallOutcome | undefined> {
    let needed = first;
    for (let reads = 1; reads <= MAX_READS; reads++) {
      await needed.read();
      const r = this.tryCall(req, ctx, gasLimit);
      if (!(r instanceof StateNeeded)) return r;
      needed = r;
    }
    return undefined;
  }

  private memo(root: Uint8Array): RootMemo {
    const last = this.last;
    if (last !== undefined && last.root === root && last.memo.entries <= ENTRIES_PER_ROOT) return last.memo;
    const key = bytesToHex(root);
    let m = this.roots.get(key);
    if (m === undefined || m.entries > ENTRIES_PER_ROOT) {
      if (m === undefined && this.roots.size >= ROOTS) this.roots.delete(this.roots.keys().next().value!);
      m = { contracts: new Map(), entries: 0 };
      this.roots.set(key, m);
    }
    this.last = { root, memo: m };
    return m;
  }

  private coinbaseOf(bytes: Uint8Array): bigint {
    if (this.coinbase?.bytes !== bytes) this.coinbase = { bytes, value: bytesToBigInt(bytes) };
    return this.coinbase.value;
  }

  private async loadContract(memo: RootMemo, root: Uint8Array, address: Uint8Array): Promise<void> {
    const view = this.reader.at(root);
    const account = await view.getAccount(address);
    let analysis: CodeAnalysis | undefined;
    if (isSystemContract(address)) {
      // native contracts (src/exec/native) run on @ethereumjs: no analysis, the interpreter bails
    } else if (account !== undefined) {
      const codeHash = bytesToHex(account.codeHash);
      analysis = this.analyses.get(codeHash);
      if (analysis === undefined) {
        const code = await view.getCode(address);
        // EOF, EIP-7702 delegations (both 0xef…) and other engines' code are not plain EVM code
        if (code[0] !== 0xef && !this.claimedElsewhere(code)) {
          analysis = analyseCode(code);
          if (this.analyses.size >= ANALYSES) this.analyses.delete(this.analyses.keys().next().value!);
          this.analyses.set(codeHash, analysis);
        }
      }
    } else {
      analysis = analyseCode(EMPTY);
    }
    const at = bytesToBigInt(address);
    memo.contracts.set(at, {
      address: at,
      balance: account?.balance ?? 0n,
      codeHash: bytesToBigInt(account?.codeHash ?? KECCAK_EMPTY),
      empty: account === undefined || account.isEmpty(),
      analysis,
      storage: new Map(),
    });
    memo.entries++;
  }

  private async readSlot(memo: RootMemo, root: Uint8Array, address: bigint, slot: bigint): Promise<void> {
    // the slot's contract is in the memo: the interpreter ran its code, or its caller's (DELEGATECALL)
    const contract = memo.contracts.get(address);
    if (contract === undefined) return this.loadContract(memo, root, word(address, 20));
    const value = await this.reader.at(root).getStorage(word(address, 20), word(slot, 32));
    contract.storage.set(slot, bytesToBigInt(value));
    memo.entries++;
  }
}

const EMPTY = new Uint8Array(0);
const MAX_GAS = BigInt(MAX_VIEW_GAS);

/** `v` as `bytes` big-endian bytes (an address or a storage slot). */
function word(v: bigint, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  for (let i = bytes - 1; i >= 0 && v > 0n; i--, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

/** keccak256 of no bytes: the code hash of an account without code */
const KECCAK_EMPTY = keccak256(EMPTY);
