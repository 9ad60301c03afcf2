// Calls out of a wasm contract — to another wasm contract, a Solidity contract, a system contract
// or an account — as Venachain's life resolver names them (cplusplus.go), through the EVM's own
// message path (EVM.runCall with a Message one level deeper): depth, value, static-ness, the
// callee's gas and the revert of its state and logs work as for an EVM CALL / DELEGATECALL.
//
//   i64 callTransfer(addr, addrLen, value32)         sends the 32-byte big-endian value to the
//       address (its last 20 bytes); 0 done, 1 failed. The callee gets the 2,300-gas stipend when
//       the value is not 0 (a Solidity receive/fallback runs on it; a wasm contract is sent
//       RLP([txType 0]), its transfer form); 1,349 gas.
//   bcwasmCall(addr20, params, len)                  calls with `params` as call data, forwarding the
//       running call's own value (Venachain's rule); returns 0 (1,231 gas)
//   i64 bcwasmCallInt64(addr20, params, len)         … and reads the answer as an int64, 0 on failure (1,282)
//   char* bcwasmCallString(addr20, params, len)      … as a NUL-terminated string copied into the
//       module's memory (through the contract's malloc when it exports one), 0 on failure (1,283)
//   bcwasmDelegateCall / …Int64 / …String            the same as DELEGATECALL: the callee's code runs
//       on this contract's storage, with this call's caller and value (3,469 / 3,807 / 3,826)
// A failed callee answers 0 (its state and logs undone) and the caller carries on, as Venachain's.
// Where the callee is a Solidity contract (code neither wasm nor empty), `params` is Venachain's
// RLP([txType, funcName, "type(value)"…]) and is sent as the ABI call it stands for
// (src/codec/wasm-solidity.ts); its answers are read Solidity-style.
//
// Gas, unlike Venachain's (which gives the callee the gas the caller started with and charges
// nothing for it): the callee gets the gas left but 1/64 (EIP-150) and its use is charged to the
// caller. The call runs on the main thread (../inner-call.ts) while this run waits for it; the
// run's storage writes and logs so far are applied first (a delegate call runs on that storage, a
// callee may call back, the receipt keeps the order of execution), and what the run read before the
// call is read anew after it.
import { beValue } from '../../../codec/venachain-call.ts';
import { int64FromReturn, stringFromReturn } from '../../../codec/wasm-solidity.ts';
import type { InnerCallAnswer, InnerCallKind } from '../thread-protocol.ts';
import { u32, WasmCallError, type HostArg, type HostContext, type HostTable } from './context.ts';

/** Venachain's flat gas of each function (cplusplus.go). */
export const CROSS_VM_GAS = {
  callTransfer: 1349n,
  bcwasmCall: 1231n,
  bcwasmCallInt64: 1282n,
  bcwasmCallString: 1283n,
  bcwasmDelegateCall: 3469n,
  bcwasmDelegateCallInt64: 3807n,
  bcwasmDelegateCallString: 3826n,
} as const;

/** Makes an inner call, charges the gas it used; `gasLimit`: what the callee gets, given the gas left. */
function innerCall(ctx: HostContext, kind: InnerCallKind, target: Uint8Array, params: Uint8Array, value: bigint, gasLimit: (left: bigint) => bigint): InnerCallAnswer {
  if (ctx.message.isStatic && kind !== 'delegate' && value !== 0n) throw new WasmCallError('a value transfer in a static call');
  const answer = ctx.innerCall(kind, target, params, value, gasLimit(ctx.gasRemaining()));
  ctx.useGas(answer.gasUsed);
  return answer;
}

/** EIP-150: all but one 64th of the gas left. */
const allButOne64th = (left: bigint) => left - left / 64n;

function call(ctx: HostContext, kind: 'call' | 'delegate', addr: HostArg, params: HostArg, len: HostArg): InnerCallAnswer {
  return innerCall(ctx, kind, ctx.bytes(u32(addr), 20), ctx.bytes(u32(params), u32(len)), kind === 'call' ? ctx.message.value : 0n, allButOne64th);
}

function int64Answer(r: InnerCallAnswer): bigint {
  return r.ok ? int64FromReturn(r.returnValue) : 0n;
}

/** The answer as a NUL-terminated string in the module's memory (0 when the call failed). */
function stringAnswer(ctx: HostContext, r: InnerCallAnswer): number {
  if (!r.ok) return 0;
  const text = stringFromReturn(r.returnValue);
  const ptr = ctx.malloc(text.length + 1);
  ctx.write(ptr, text);
  ctx.write(ptr + text.length, new Uint8Array(1));
  return ptr;
}

const current: HostTable = {
  callTransfer(ctx, addr, addrLen, valuePtr) {
    ctx.useGas(CROSS_VM_GAS.callTransfer);
    // Venachain's BytesToAddress: the last 20 bytes, left-padded when shorter
    const raw = ctx.bytes(u32(addr), u32(addrLen));
    const target = new Uint8Array(20);
    target.set(raw.subarray(Math.max(0, raw.length - 20)), Math.max(0, 20 - raw.length));
    const value = beValue(ctx.bytes(u32(valuePtr), 32));
    const stipend = value === 0n ? 0n : ctx.message.callStipend;
    return innerCall(ctx, 'transfer', target, new Uint8Array(0), value, () => stipend).ok ? 0n : 1n;
  },
  bcwasmCall(ctx, addr, params, len) {
    ctx.useGas(CROSS_VM_GAS.bcwasmCall);
    call(ctx, 'call', addr, params, len);
    return 0n;
  },
  bcwasmCallInt64(ctx, addr, params, len) {
    ctx.useGas(CROSS_VM_GAS.bcwasmCallInt64);
    return int64Answer(call(ctx, 'call', addr, params, len));
  },
  bcwasmCallString(ctx, addr, params, len) {
    ctx.useGas(CROSS_VM_GAS.bcwasmCallString);
    return stringAnswer(ctx, call(ctx, 'call', addr, params, len));
  },
  bcwasmDelegateCall(ctx, addr, params, len) {
    ctx.useGas(CROSS_VM_GAS.bcwasmDelegateCall);
    call(ctx, 'delegate', addr, params, len);
    return 0n;
  },
  bcwasmDelegateCallInt64(ctx, addr, params, len) {
    ctx.useGas(CROSS_VM_GAS.bcwasmDelegateCallInt64);
    return int64Answer(call(ctx, 'delegate', addr, params, len));
  },
  bcwasmDelegateCallString(ctx, addr, params, len) {
    ctx.useGas(CROSS_VM_GAS.bcwasmDelegateCallString);
    return stringAnswer(ctx, call(ctx, 'delegate', addr, params, len));
  },
};

// The names of the same six before Venachain renamed them (bcos → bcwasm): its own system
// contracts in perf_test/data were built with the older toolchain and import these.
const OLD_NAMES = ['Call', 'CallInt64', 'CallString', 'DelegateCall', 'DelegateCallInt64', 'DelegateCallString'].map((n) => [`bcos${n}`, current[`bcwasm${n}`]!]);

export const crossVmHost: HostTable = { ...current, ...Object.fromEntries(OLD_NAMES) };
