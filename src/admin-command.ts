// `chain-node admin …`: the operator CLI of the system contracts, for users of Venachain's `vcl`
// (role / node / param ≈ vcl role / node / sysconfig). It talks JSON-RPC to a node (--rpc), builds
// every call from the one signature table through the client SDK (src/client/system-contracts.ts),
// sends writes as transactions (src/admin/sender.ts), waits for the receipt and says in words what
// the contract did: `node node1 added (block 12, tx 0x…)`, or `failed: <the contract's reason>`.
// Exit code 0 done, 1 refused or failed (the contract, the node, a file), 2 a usage error.
import { parseArgs } from 'node:util';
import { ChainClient, RpcError, TransportError, fromQuantity } from '../generated/client/index.ts';
import {
  callSystem,
  encodeSystemCall,
  hasSystemMethod,
  systemErrorReason,
  systemParameters,
  type NodeManagementAnswer,
  type SystemCall,
  type SystemContractName,
  type SystemOutcome,
} from './client/system-contracts.ts';
import { CallCodecError } from './codec/venachain-call.ts';
import { NODE_STATUS, NODE_TYPE, ROLES, type NodeRecord, type RoleName } from './exec/native/system-state.ts';
import { senderFor, type Sender } from './admin/sender.ts';

const DEFAULT_RPC = 'http://127.0.0.1:6791';

const USAGE = `usage: chain-node admin <command> [arguments] [options]

roles (UserManagement):
  role set-super-admin                      make the sender super admin (only while the chain has none)
  role transfer-super-admin <address>       hand the super admin role to another account
  role add <role> <address>                 grant a role: chain-admin, group-admin, node-admin,
                                            contract-admin, contract-deployer
  role remove <role> <address>              revoke it
  role list [<address>]                     the roles of an address; without one, every role's members

nodes (NodeManagement):
  node add <name> <publicKey> <externalIP> <internalIP> [--type observer|light] [--p2pPort N]
           [--rpcPort N] [--desc TEXT] [--delayNum N]
                                            register a node (publicKey: 128 hex digits)
  node update <name> [--type consensus|observer|light] [--desc TEXT] [--delayNum N]
                                            change a node; --type consensus makes it a validator
                                            from block delayNum+1
  node delete <name>                        mark a node deleted (status 2; records stay)
  node list                                 every node
  node show <name>                          one node's record

parameters (ParameterManagement):
  param set <name> <value>                  e.g. param set TxGasLimit 2000000000
  param get [<name>]                        one parameter, or all of them

options:
  --rpc URL               the node's JSON-RPC endpoint, http(s):// or ws(s):// (default ${DEFAULT_RPC})
  --from ADDRESS          send from this account, unlocked on the node (default: the node's first account)
  --keyfile PATH          send from the account of this keystore v3 file, signed here
  --password-file PATH    the key file's password (first line); without it, asked on the terminal
  --json                  machine output: one JSON document
  -h, --help              this text`;

class UsageError extends Error {}

const OPTIONS = {
  rpc: { type: 'string' },
  from: { type: 'string' },
  keyfile: { type: 'string' },
  'password-file': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  type: { type: 'string' },
  desc: { type: 'string' },
  delayNum: { type: 'string' },
  p2pPort: { type: 'string' },
  rpcPort: { type: 'string' },
} as const;

type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

/** What a command has to work with. */
interface Context {
  client: ChainClient;
  values: Values;
  out: (line: string) => void;
  err: (line: string) => void;
  sender(): Promise<Sender>;
}

interface Command {
  /** positional arguments after the command's name: [required, optional] */
  args: [number, number];
  /** node-specific options it takes */
  options?: (keyof Values)[];
  run(ctx: Context, args: string[]): Promise<number>;
}

// ---- writes: send, wait, say what happened ----

/** --json's document: integers as JSON numbers (as decimal strings past 2^53, which a number would round). */
function json(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => (typeof v !== 'bigint' ? v : v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString()), 2);
}

async function write(ctx: Context, call: SystemCall, done: string): Promise<number> {
  const outcome: SystemOutcome = await (await ctx.sender()).send(call);
  const { receipt } = outcome;
  const where = `block ${fromQuantity(receipt.blockNumber)}, tx ${receipt.transactionHash}`;
  if (ctx.values.json) {
    ctx.out(json({ ok: outcome.ok, from: receipt.from, block: fromQuantity(receipt.blockNumber), tx: receipt.transactionHash, status: receipt.status, reason: outcome.reason, events: outcome.events }));
    return outcome.ok ? 0 : 1;
  }
  if (outcome.ok) {
    ctx.out(`${done} (${where})`);
    return 0;
  }
  const failing = outcome.events.find((e) => e.code !== 0n);
  ctx.err(`failed: ${outcome.reason} (${receipt.status === '0x1' ? `code ${failing?.code}` : 'status 0'}, ${where})`);
  return 1;
}

/** A call through the SDK's run-time checked encoder; a method this build's table lacks is the operator's to know, in words. */
function call(contract: SystemContractName, method: string, ...args: unknown[]): SystemCall {
  if (!hasSystemMethod(contract, method)) throw new Error(`this build of chain-node has no ${contract}.${method}`);
  return encodeSystemCall(contract, method, args);
}

// ---- arguments ----

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function address(text: string, what = 'address'): string {
  if (!ADDRESS.test(text)) throw new UsageError(`${what}: not an address (0x and 40 hex digits): ${JSON.stringify(text)}`);
  return text;
}

function integer(text: string, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(text) || Number(text) > max) throw new UsageError(`${what}: not an integer from 0 to ${max}: ${JSON.stringify(text)}`);
  return Number(text);
}

/** chain-admin, CHAIN_ADMIN, chainAdmin → CHAIN_ADMIN */
function role(text: string): RoleName {
  const name = text.replace(/([a-z])([A-Z])/g, '$1_$2').replace(/-/g, '_').toUpperCase();
  if (!(ROLES as readonly string[]).includes(name)) throw new UsageError(`unknown role ${JSON.stringify(text)}: one of ${ROLES.map((r) => r.toLowerCase().replace(/_/g, '-')).join(', ')}`);
  return name as RoleName;
}

/** CHAIN_ADMIN → ChainAdmin: the middle of Venachain's add…ByAddress / del…ByAddress */
function roleMethodName(r: RoleName): string {
  return r
    .split('_')
    .map((w) => w[0] + w.slice(1).toLowerCase())
    .join('');
}

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

// ---- role ----

const roleCommands: Record<string, Command> = {
  'set-super-admin': {
    args: [0, 0],
    async run(ctx) {
      return write(ctx, call('UserManagement', 'setSuperAdmin'), `${(await ctx.sender()).address} is super admin`);
    },
  },
  'transfer-super-admin': {
    args: [1, 0],
    async run(ctx, [to]) {
      return write(ctx, call('UserManagement', 'transferSuperAdminByAddress', address(to!)), `super admin transferred to ${to}`);
    },
  },
  add: {
    args: [2, 0],
    async run(ctx, [r, to]) {
      const name = role(r!);
      if (name === 'SUPER_ADMIN') throw new UsageError('SUPER_ADMIN is not granted: use role set-super-admin or role transfer-super-admin');
      return write(ctx, call('UserManagement', `add${roleMethodName(name)}ByAddress`, address(to!)), `${name} granted to ${to}`);
    },
  },
  remove: {
    args: [2, 0],
    async run(ctx, [r, from]) {
      const name = role(r!);
      if (name === 'SUPER_ADMIN') throw new UsageError('SUPER_ADMIN is not revoked: use role transfer-super-admin');
      return write(ctx, call('UserManagement', `del${roleMethodName(name)}ByAddress`, address(from!)), `${name} revoked from ${from}`);
    },
  },
  list: {
    args: [0, 1],
    async run(ctx, [who]) {
      if (who !== undefined) {
        const roles = await callSystem(ctx.client, call('UserManagement', 'getRolesByAddress', address(who)));
        if (ctx.values.json) ctx.out(json(roles));
        else ctx.out(`${who}: ${Array.isArray(roles) && roles.length > 0 ? roles.join(', ') : Array.isArray(roles) ? 'no roles' : roles}`);
        return 0;
      }
      const members: Record<string, unknown> = {};
      for (const r of ROLES) members[r] = await callSystem(ctx.client, call('UserManagement', 'getAddrListOfRole', r));
      if (ctx.values.json) ctx.out(json(members));
      else for (const [r, list] of Object.entries(members)) ctx.out(`${r}: ${Array.isArray(list) ? (list.length > 0 ? list.join(', ') : '-') : String(list)}`);
      return 0;
    },
  },
};

// ---- node ----

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

const nodeCommands: Record<string, Command> = {
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

// ---- param ----

function parameter(name: string) {
  const params = systemParameters();
  const wanted = name.toLowerCase();
  const p = params.find((x) => x.key.toLowerCase() === wanted || x.setter.slice(3).toLowerCase() === wanted);
  if (p === undefined) throw new UsageError(`unknown parameter ${JSON.stringify(name)}: one of ${params.map((x) => x.key).join(', ') || '(none in this build)'}`);
  return p;
}

const paramCommands: Record<string, Command> = {
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

const GROUPS: Record<string, Record<string, Command>> = { role: roleCommands, node: nodeCommands, param: paramCommands };
const NODE_OPTIONS: (keyof Values)[] = ['type', 'desc', 'delayNum', 'p2pPort', 'rpcPort'];

function clientFor(rpc: string): ChainClient {
  let url: URL;
  try {
    url = new URL(rpc);
  } catch {
    throw new UsageError(`--rpc: not a URL: ${JSON.stringify(rpc)}`);
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return ChainClient.http(rpc);
  if (url.protocol === 'ws:' || url.protocol === 'wss:') return ChainClient.ws(rpc);
  throw new UsageError(`--rpc: http(s):// or ws(s)://, not ${url.protocol}`);
}

/** fetch's "fetch failed" says nothing: the system's reason (ECONNREFUSED…) is in its cause. */
function transportReason(e: TransportError): string {
  const cause = (e.cause as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return cause?.code ?? cause?.message ?? e.message;
}

/** Runs `chain-node admin argv…`; resolves the exit code. */
export async function runAdminCommand(argv: string[], out: (line: string) => void, err: (line: string) => void): Promise<number> {
  let client: ChainClient | undefined;
  const rpcOf = (v: Values) => v.rpc ?? DEFAULT_RPC;
  let values: Values = {};
  try {
    let positionals: string[];
    try {
      ({ values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }));
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    if (values.help) {
      out(USAGE);
      return 0;
    }
    const [group, name, ...args] = positionals;
    if (group === undefined) {
      err(USAGE);
      return 2;
    }
    const commands = GROUPS[group];
    if (commands === undefined) throw new UsageError(`unknown command ${JSON.stringify(group)}: role, node or param`);
    const command = name === undefined ? undefined : commands[name];
    if (command === undefined) throw new UsageError(`${group}: ${name === undefined ? 'no command given' : `unknown command ${JSON.stringify(name)}`}: one of ${Object.keys(commands).join(', ')}`);
    const [required, optional] = command.args;
    if (args.length < required || args.length > required + optional) {
      throw new UsageError(`${group} ${name} takes ${optional === 0 ? required : `${required} to ${required + optional}`} argument(s), got ${args.length}`);
    }
    const stray = NODE_OPTIONS.find((o) => values[o] !== undefined && !command.options?.includes(o));
    if (stray !== undefined) throw new UsageError(`--${stray} is not an option of ${group} ${name}`);
    client = clientFor(rpcOf(values));
    const c = client;
    let sender: Promise<Sender> | undefined;
    return await command.run({ client: c, values, out, err, sender: () => (sender ??= senderFor(c, { from: values.from, keyfile: values.keyfile, passwordFile: values['password-file'] })) }, args);
  } catch (e) {
    if (e instanceof UsageError) {
      err(`chain-node admin: ${e.message} (chain-node admin --help lists the commands)`);
      return 2;
    }
    // the node's answer, an unreachable node, a bad file: one line, no stack
    const message =
      e instanceof TransportError ? `cannot reach the node at ${rpcOf(values)}: ${transportReason(e)}` : e instanceof RpcError ? systemErrorReason(e) : (e as Error).message;
    err(`chain-node admin: ${e instanceof CallCodecError ? 'bad argument: ' : ''}${message}`);
    return 1;
  } finally {
    await client?.close();
  }
}
