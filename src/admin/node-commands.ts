// `chain-node admin node …`: NodeManagement's records (vcl node).
import { callSystem, type NodeManagementAnswer } from '../client/system-contracts.ts';
import { NODE_STATUS, NODE_TYPE, type NodeRecord } from '../exec/native/system-state.ts';
import { call, integer, json, UsageError, write, type Command } from './command.ts';

const TYPE_NAMES = Object.fromEntries(Object.entries(NODE_TYPE).map(([name, n]) => [n, name])) as Record<number, string>;
const STATUS_NAMES = Object.fromEntries(Object.entries(NODE_STATUS).map(([name, n]) => [n, name])) as Record<number, string>;

function nodeType(text: string): number {
  const n = (NODE_TYPE as Record<string, number>)[text.toLowerCase()] ?? (TYPE_NAMES[Number(text)] !== undefined ? Number(text) : undefined);
  if (n === undefined) throw new UsageError(`--type: one of consensus, observer, light (or 1, 2, 3), not ${JSON.stringify(text)}`);
  return n;
}

function port(text: string | undefined, what: string, fallback: number): number {
  if (text === undefined) return fallback;
  const n = integer(text, what, 65535);
  if (n === 0) throw new UsageError(`${what}: not a port: 0`);
  return n;
}

function nodeAnswer(answer: unknown): NodeRecord[] {
  const a = answer as NodeManagementAnswer<NodeRecord[] | null>;
  if (typeof a !== 'object' || a === null || typeof a.code !== 'number') throw new Error(`unexpected NodeManagement answer: ${JSON.stringify(answer)}`);
  if (a.code !== 0) throw new Error(a.msg);
  return a.data ?? [];
}

function describeNode(n: NodeRecord): string[] {
  return [
    `name:       ${n.name}`,
    `type:       ${TYPE_NAMES[n.type] ?? n.type}`,
    `status:     ${STATUS_NAMES[n.status] ?? n.status}`,
    `externalIP: ${n.externalIP}`,
    `internalIP: ${n.internalIP}`,
    `p2pPort:    ${n.p2pPort}`,
    `rpcPort:    ${n.rpcPort}`,
    `publicKey:  ${n.publicKey}`,
    `delayNum:   ${n.delayNum ?? 0}`,
    `desc:       ${n.desc}`,
    `owner:      ${n.owner}`,
  ];
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
}

export const nodeCommands: Record<string, Command> = {
  add: {
    args: [4, 0],
    options: ['type', 'p2pPort', 'rpcPort', 'desc', 'delayNum'],
    async run(ctx, [name, publicKey, externalIP, internalIP]) {
      const v = ctx.values;
      const type = v.type === undefined ? NODE_TYPE.observer : nodeType(v.type);
      if (type === NODE_TYPE.consensus) throw new UsageError('a node is added as observer or light; make it a validator with: node update <name> --type consensus');
      // Venachain's NodeInfo JSON as vcl sends it (vcl's port defaults)
      const record: Record<string, unknown> = {
        name,
        owner: '',
        desc: v.desc ?? '',
        type,
        status: NODE_STATUS.normal,
        externalIP,
        internalIP,
        publicKey: publicKey!.replace(/^0x/, ''),
        rpcPort: port(v.rpcPort, '--rpcPort', 6791),
        p2pPort: port(v.p2pPort, '--p2pPort', 16791),
      };
      if (v.delayNum !== undefined) record.delayNum = integer(v.delayNum, '--delayNum');
      return write(ctx, call('NodeManagement', 'add', JSON.stringify(record)), `node ${name} added as ${TYPE_NAMES[type]}`);
    },
  },
  update: {
    args: [1, 0],
    options: ['type', 'desc', 'delayNum'],
    async run(ctx, [name]) {
      const v = ctx.values;
      const change: Record<string, unknown> = {};
      if (v.type !== undefined) change.type = nodeType(v.type);
      if (v.desc !== undefined) change.desc = v.desc;
      if (v.delayNum !== undefined) change.delayNum = integer(v.delayNum, '--delayNum');
      if (Object.keys(change).length === 0) throw new UsageError('node update: give at least one of --type, --desc, --delayNum');
      const words = Object.entries(change).map(([k, x]) => (k === 'type' ? `type ${TYPE_NAMES[x as number]}` : `${k} ${JSON.stringify(x)}`));
      return write(ctx, call('NodeManagement', 'update', name, JSON.stringify(change)), `node ${name} updated: ${words.join(', ')}`);
    },
  },
  delete: {
    args: [1, 0],
    async run(ctx, [name]) {
      // vcl's node delete: the record stays, with status 2
      return write(ctx, call('NodeManagement', 'update', name, JSON.stringify({ status: NODE_STATUS.deleted })), `node ${name} deleted`);
    },
  },
  list: {
    args: [0, 0],
    async run(ctx) {
      const nodes = nodeAnswer(await callSystem(ctx.client, call('NodeManagement', 'getAllNodes')));
      if (ctx.values.json) ctx.out(json(nodes));
      else if (nodes.length === 0) ctx.out('no nodes');
      else {
        const rows = nodes.map((n) => [n.name, TYPE_NAMES[n.type] ?? String(n.type), STATUS_NAMES[n.status] ?? String(n.status), `${n.externalIP}:${n.p2pPort}`, String(n.delayNum ?? 0), n.publicKey.slice(0, 16) + '…']);
        for (const line of table([['NAME', 'TYPE', 'STATUS', 'ADDRESS', 'DELAY', 'PUBLIC KEY'], ...rows])) ctx.out(line);
      }
      return 0;
    },
  },
  show: {
    args: [1, 0],
    async run(ctx, [name]) {
      const nodes = nodeAnswer(await callSystem(ctx.client, call('NodeManagement', 'getNodes', JSON.stringify({ name }))));
      const node = nodes.find((n) => n.name === name);
      if (node === undefined) throw new Error(`no node named ${JSON.stringify(name)}`);
      if (ctx.values.json) ctx.out(json(node));
      else for (const line of describeNode(node)) ctx.out(line);
      return 0;
    },
  },
};

