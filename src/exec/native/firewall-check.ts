// Who may call a contract whose firewall is open (Venachain's fwCheck, core/vm/util.go). Venachain
// checks it where a transaction reaches its `to` and where a call by name reaches its target, not
// on other inner calls: so does this node (engine-evm.ts, cns-invoke.ts).
//   closed, no code at the contract or empty input → passes
//   input not RLP([txType, funcName, …])              → refused (the creator too: the check comes first)
//   the contract's creator                            → passes
//   on the reject list → refused; on the accept list → passes; anything else → refused
import { RLP } from '@ethereumjs/rlp';
import { FW_ANY_ADDRESS, type FwRule, type SystemState } from './system-state.ts';

/** Venachain's error of a call the firewall (or the deploy permission) refuses. */
export const PERMISSION_DENIED = 'Permission Denied!';

/** What the check needs of the chain besides the firewalls. */
export interface FirewallEnv {
  state: SystemState;
  hasCode(address: string): Promise<boolean>;
  creatorOf(address: string): string | undefined;
}

const matches = (rules: readonly FwRule[], caller: string, funcName: string) => rules.some((r) => (r.address === FW_ANY_ADDRESS || r.address === caller) && (r.funcName === '*' || r.funcName === funcName));

/** Why the firewall of `contract` refuses `caller`'s call with `input`, or undefined when it passes. Addresses lowercase 0x hex. */
export async function firewallRefusal(env: FirewallEnv, contract: string, caller: string, input: Uint8Array): Promise<string | undefined> {
  const fw = await env.state.firewalls.get(contract);
  if (!fw.active || input.length === 0 || !(await env.hasCode(contract))) return undefined;
  let items: unknown;
  try {
    items = RLP.decode(input);
  } catch {
    return `${PERMISSION_DENIED} FW : Input decode error`;
  }
  if (!Array.isArray(items) || !items.every((i) => i instanceof Uint8Array)) return `${PERMISSION_DENIED} FW : Input decode error`;
  if (items.length < 2) return `${PERMISSION_DENIED} FW : Missing function name`;
  if (env.creatorOf(contract) === caller) return undefined;
  const funcName = new TextDecoder().decode(items[1] as Uint8Array);
  const refused = `${PERMISSION_DENIED} FW : Access to contract:${contract} by ${funcName} is refused by firewall.`;
  if (matches(fw.reject, caller, funcName)) return refused;
  return matches(fw.accept, caller, funcName) ? undefined : refused;
}
