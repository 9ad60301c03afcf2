// `chain-node admin group …`: GroupManagement's groups and their boot nodes.
import { callSystem } from '../client/system-contracts.ts';
import { call, integer, json, write, type Command } from './command.ts';

const id = (text: string) => BigInt(integer(text, 'groupID'));

/** Boot nodes as the command line gives them: comma-separated enode URLs. */
const enodes = (text: string) => text.split(',').filter((s) => s !== '');

async function show(ctx: Parameters<Command['run']>[0], answer: unknown): Promise<number> {
  ctx.out(ctx.values.json ? json(answer) : typeof answer === 'string' ? answer : JSON.stringify(answer));
  return 0;
}

export const groupCommands: Record<string, Command> = {
  create: {
    args: [1, 2],
    async run(ctx, [groupID, creatorEnode, bootNodes]) {
      const info = { groupID: integer(groupID!, 'groupID'), creatorEnode: creatorEnode ?? '', bootNodes: bootNodes === undefined ? [] : enodes(bootNodes) };
      return write(ctx, call('GroupManagement', 'createGroup', JSON.stringify(info)), `group ${groupID} created`);
    },
  },
  list: {
    args: [0, 0],
    run: async (ctx) => show(ctx, await callSystem(ctx.client, call('GroupManagement', 'getAllGroups'))),
  },
  show: {
    args: [1, 0],
    run: async (ctx, [groupID]) => show(ctx, await callSystem(ctx.client, call('GroupManagement', 'getGroupByID', id(groupID!)))),
  },
  'set-bootnodes': {
    args: [2, 0],
    async run(ctx, [groupID, bootNodes]) {
      return write(ctx, call('GroupManagement', 'updateBootNodes', id(groupID!), JSON.stringify(enodes(bootNodes!))), `group ${groupID}: boot nodes set`);
    },
  },
  'add-bootnode': {
    args: [2, 0],
    async run(ctx, [groupID, enode]) {
      return write(ctx, call('GroupManagement', 'addBootNode', id(groupID!), enode!), `group ${groupID}: boot node added`);
    },
  },
  'del-bootnode': {
    args: [2, 0],
    async run(ctx, [groupID, enode]) {
      return write(ctx, call('GroupManagement', 'delBootNode', id(groupID!), enode!), `group ${groupID}: boot node removed`);
    },
  },
  'can-create': {
    args: [0, 0],
    async run(ctx) {
      const from = (await ctx.sender()).address;
      const may = (await callSystem(ctx.client, call('GroupManagement', 'hasGroupOpPermission'), { from })) === 1n;
      return show(ctx, ctx.values.json ? { address: from, mayCreate: may } : `${from} ${may ? 'may' : 'may not'} create groups`);
    },
  },
};
