// `chain-node admin param …`: ParameterManagement's parameters (vcl sysconfig).
import { callSystem, systemParameters } from '../client/system-contracts.ts';
import { call, integer, json, UsageError, write, type Command } from './command.ts';

function parameter(name: string) {
  const params = systemParameters();
  const wanted = name.toLowerCase();
  const p = params.find((x) => x.key.toLowerCase() === wanted || x.setter.slice(3).toLowerCase() === wanted);
  if (p === undefined) throw new UsageError(`unknown parameter ${JSON.stringify(name)}: one of ${params.map((x) => x.key).join(', ') || '(none in this build)'}`);
  return p;
}

export const paramCommands: Record<string, Command> = {
  set: {
    args: [2, 0],
    async run(ctx, [name, value]) {
      const p = parameter(name!);
      // the setter's argument type says how the text is read: an integer, or text (VRFParams' JSON, a contract name)
      const arg = p.type === 'string' || p.type === 'json' ? value! : BigInt(integer(value!, p.key));
      return write(ctx, call('ParameterManagement', p.setter, arg), `${p.key} set to ${value}`);
    },
  },
  get: {
    args: [0, 1],
    async run(ctx, [name]) {
      const wanted = name === undefined ? systemParameters() : [parameter(name)];
      if (wanted.length === 0) throw new Error('this build of chain-node has no ParameterManagement parameters');
      const values: Record<string, unknown> = {};
      for (const p of wanted) values[p.key] = await callSystem(ctx.client, call('ParameterManagement', p.getter));
      if (ctx.values.json) ctx.out(json(name === undefined ? values : values[wanted[0]!.key]));
      else for (const [k, v] of Object.entries(values)) ctx.out(`${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
      return 0;
    },
  },
};

