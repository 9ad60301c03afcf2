// FirewallManagement (0x1000…0005): each contract's firewall, changed by the contract's creator
// (the immediate caller), with Venachain's names, rule format, answers and events
// (core/vm/sc_firewall*.go, core/state/state_object.go). While a contract's firewall is open,
// firewall-check.ts decides who may call it. A failure throws (status 0, nothing kept, the message
// is the revert reason); a change that succeeds emits "Notify" [0, message] and returns 0.
import { implement, NativeCallError, type NativeCall, type NativeContract } from './engine.ts';
import { FIREWALL_CALL_GAS, FIREWALL_MANAGEMENT_ABI } from '../../codec/system-contracts-abi.ts';
import { FIREWALL_MANAGEMENT, FW_ANY_ADDRESS, type FwRule, type FwState } from './system-state.ts';
import { isVenachainName } from './formats.ts';

const SUCCESS = 0n;
const NOT_OWNER = 'FW : error, only contract owner can set firewall setting';
const BAD_ACTION = 'FW: error, action is invalid';
const BAD_RULE = 'FW : error, incorrect firewall rule format';
const BAD_RULE_ADDRESS = 'FW : error, incorrect firewall rule address format';
const BAD_RULE_NAME = 'FW : error, incorrect firewall rule api name format';

type Action = 'accept' | 'reject';

function actionOf(text: string): Action {
  const a = text.toLowerCase();
  if (a !== 'accept' && a !== 'reject') throw new NativeCallError(`${BAD_ACTION}: action ${JSON.stringify(text.slice(0, 40))} must be accept or reject`);
  return a;
}

/** "address:funcName|…" as Venachain reads it (convertToFwElem): "*" is any address or any function. */
function rulesOf(list: string): FwRule[] {
  return list.split('|').map((element) => {
    const parts = element.split(':');
    if (parts.length !== 2) throw new NativeCallError(`${BAD_RULE}: ${JSON.stringify(element.slice(0, 100))} must be address:funcName`);
    const [address, funcName] = parts as [string, string];
    if (funcName !== '*' && !isVenachainName(funcName)) throw new NativeCallError(`${BAD_RULE_NAME}: ${JSON.stringify(funcName.slice(0, 140))} must be * or 1 to 128 letters, digits or _`);
    if (address === '*') return { address: FW_ANY_ADDRESS, funcName };
    if (!/^(0x)?[0-9a-fA-F]{40}$/.test(address)) throw new NativeCallError(`${BAD_RULE_ADDRESS}: ${JSON.stringify(address.slice(0, 60))} must be * or an address`);
    return { address: '0x' + address.replace(/^0x/, '').toLowerCase(), funcName };
  });
}

const same = (a: FwRule, b: FwRule) => a.address === b.address && a.funcName === b.funcName;

/** `rules` with `more` added, each rule once (Venachain keeps them in a set). */
function withRules(rules: readonly FwRule[], more: readonly FwRule[]): FwRule[] {
  const out = [...rules];
  for (const r of more) if (!out.some((o) => same(o, r))) out.push(r);
  return out;
}

/** Changes the firewall of `contract` if the caller created it, then says so in the success event. */
async function change(call: NativeCall, contract: string, edit: (fw: FwState) => FwState, message: string): Promise<bigint> {
  if (call.creatorOf(contract) !== call.caller) throw new NativeCallError(`${NOT_OWNER}: ${call.caller} did not create ${contract}`);
  await call.state.firewalls.put(contract, edit(await call.state.firewalls.get(contract)));
  call.emit('Notify', SUCCESS, message);
  return SUCCESS;
}

/** Venachain's FwStatus JSON: lists sorted by function name (then address), null when empty. */
export function firewallStatusJson(contract: string, fw: FwState): string {
  const list = (rules: readonly FwRule[]) =>
    rules.length === 0
      ? null
      : [...rules].sort((a, b) => (a.funcName < b.funcName ? -1 : a.funcName > b.funcName ? 1 : a.address < b.address ? -1 : 1)).map((r) => ({ Addr: r.address, FuncName: r.funcName }));
  return JSON.stringify({ ContractAddr: contract, Active: fw.active, AcceptedList: list(fw.accept), RejectedList: list(fw.reject) });
}

/** __sys_FwImport's argument: a FwStatus JSON (its lists are added; Active is not imported, as in Venachain). */
function importedRules(text: string): { accept: FwRule[]; reject: FwRule[] } {
  const where = 'FirewallManagement.__sys_FwImport: argument 2';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new NativeCallError(`Firewall import failed: ${where} is not JSON: ${(e as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new NativeCallError(`Firewall import failed: ${where} must be a JSON object {AcceptedList, RejectedList}`);
  const list = (key: string): FwRule[] => {
    const items = (json as Record<string, unknown>)[key];
    if (items === undefined || items === null) return [];
    if (!Array.isArray(items)) throw new NativeCallError(`Firewall import failed: ${where}: ${key} must be a list`);
    return items.map((item: unknown, i) => {
      const { Addr, FuncName } = (item ?? {}) as { Addr?: unknown; FuncName?: unknown };
      if (typeof Addr !== 'string' || !/^(0x)?[0-9a-fA-F]{40}$/.test(Addr)) throw new NativeCallError(`Firewall import failed: ${where}: ${key}[${i}].Addr must be an address`);
      if (typeof FuncName !== 'string' || FuncName.includes(':')) throw new NativeCallError(`funcName parameter error: ${where}: ${key}[${i}].FuncName must be a function name without ":"`);
      return { address: '0x' + Addr.replace(/^0x/, '').toLowerCase(), funcName: FuncName };
    });
  };
  return { accept: list('AcceptedList'), reject: list('RejectedList') };
}

const status = async (call: NativeCall, contract: string) => firewallStatusJson(contract, await call.state.firewalls.get(contract));

export const firewallManagement: NativeContract = {
  name: 'FirewallManagement',
  address: FIREWALL_MANAGEMENT,
  gas: FIREWALL_CALL_GAS,
  methods: implement(FIREWALL_MANAGEMENT_ABI, {
    __sys_FwOpen: (call, contract) => change(call, contract, (fw) => ({ ...fw, active: true }), 'fw start success'),
    __sys_FwClose: (call, contract) => change(call, contract, (fw) => ({ ...fw, active: false }), 'fw close success'),
    async __sys_FwClear(call, contract, action) {
      const a = actionOf(action);
      return change(call, contract, (fw) => ({ ...fw, [a]: [] }), 'fw clear success');
    },
    async __sys_FwAdd(call, contract, action, list) {
      const a = actionOf(action);
      const rules = rulesOf(list);
      return change(call, contract, (fw) => ({ ...fw, [a]: withRules(fw[a], rules) }), 'fw add success');
    },
    async __sys_FwDel(call, contract, action, list) {
      const a = actionOf(action);
      const rules = rulesOf(list);
      return change(call, contract, (fw) => ({ ...fw, [a]: fw[a].filter((r) => !rules.some((d) => same(d, r))) }), 'fw delete success');
    },
    async __sys_FwSet(call, contract, action, list) {
      const a = actionOf(action);
      const rules = rulesOf(list);
      return change(call, contract, (fw) => ({ ...fw, [a]: withRules([], rules) }), 'fw reset success');
    },
    async __sys_FwImport(call, contract, text) {
      const imported = importedRules(text);
      return change(call, contract, (fw) => ({ ...fw, accept: withRules(fw.accept, imported.accept), reject: withRules(fw.reject, imported.reject) }), 'fw import success');
    },
    __sys_FwStatus: status,
    __sys_FwExport: status,
  }),
};
