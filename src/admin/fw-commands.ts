// `chain-node admin fw …`: FirewallManagement, each contract's firewall (vcl fw).
import { readFileSync } from 'node:fs';
import { callSystem, type FwRuleJson, type FwStatus } from '../client/system-contracts.ts';
import { fileErrorMessage, isFileError } from '../util/file-errors.ts';
import { address, call, json, UsageError, write, type Command } from './command.ts';

const ANY = '0xffffffffffffffffffffffffffffffffffffffff';

function action(text: string): string {
  const a = text.toLowerCase();
  if (a !== 'accept' && a !== 'reject') throw new UsageError(`action: accept or reject, not ${JSON.stringify(text)}`);
  return a;
}

const rules = (list: FwRuleJson[] | null) => (list === null ? '-' : list.map((r) => `${r.Addr === ANY ? '*' : r.Addr}:${r.FuncName}`).join(' | '));

/** add / del / set: the same three arguments, one method each */
const listChange = (method: '__sys_FwAdd' | '__sys_FwDel' | '__sys_FwSet', done: string): Command => ({
  args: [3, 0],
  async run(ctx, [contract, act, list]) {
    const a = action(act!);
    return write(ctx, call('FirewallManagement', method, address(contract!, 'contract address'), a, list!), `${contract}: ${a} list ${done} ${list}`);
  },
});

const onOff = (method: '__sys_FwOpen' | '__sys_FwClose', done: string): Command => ({
  args: [1, 0],
  async run(ctx, [contract]) {
    return write(ctx, call('FirewallManagement', method, address(contract!, 'contract address')), `firewall of ${contract} ${done}`);
  },
});

export const fwCommands: Record<string, Command> = {
  open: onOff('__sys_FwOpen', 'open'),
  close: onOff('__sys_FwClose', 'closed'),
  add: listChange('__sys_FwAdd', 'added'),
  del: listChange('__sys_FwDel', 'without'),
  set: listChange('__sys_FwSet', 'set to'),
  clear: {
    args: [2, 0],
    async run(ctx, [contract, act]) {
      const a = action(act!);
      return write(ctx, call('FirewallManagement', '__sys_FwClear', address(contract!, 'contract address'), a), `${contract}: ${a} list cleared`);
    },
  },
  status: {
    args: [1, 0],
    async run(ctx, [contract]) {
      const s = (await callSystem(ctx.client, call('FirewallManagement', '__sys_FwStatus', address(contract!, 'contract address')))) as unknown as FwStatus;
      if (ctx.values.json) ctx.out(json(s));
      else ctx.out(`${s.ContractAddr}: ${s.Active ? 'open' : 'closed'}\naccept: ${rules(s.AcceptedList)}\nreject: ${rules(s.RejectedList)}`);
      return 0;
    },
  },
  export: {
    args: [1, 0],
    async run(ctx, [contract]) {
      ctx.out(JSON.stringify(await callSystem(ctx.client, call('FirewallManagement', '__sys_FwExport', address(contract!, 'contract address')))));
      return 0;
    },
  },
  import: {
    args: [2, 0],
    async run(ctx, [contract, file]) {
      let text: string;
      try {
        text = readFileSync(file!, 'utf8');
      } catch (e) {
        if (isFileError(e)) throw new UsageError(`cannot read the firewall rules ${fileErrorMessage(e)}`);
        throw e;
      }
      return write(ctx, call('FirewallManagement', '__sys_FwImport', address(contract!, 'contract address'), text), `firewall rules of ${file} imported for ${contract}`);
    },
  },
};
