// `chain-node admin …`: the operator CLI of the system contracts, for users of Venachain's `vcl`
// (role / node / param / cns / fw ≈ vcl role / node / sysconfig / cns / fw). It talks JSON-RPC to a node (--rpc), builds
// every call from the one signature table through the client SDK (src/client/system-contracts.ts),
// sends writes as transactions (src/admin/sender.ts), waits for the receipt and says in words what
// the contract did: `node node1 added as observer (block 12, tx 0x…)`, or `failed: <the contract's
// reason>`. Exit code 0 done, 1 refused or failed (the contract, the node, a file), 2 a usage error.
// This module reads the command line and dispatches; the commands are in src/admin/.
import { parseArgs } from 'node:util';
import { ChainClient, RpcError, TransportError } from '../generated/client/index.ts';
import { systemErrorReason } from './client/system-contracts.ts';
import { CallCodecError } from './codec/venachain-call.ts';
import { senderFor, type Sender } from './admin/sender.ts';
import { OPTIONS, UsageError, type Command, type Values } from './admin/command.ts';
import { roleCommands } from './admin/role-commands.ts';
import { nodeCommands } from './admin/node-commands.ts';
import { paramCommands } from './admin/param-commands.ts';
import { cnsCommands } from './admin/cns-commands.ts';
import { fwCommands } from './admin/fw-commands.ts';
import { groupCommands } from './admin/group-commands.ts';
import { evidenceCommands } from './admin/evidence-commands.ts';
import { contractCommands } from './admin/contract-commands.ts';

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

contract names (CnsManagement):
  cns register <name> <version> <address>   register a contract you created (version x.x.x.x,
                                            higher than the name's others)
  cns redirect <name> <version>             make calls by name reach that version
  cns resolve <name> [<version>]            the address (default: the version in force)
  cns list [<name>|<address>]               registrations: all, of a name, of an address
  cns by-origin <address>                   registrations made by an account
  cns state <name>|<address>                registered or not
  cns import <file>                         importOldCnsManagerData (chain admins)
  cns call|send <name[:version]> <function> [<arg>…] [--abi FILE]
                                            a contract by its name: eth_call, or a transaction;
                                            --abi: a wasm ABI types the arguments and the answer;
                                            without, arguments go as text ("int64(7)" for Solidity)

firewalls (FirewallManagement), by the contract's creator:
  fw open <address> | fw close <address>    while open only listed callers pass
  fw add|del|set <address> accept|reject <rules>
                                            rules: caller:function|…, * for any
  fw clear <address> accept|reject          empty a list
  fw status <address> | fw export <address> the firewall (export: JSON for fw import)
  fw import <address> <file>                add the rules of an exported firewall

groups (GroupManagement):
  group create <groupID> [<creatorEnode> [<enode,…>]]   chain or group admins
  group list | group show <groupID>
  group set-bootnodes <groupID> <enode,…>   by the group's creator; also
  group add-bootnode|del-bootnode <groupID> <enode>
  group can-create                          whether --from may create groups

evidence (EvidenceManagement):
  evidence save <key> <value>               once per key (saveEvidence)
  evidence set <key> <value>                overwrites (setJsonData)
  evidence get <key>                        owner, value and block number

contract storage (ContractDataProcessor), by the creator of both:
  contract migrate <src> <dest>             copy every slot of src into dest

options:
  --rpc URL               the node's JSON-RPC endpoint, http(s):// or ws(s):// (default ${DEFAULT_RPC})
  --from ADDRESS          send from this account, unlocked on the node (default: the node's first account)
  --keyfile PATH          send from the account of this keystore v3 file, signed here
  --password-file PATH    the key file's password (first line); without it, asked on the terminal
  --json                  machine output: one JSON document
  -h, --help              this text`;

const GROUPS: Record<string, Record<string, Command>> = { role: roleCommands, node: nodeCommands, param: paramCommands, cns: cnsCommands, fw: fwCommands, group: groupCommands, evidence: evidenceCommands, contract: contractCommands };
const NODE_OPTIONS: (keyof Values)[] = ['type', 'desc', 'delayNum', 'p2pPort', 'rpcPort', 'abi'];

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
    if (commands === undefined) throw new UsageError(`unknown command ${JSON.stringify(group)}: role, node, param, cns, fw, group, evidence or contract`);
    const command = name === undefined ? undefined : commands[name];
    if (command === undefined) throw new UsageError(`${group}: ${name === undefined ? 'no command given' : `unknown command ${JSON.stringify(name)}`}: one of ${Object.keys(commands).join(', ')}`);
    const [required, optional] = command.args;
    if (args.length < required || args.length > required + optional) {
      throw new UsageError(`${group} ${name} takes ${optional === 0 ? required : optional === Number.POSITIVE_INFINITY ? `${required} or more` : `${required} to ${required + optional}`} argument(s), got ${args.length}`);
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
