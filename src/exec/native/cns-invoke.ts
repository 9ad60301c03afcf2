// Calls by name (Venachain's CnsInvoke, core/vm/sc_cns_invoke.go): a message to the zero address
// with data RLP([txType, "name" or "name:version", funcName, args…]) is the call RLP([txType,
// funcName, args…]) to the contract CNS registers under that name (version `latest` when none is
// given), made by the same caller with the gas left after the flat charge, once the target's
// firewall let it pass. A Solidity target gets the ABI call the "type(value)" arguments stand
// for, as from a wasm contract (G8). Success adds the event "CnsInvoke" [0, "cnsinvoke successful."]
// after the callee's; every failure fails the message (G8: Venachain lets some of them succeed).
import { EVMError, Message, type ExecResult } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { RLP } from '@ethereumjs/rlp';
import { CallCodecError, encodeEventData, eventTopic } from '../../codec/venachain-call.ts';
import { CNS_CALL_GAS } from '../../codec/system-contracts-abi.ts';
import { venachainCallFor } from '../wasm/inner-call.ts';
import type { EngineEVM } from '../engine-evm.ts';
import { revert } from './engine.ts';
import { resolveName } from './cns-management.ts';
import { firewallRefusal, type FirewallEnv } from './firewall-check.ts';
import { bytesToHex, hexToBytes } from '../../util/hex.ts';

const ZERO = new Uint8Array(20);
const fail = (reason: string) => revert(`CnsInvoke: ${reason}`, CNS_CALL_GAS);

/** Runs `message` (to the zero address, non-empty data, at least CNS_CALL_GAS) as a call by name. */
export async function invokeByName(evm: EngineEVM, message: Message, env: FirewallEnv): Promise<ExecResult> {
  let items: unknown;
  try {
    items = RLP.decode(message.data);
  } catch (e) {
    return fail(`call data is not RLP: ${(e as Error).message}`);
  }
  if (!Array.isArray(items) || !items.every((i) => i instanceof Uint8Array)) return fail('call data must be an RLP list of byte strings [txType, "name[:version]", funcName, args…]');
  if (items.length < 3) return fail(`call data needs at least 3 items [txType, "name[:version]", funcName, args…], got ${items.length}`);
  const [txType, cnsName, ...call] = items as Uint8Array[];
  // a call by name carries no value: Venachain's would move it twice (to the zero address, then to the target) (G8)
  if (message.value !== 0n) return fail('a call by name carries no value');
  const text = new TextDecoder().decode(cnsName);
  const colon = text.indexOf(':');
  const [name, version] = colon < 0 ? [text, 'latest'] : [text.slice(0, colon), text.slice(colon + 1)];
  const address = await resolveName(env, name, version);
  if (address === undefined) return fail(`[CNS] name and version is not registered in CNS: ${JSON.stringify(text.slice(0, 160))}`);
  const target = hexToBytes(address);
  // a name registered to the zero address answers nothing, as in Venachain
  if (target.every((b, i) => b === ZERO[i])) return { returnValue: new Uint8Array(0), executionGasUsed: CNS_CALL_GAS };
  const forwarded = RLP.encode([txType!, ...call]);
  const caller = bytesToHex(message.caller.bytes);
  const refused = await firewallRefusal(env, address, caller, forwarded);
  if (refused !== undefined) return revert(refused, CNS_CALL_GAS);
  if (message.depth >= Number(evm.common.param('stackLimit'))) return fail('call depth limit reached');
  const to = new Address(target);
  let data: Uint8Array;
  try {
    data = venachainCallFor(await evm.stateManager.getCode(to), forwarded);
  } catch (e) {
    if (e instanceof CallCodecError) return fail(`${name} is a Solidity contract: ${e.message}`);
    throw e;
  }
  const inner = new Message({
    caller: message.caller,
    to,
    value: 0n,
    data,
    gasLimit: message.gasLimit - CNS_CALL_GAS,
    isStatic: message.isStatic,
    depth: message.depth + 1,
    selfdestruct: new Map(message.selfdestruct ?? []),
    createdAddresses: new Set(message.createdAddresses ?? []),
  });
  const { execResult } = await evm.runCall({ message: inner });
  const gasUsed = CNS_CALL_GAS + execResult.executionGasUsed;
  if (execResult.exceptionError !== undefined) {
    return { returnValue: execResult.returnValue, executionGasUsed: gasUsed, exceptionError: execResult.exceptionError ?? new EVMError(EVMError.errorMessages.REVERT) };
  }
  for (const [k, v] of inner.selfdestruct ?? []) message.selfdestruct?.set(k, v);
  for (const a of inner.createdAddresses ?? []) message.createdAddresses?.add(a);
  const event: [Uint8Array, Uint8Array[], Uint8Array] = [ZERO, [eventTopic('CnsInvoke')], encodeEventData(0n, 'cnsinvoke successful.')];
  return { returnValue: execResult.returnValue, executionGasUsed: gasUsed, logs: [...(execResult.logs ?? []), event] };
}
