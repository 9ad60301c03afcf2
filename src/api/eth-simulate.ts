// eth_/chain_simulateV1 (execution-apis): the payload → the core's simulated blocks
// (src/exec/simulate.ts), their outcomes → execution-apis' shapes and error codes.
import type { ApiContext } from './context.ts';
import { CallTimeout } from '../exec/call.ts';
import { MAX_SIMULATED_BLOCKS, SimulationError, type SimulatedBlockSpec, type SimulatedCall, type SimulationFailure } from '../exec/simulate.ts';
import { bytesToHex, hexToBytes, padLeft, quantity, bigIntToBytes } from '../util/hex.ts';
import { blockRefOf, stateHeaderOf, type BlockRef } from './block-param.ts';
import { toCallRequest } from './call-object.ts';
import { accessListBytes, declaredAccessList } from './access-list.ts';
import { toStateOverrides } from './state-override-param.ts';
import { formatBlock, formatLog } from './format.ts';
import { invalidParams, revertError, translate } from './errors.ts';
import { RpcError } from '../codec/jsonrpc-errors.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { DEFAULT_EVM_TIMEOUT_MS, goDuration, type CallLimits } from './eth-call.ts';
import type { SimulateCall, SimulatePayload, SimulatedBlock, SimulatedCallResult } from '../../generated/types.ts';

/** execution-apis' codes for eth_simulateV1's refusals */
const FAILURE_CODES: Record<SimulationFailure, number> = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  feeTooLow: -38012,
  intrinsicGas: -38013,
  insufficientFunds: -38014,
  blockGasLimit: -38015,
  blockNumberOrder: -38020,
  blockTimestampOrder: -38021,
  senderNotEoa: -38024,
  initCodeSize: -38025,
  tooManyBlocks: -38026,
  // geth answers a tip above the fee cap and other impossible fields as invalid params
  invalidFields: -32602,
};
const MOVE_CODES = { movedToItself: -38022, movedTwice: -38023 };
const TIMEOUT_CODE = -32016;
const CLIENT_LIMIT_CODE = -38026;
/** execution-apis' code for a call that failed other than by reverting */
const VM_ERROR_CODE = -32015;

const optional = (q: string | null | undefined) => (q != null ? BigInt(q) : undefined);

function toSimulatedCall(c: SimulateCall, param: string): SimulatedCall {
  let req;
  try {
    req = toCallRequest(c);
  } catch (e) {
    throw e instanceof RpcError ? invalidParams(`${param}: ${e.message}`) : e;
  }
  return {
    ...req,
    nonce: optional(c.nonce),
    maxFeePerGas: optional(c.maxFeePerGas),
    maxPriorityFeePerGas: optional(c.maxPriorityFeePerGas),
    accessList: c.accessList ? accessListBytes(declaredAccessList(c.accessList)) : undefined,
  };
}

export function simulateHandlers({ core }: ApiContext, limits: CallLimits) {
  const timeoutMs = limits.evmTimeoutMs ?? DEFAULT_EVM_TIMEOUT_MS;
  return {
    async simulateV1(payload: SimulatePayload, block?: BlockRef): Promise<SimulatedBlock[]> {
      const specs = payload.blockStateCalls;
      if (specs.length > MAX_SIMULATED_BLOCKS) throw new RpcError(CLIENT_LIMIT_CODE, `too many blocks: ${specs.length} (at most ${MAX_SIMULATED_BLOCKS})`);
      const precompiles = core.calls.precompileAddresses();
      const blocks: SimulatedBlockSpec[] = specs.map((b, i) => {
        const o = b.blockOverrides ?? {};
        return {
          number: optional(o.number),
          time: optional(o.time),
          gasLimit: optional(o.gasLimit),
          feeRecipient: o.feeRecipient ? hexToBytes(o.feeRecipient) : undefined,
          prevRandao: o.prevRandao != null ? padLeft(bigIntToBytes(BigInt(o.prevRandao)), 32) : undefined,
          baseFeePerGas: optional(o.baseFeePerGas),
          stateOverrides: toStateOverrides(b.stateOverrides, precompiles, `payload.blockStateCalls[${i}].stateOverrides`, MOVE_CODES),
          calls: (b.calls ?? []).map((c, j) => toSimulatedCall(c, `payload.blockStateCalls[${i}].calls[${j}]`)),
        };
      });
      const header = stateHeaderOf(core.chain, block ?? 'latest');
      const ref = blockRefOf(block ?? 'latest');
      const baseHash = 'hash' in ref ? ref.hash : (core.chain.hashByNumber(header.number) ?? new Uint8Array(32));
      const base = { stateRoot: header.stateRoot, number: header.number, timestamp: header.timestamp, coinbase: core.nodeKey.address, gasLimit: header.gasLimit };
      const deadline = timeoutMs > 0 ? performance.now() + timeoutMs : Infinity;
      const simulated = await core.calls
        .simulate(base, baseHash, blocks, { validation: payload.validation === true, traceTransfers: payload.traceTransfers === true, gasCap: limits.gasCap, deadline })
        .catch((e: unknown) => {
          if (e instanceof SimulationError) throw new RpcError(FAILURE_CODES[e.failure], e.message);
          if (e instanceof CallTimeout) throw new RpcError(TIMEOUT_CODE, `execution aborted (timeout = ${goDuration(timeoutMs)})`);
          return translate(e);
        });
      return simulated.map(({ record, calls }) => {
        const txHashes = record.txs.map((raw) => keccak256(raw));
        let logIndex = 0;
        const results = calls.map((c, i): SimulatedCallResult => {
          const logs = c.logs.map((log) => formatLog(log, { blockHash: record.hash, blockNumber: record.header.number, txHash: txHashes[i]!, txIndex: i, logIndex: logIndex++ }));
          const out: SimulatedCallResult = { status: c.success ? '0x1' : '0x0', returnData: bytesToHex(c.returnValue), gasUsed: quantity(c.gasUsed), logs };
          if (c.error === 'revert') {
            const e = revertError(c.returnValue);
            out.error = { code: e.code, message: e.message, data: e.data as string };
          } else if (c.error !== undefined) {
            out.error = { code: VM_ERROR_CODE, message: `vm execution error: ${c.error}` };
          }
          return out;
        });
        return { ...formatBlock(record, payload.returnFullTransactions === true, core.common), calls: results };
      });
    },
  };
}
