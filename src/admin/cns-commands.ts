// `chain-node admin cns …`: CnsManagement's contract names (vcl cns).
import { readFileSync } from 'node:fs';
import { callSystem, type CnsAnswer } from '../client/system-contracts.ts';
import { fileErrorMessage, isFileError } from '../util/file-errors.ts';
import { address, call, json, UsageError, write, type Command, type Context } from './command.ts';
import { cnsInvokeCommands } from './cns-invoke-commands.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A list answer as a table (or --json's document); Venachain's code 1 "the matching list is empty" as "none". */
function printList(ctx: Context, answer: CnsAnswer): number {
  if (ctx.values.json) {
    ctx.out(json(answer));
    return 0;
  }
  if (answer.code !== 0) {
    ctx.out(answer.msg === '[CNS] the matching list is empty' ? 'no registrations' : answer.msg);
    return 0;
  }
  const rows = answer.data.map((r) => [r.name, r.version, r.address, r.origin, String(r.create_time)]);
  const head = ['NAME', 'VERSION', 'ADDRESS', 'ORIGIN', 'BLOCK'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const r of [head, ...rows]) ctx.out(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
  return 0;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if (isFileError(e)) throw new UsageError(`cannot read the ${what} ${fileErrorMessage(e)}`);
    throw e;
  }
}

export const cnsCommands: Record<string, Command> = {
  register: {
    args: [3, 0],
    async run(ctx, [name, version, contract]) {
      return write(ctx, call('CnsManagement', 'cnsRegister', name!, version!, address(contract!, 'contract address')), `${name} ${version} registered to ${contract}`);
    },
  },
  redirect: {
    args: [2, 0],
    async run(ctx, [name, version]) {
      return write(ctx, call('CnsManagement', 'cnsRedirect', name!, version!), `${name} now resolves to version ${version}`);
    },
  },
  resolve: {
    args: [1, 1],
    async run(ctx, [name, version]) {
      const found = (await callSystem(ctx.client, call('CnsManagement', 'getContractAddress', name!, version ?? 'latest'))) as string;
      if (ctx.values.json) ctx.out(json({ name, version: version ?? 'latest', address: found || null }));
      else ctx.out(found || `${name} ${version ?? 'latest'}: not registered`);
      return found ? 0 : 1;
    },
  },
  list: {
    args: [0, 1],
    async run(ctx, [what]) {
      const c =
        what === undefined
          ? call('CnsManagement', 'getRegisteredContracts', 0n, 0n)
          : ADDRESS.test(what)
            ? call('CnsManagement', 'getRegisteredContractsByAddress', what)
            : call('CnsManagement', 'getRegisteredContractsByName', what);
      return printList(ctx, (await callSystem(ctx.client, c)) as unknown as CnsAnswer);
    },
  },
  'by-origin': {
    args: [1, 0],
    async run(ctx, [origin]) {
      return printList(ctx, (await callSystem(ctx.client, call('CnsManagement', 'getRegisteredContractsByOrigin', address(origin!, 'origin')))) as unknown as CnsAnswer);
    },
  },
  state: {
    args: [1, 0],
    async run(ctx, [what]) {
      const c = ADDRESS.test(what!) ? call('CnsManagement', 'ifRegisteredByAddress', what!) : call('CnsManagement', 'ifRegisteredByName', what!);
      const registered = (await callSystem(ctx.client, c)) === 1n;
      if (ctx.values.json) ctx.out(json({ registered }));
      else ctx.out(`${what}: ${registered ? 'registered' : 'not registered'}`);
      return 0;
    },
  },
  import: {
    args: [1, 0],
    async run(ctx, [file]) {
      return write(ctx, call('CnsManagement', 'importOldCnsManagerData', readText(file!, 'CNS data')), `CNS data of ${file} imported`);
    },
  },
  ...cnsInvokeCommands,
};
