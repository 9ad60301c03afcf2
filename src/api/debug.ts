// The debug_ namespace: a block's consensus encodings (header, block, transaction, receipts) and
// traces of mined transactions, whole blocks and calls. A mined transaction is traced by replaying
// its block on the state before it (the node keeps every block's state) on the call runner's VM,
// never the block executor's: tracing never touches the chain being sealed.
import { RLP } from '@ethereumjs/rlp';
import { encodeReceipt } from '@ethereumjs/vm';
import type { ApiContext } from './context.ts';
import type { BlockRecord } from '../chain/types.ts';
import type { CallContext } from '../exec/call.ts';
import { CallTimeout, gasAfterRefund } from '../exec/call.ts';
import type { EvmTracer } from '../exec/tracer.ts';
import { encodeHeader, headerFields } from '../chain/header.ts';
import { logsBloom } from '../chain/bloom.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { bytesToHex, hexToBytes } from '../util/hex.ts';
import { parseDurationMs } from '../util/duration.ts';
import type { BlockTraceEntry, TraceCallConfig, TraceConfig, TraceResult } from '../../generated/types.ts';
import { blockNumberOf, blockRefOf, type BlockRef } from './block-param.ts';
import { toCallRequest, type CallObject } from './call-object.ts';
import { invalidParams, serverError, translate } from './errors.ts';
import { callContext, cappedGas, DEFAULT_EVM_TIMEOUT_MS, withBlockOverrides, type CallLimits } from './eth-call.ts';
import { toStateOverrides } from './state-override-param.ts';
import { blockHandlers } from './eth-blocks.ts';
import { StructLogger } from './struct-logger.ts';
import { CallTracer } from './call-tracer.ts';
import { PrestateTracer } from './prestate-tracer.ts';

/** The first byte of an RLP list: a legacy transaction is one, a typed one an opaque envelope. */
const RLP_LIST = 0xc0;

/** A trace failure as geth words it. */
function traceFailed(e: unknown): never {
  if (e instanceof CallTimeout) throw serverError('execution timeout');
  return translate(e);
}

/** The tracer the options name, new for one transaction. `argument` names the options in errors. */
function tracerFor(options: TraceConfig | undefined, argument: string): EvmTracer {
  const name = options?.tracer ?? '';
  if (name === '') return new StructLogger(options);
  if (name === 'callTracer') return new CallTracer(options?.tracerConfig);
  if (name === 'prestateTracer') return new PrestateTracer(options?.tracerConfig);
  throw invalidParams(`invalid argument ${argument}: unknown tracer "${name.slice(0, 40)}" (built in: callTracer, prestateTracer; none for the struct logger)`);
}

export function debugHandlers(ctx: ApiContext, limits: CallLimits) {
  const { core } = ctx;
  const { chain } = core;
  const blocks = blockHandlers(ctx);

  /** Each transaction's time to run: the options' timeout, else --rpc.evmtimeout (0: none). */
  const timeoutOf = (options: TraceConfig | undefined, argument: string): number => {
    if (options?.timeout === undefined) {
      const ms = limits.evmTimeoutMs ?? DEFAULT_EVM_TIMEOUT_MS;
      return ms > 0 ? ms : Infinity;
    }
    const ms = parseDurationMs(options.timeout);
    if (ms !== undefined) return ms;
    throw invalidParams(`invalid argument ${argument}: timeout must be a positive duration such as 30s or 500ms, got "${options.timeout.slice(0, 40)}"`);
  };

  /** The block a selector names ('pending': the head, which is what a pending block would be built on). */
  const blockOf = (block: BlockRef): BlockRecord => {
    const ref = blockRefOf(block);
    let hash: Uint8Array | undefined;
    if ('hash' in ref) hash = ref.hash;
    else {
      const n = blockNumberOf(chain, ref.number);
      hash = chain.hashByNumber(n === 'pending' ? chain.headNumber : n);
      if (!hash) throw serverError(`block #${n} not found`);
    }
    const b = chain.block(hash);
    if (!b) throw serverError(`block ${bytesToHex(hash)} not found`);
    return b;
  };

  /** What the block's transactions ran in: its header's context on its parent's state. */
  const replayContext = (b: BlockRecord): CallContext => {
    if (b.header.number === 0n) throw serverError('genesis is not traceable');
    const parent = chain.headerByHash(b.header.parentHash)!;
    return { stateRoot: parent.stateRoot, number: b.header.number, timestamp: b.header.timestamp, coinbase: b.header.miner, gasLimit: b.header.gasLimit };
  };

  const traceBlock = async (b: BlockRecord, options: TraceConfig | undefined): Promise<BlockTraceEntry[]> => {
    const tracers = b.txs.map(() => tracerFor(options, '1 (options)'));
    const ends = await core.calls.replay(replayContext(b), b.txs, tracers, timeoutOf(options, '1 (options)')).catch(traceFailed);
    return ends.map((end, i) => ({ txHash: bytesToHex(b.txHashes?.[i] ?? keccak256(b.txs[i]!)), result: tracers[i]!.result(end) as TraceResult }));
  };

  return {
    /** Committed seals included, as stored and sent to peers (the block hash leaves them out). */
    getRawHeader: (block: BlockRef) => bytesToHex(encodeHeader(blockOf(block).header)),

    /** RLP([header, transactions, uncles]): a legacy transaction is embedded as the list it is, a typed one as its envelope. */
    getRawBlock(block: BlockRef) {
      const b = blockOf(block);
      const txs = b.txs.map((raw) => (raw[0]! >= RLP_LIST ? RLP.decode(raw) : raw));
      return bytesToHex(RLP.encode([headerFields(b.header), txs as Uint8Array[], []]));
    },

    getRawTransaction: (hash: string) => blocks.getRawTransactionByHash(hash),

    getRawReceipts(block: BlockRef) {
      const b = blockOf(block);
      return chain.receipts(b.hash)!.map((r) =>
        bytesToHex(encodeReceipt({ status: r.status, cumulativeBlockGasUsed: r.cumulativeGasUsed, bitvector: logsBloom(r.logs), logs: r.logs }, r.type as 0)),
      );
    },

    async traceTransaction(hash: string, options?: TraceConfig): Promise<TraceResult> {
      const loc = chain.txLocation(hexToBytes(hash));
      if (!loc) throw serverError(`transaction ${hash} not found`);
      const b = chain.block(loc.blockHash)!;
      const tracer = tracerFor(options, '1 (options)');
      const tracers = b.txs.slice(0, loc.index + 1).map((_, i) => (i === loc.index ? tracer : undefined));
      const [end] = await core.calls.replay(replayContext(b), b.txs.slice(0, loc.index + 1), tracers, timeoutOf(options, '1 (options)')).catch(traceFailed);
      return tracer.result(end!) as TraceResult;
    },

    traceBlockByNumber: (block: string | number, options?: TraceConfig) => traceBlock(blockOf(block), options),
    traceBlockByHash: (hash: string, options?: TraceConfig) => traceBlock(blockOf({ blockHash: hash }), options),

    /** Bounded as eth_call (--rpc.gascap); the trace's gas is what a transaction carrying the call would use. */
    async traceCall(tx: CallObject, block?: BlockRef, options?: TraceCallConfig): Promise<TraceResult> {
      const req = toCallRequest(tx);
      const overrides = toStateOverrides(options?.stateOverrides, core.calls.precompileAddresses(), 'options.stateOverrides');
      const context = withBlockOverrides(callContext(core, block), options?.blockOverrides, 'options.blockOverrides');
      const gas = cappedGas(limits, req.gas, context.gasLimit);
      const tracer = tracerFor(options, '2 (options)');
      const timeoutMs = timeoutOf(options, '2 (options)');
      const { intrinsic, minimum } = core.calls.txGas(req);
      if (gas < minimum) throw serverError(`intrinsic gas too low: have ${gas}, want ${minimum}`);
      const trace = await core.calls.traceCall(req, context, gas - intrinsic, tracer, performance.now() + timeoutMs, overrides).catch(traceFailed);
      const { outcome } = trace;
      const gasUsed = gasAfterRefund(intrinsic + outcome.executionGasUsed, trace.gasRefund);
      return tracer.result({ gasUsed, gasLimit: gas, returnValue: outcome.returnValue, error: outcome.error }) as TraceResult;
    },
  };
}

