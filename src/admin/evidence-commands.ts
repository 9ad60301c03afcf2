// `chain-node admin evidence …`: EvidenceManagement's values by key.
import { callSystem } from '../client/system-contracts.ts';
import { call, json, write, type Command } from './command.ts';

export const evidenceCommands: Record<string, Command> = {
  save: {
    args: [2, 0],
    run: (ctx, [key, value]) => write(ctx, call('EvidenceManagement', 'saveEvidence', key!, value!), `evidence ${JSON.stringify(key)} saved`),
  },
  set: {
    args: [2, 0],
    run: (ctx, [key, value]) => write(ctx, call('EvidenceManagement', 'setJsonData', key!, value!), `evidence ${JSON.stringify(key)} set`),
  },
  get: {
    args: [1, 0],
    async run(ctx, [key]) {
      const answer = (await callSystem(ctx.client, call('EvidenceManagement', 'getEvidence', key!))) as { data?: unknown };
      ctx.out(ctx.values.json ? json(answer.data) : JSON.stringify(answer.data));
      return 0;
    },
  },
};
