// The main thread's side of a wasm contract's calls out (./host/cross-vm.ts): each is EVM.runCall
// with a Message one level below the running one, so depth, value, static-ness, the callee's gas
// and the revert of its state and logs work as for an EVM CALL / DELEGATECALL. And the other
// direction's entry: the call data a Solidity caller's JSON form stands for.
import { Message, type Log } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { RLP } from '@ethereumjs/rlp';
import { CallCodecError, beBytes } from '../../codec/venachain-call.ts';
import { isWasmCode } from '../../codec/wasm-abi.ts';
import { solidityCallFromWasm, wasmCallFromSolidity } from '../../codec/wasm-solidity.ts';
import type { EngineEVM } from '../engine-evm.ts';
import type { HostRequest, InnerCallAnswer } from './thread-protocol.ts';

type InnerCall = Extract<HostRequest, { op: 'call' }>;

/**
 * Venachain's call data RLP([txType, funcName, "type(value)"…]) as a callee holding `code` takes it:
 * a Solidity contract gets the ABI call it stands for, accounts and wasm contracts take it as it is.
 * Throws CallCodecError when a Solidity callee's arguments are not "type(value)".
 */
export function venachainCallFor(code: Uint8Array, params: Uint8Array): Uint8Array {
  return code.length === 0 || isWasmCode(code) ? params : solidityCallFromWasm(params);
}

/** The call data the target is sent: a Solidity contract gets the ABI call wasm's "type(value)" form stands for. */
async function callDataFor(evm: EngineEVM, call: InnerCall, target: Address): Promise<Uint8Array> {
  const code = await evm.stateManager.getCode(target);
  if (call.kind === 'transfer') return isWasmCode(code) ? RLP.encode([beBytes(0n, 8)]) : new Uint8Array(0);
  return venachainCallFor(code, call.params);
}

/**
 * Runs one inner call of the wasm contract at `self`, running `message`, as an EVM CALL /
 * DELEGATECALL would; the callee's logs (none when it failed) come back for the caller's.
 */
export async function runInnerCall(evm: EngineEVM, message: Message, self: Address, call: InnerCall): Promise<InnerCallAnswer & { logs: Log[] }> {
  const failed = (gasUsed: bigint) => ({ ok: false, returnValue: new Uint8Array(0), gasUsed, logs: [] });
  if (message.depth >= Number(evm.common.param('stackLimit'))) return failed(0n);
  const target = new Address(call.target);
  let data: Uint8Array;
  try {
    data = await callDataFor(evm, call, target);
  } catch (e) {
    if (e instanceof CallCodecError) return failed(0n);
    throw e;
  }
  const delegate = call.kind === 'delegate';
  const inner = new Message({
    caller: delegate ? message.caller : self,
    to: delegate ? self : target,
    codeAddress: delegate ? target : undefined,
    value: delegate ? message.value : call.value,
    data,
    gasLimit: call.gasLimit,
    isStatic: message.isStatic,
    delegatecall: delegate,
    depth: message.depth + 1,
    selfdestruct: new Map(message.selfdestruct ?? []),
    createdAddresses: new Set(message.createdAddresses ?? []),
  });
  const { execResult } = await evm.runCall({ message: inner });
  if (execResult.exceptionError !== undefined) return failed(execResult.executionGasUsed);
  for (const [k, v] of inner.selfdestruct ?? []) message.selfdestruct?.set(k, v);
  for (const a of inner.createdAddresses ?? []) message.createdAddresses?.add(a);
  // a copy: the answer may be a view of the callee's memory, and a view travels to the wasm thread with the whole buffer behind it
  return { ok: true, returnValue: execResult.returnValue.slice(), gasUsed: execResult.executionGasUsed, logs: execResult.logs ?? [] };
}

/**
 * The call data a wasm contract runs for `message`: a Solidity contract's call arrives in
 * Venachain's JSON form and is turned into the wasm call it stands for (wasmCallFromSolidity);
 * calls from accounts, wasm contracts, the zero address and delegate calls are taken as they are.
 * Throws CallCodecError when a Solidity contract's call data is not that JSON.
 */
export async function wasmCallData(evm: EngineEVM, message: Message): Promise<Uint8Array> {
  if (message.delegatecall) return message.data;
  const callerCode = await evm.stateManager.getCode(message.caller);
  if (callerCode.length === 0 || isWasmCode(callerCode)) return message.data;
  return wasmCallFromSolidity(message.data);
}
