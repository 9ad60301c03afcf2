// Where the system contracts keep their state, and the typed views every reader shares: the
// contracts themselves (writing, inside the EVM), the node (validator set, parameters, deploy
// permission — reading at a state root) and the dev genesis (writing into memory). One layout, one
// module: a key spelled twice would be a state fork.
import { bytesToHex, hexToBytes } from '../../util/hex.ts';
import { MemorySlots, SlotStore, TextList, ViewSlots, type Slots } from './slot-store.ts';
import { CNS_INVOKE, CNS_MANAGEMENT, CONTRACT_DATA_PROCESSOR, EVIDENCE_MANAGEMENT, FIREWALL_MANAGEMENT, GROUP_MANAGEMENT, NODE_MANAGEMENT, PARAMETER_MANAGEMENT, ROLES, USER_MANAGEMENT, type CnsRecord, type EvidenceRecord, type GroupRecord, type NodeRecord, type RoleName, type UserRecord } from '../../codec/system-contracts.ts';

export { CNS_INVOKE, CNS_MANAGEMENT, CONTRACT_DATA_PROCESSOR, EVIDENCE_MANAGEMENT, FIREWALL_MANAGEMENT, GROUP_MANAGEMENT, NODE_MANAGEMENT, PARAMETER_MANAGEMENT, ROLES, USER_MANAGEMENT, type CnsRecord, type EvidenceRecord, type GroupRecord, type NodeRecord, type RoleName, type UserRecord };

export const SYSTEM_CONTRACTS: readonly string[] = [USER_MANAGEMENT, NODE_MANAGEMENT, PARAMETER_MANAGEMENT, FIREWALL_MANAGEMENT, CNS_MANAGEMENT, CNS_INVOKE, GROUP_MANAGEMENT, EVIDENCE_MANAGEMENT, CONTRACT_DATA_PROCESSOR];
const SYSTEM_BYTES = SYSTEM_CONTRACTS.map(hexToBytes);

/** Whether `address` (20 bytes) is a system contract's. */
export function isSystemContract(address: Uint8Array): boolean {
  // all start 0x10 or 0x00 and end 0x00…0x99: one byte rules out almost every address
  if (address[0] !== 0x10 && address[0] !== 0x00) return false;
  return SYSTEM_BYTES.some((a) => Buffer.compare(a, address) === 0);
}

// ---- UserManagement: roles ----

export function roleBit(role: RoleName): number {
  return 1 << ROLES.indexOf(role);
}

/** Roles and their members in UserManagement's storage. Addresses are lowercase 0x hex. */
export class Roles {
  constructor(readonly store: SlotStore) {}

  async mask(address: string): Promise<number> {
    return (await this.store.getJson<number>(`role:${address.toLowerCase()}`)) ?? 0;
  }

  async has(address: string, role: RoleName): Promise<boolean> {
    return ((await this.mask(address)) & roleBit(role)) !== 0;
  }

  async names(address: string): Promise<RoleName[]> {
    const mask = await this.mask(address);
    return ROLES.filter((r) => (mask & roleBit(r)) !== 0);
  }

  /** The addresses holding `role`, in the order they were granted it. */
  async members(role: RoleName): Promise<string[]> {
    return this.memberList(role).all();
  }

  async grant(address: string, role: RoleName): Promise<void> {
    const a = address.toLowerCase();
    const mask = await this.mask(a);
    if ((mask & roleBit(role)) !== 0) return;
    await this.store.putJson(`role:${a}`, mask | roleBit(role));
    await this.memberList(role).push(a);
  }

  async revoke(address: string, role: RoleName): Promise<void> {
    const a = address.toLowerCase();
    const mask = await this.mask(a);
    if ((mask & roleBit(role)) === 0) return;
    const rest = mask & ~roleBit(role);
    await this.store.putJson(`role:${a}`, rest === 0 ? undefined : rest);
    await this.memberList(role).remove(a);
  }

  private memberList(role: RoleName): TextList {
    return new TextList(this.store, `roleMembers:${role}`);
  }
}

// ---- UserManagement: users ----

/** Users in UserManagement's storage, by address and by name. Records are never removed. */
export class Users {
  constructor(readonly store: SlotStore) {}

  async get(address: string): Promise<UserRecord | undefined> {
    return this.store.getJson<UserRecord>(`user:${address.toLowerCase()}`);
  }

  /** the address of the user named `name` */
  async addressOf(name: string): Promise<string | undefined> {
    return this.store.getText(`userName:${name}`);
  }

  /** every record, in the order they were added */
  async all(): Promise<UserRecord[]> {
    const out: UserRecord[] = [];
    for (const address of await this.list.all()) out.push((await this.get(address))!);
    return out;
  }

  /** Writes a record, new or changed (its address and name never change). */
  async put(record: UserRecord): Promise<void> {
    const a = record.address.toLowerCase();
    if ((await this.get(a)) === undefined) {
      await this.list.push(a);
      await this.store.putText(`userName:${record.name}`, a);
    }
    await this.store.putJson(`user:${a}`, record);
  }

  /** the users' addresses in the order they were added */
  private get list(): TextList {
    return new TextList(this.store, 'users');
  }
}

// ---- NodeManagement: node records ----

export const NODE_TYPE = { consensus: 1, observer: 2, light: 3 } as const;
export const NODE_STATUS = { normal: 1, deleted: 2 } as const;

/** Node records in NodeManagement's storage, by name. Records are never removed ("deleted" is status 2). */
export class Nodes {
  constructor(readonly store: SlotStore) {}

  /** every record's name, sorted (Venachain's order for every listing) */
  async names(): Promise<string[]> {
    return (await this.store.getJson<string[]>('nodes:names')) ?? [];
  }

  async get(name: string): Promise<NodeRecord | undefined> {
    return this.store.getJson<NodeRecord>(`node:${name}`);
  }

  /** every record, in name order */
  async all(): Promise<NodeRecord[]> {
    const out: NodeRecord[] = [];
    for (const name of await this.names()) out.push((await this.get(name))!);
    return out;
  }

  /** Writes a record (new or changed). */
  async put(record: NodeRecord): Promise<void> {
    const names = await this.names();
    // Go's sort.Strings: byte order of the UTF-8 text (JS's default sort compares UTF-16 units, which differs past U+FFFF)
    if (!names.includes(record.name)) await this.store.putJson('nodes:names', [...names, record.name].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    await this.store.putJson(`node:${record.name}`, record);
  }
}

// ---- ParameterManagement: chain parameters ----

/** Venachain's predefined parameter keys (core/vm/sc_param_manager.go); any other key is a free string parameter. */
export const PARAM_KEYS = {
  txGasLimit: 'TxGasLimit',
  blockGasLimit: 'BlockGasLimit',
  isProduceEmptyBlock: 'IsProduceEmptyBlock',
  isCheckContractDeployPermission: 'IsCheckContractDeployPermission',
  isTxUseGas: 'IsTxUseGas',
  isApproveDeployedContract: 'IsApproveDeployedContract',
  isBlockUseTrieHash: 'IsBlockUseTrieHash',
  isUseDAG: 'IsUseDAG',
  gasContractName: 'GasContractName',
  vrfParams: 'VRFParams',
} as const;

/** Chain parameters in ParameterManagement's storage; a parameter never set reads undefined (its default applies). */
export class Params {
  constructor(readonly store: SlotStore) {}

  async get(key: string): Promise<unknown> {
    return this.store.getJson<unknown>(`param:${key}`);
  }

  /** An integer parameter (stored as a JSON number: every predefined one is below 2^53). */
  async getInt(key: string): Promise<bigint | undefined> {
    const v = await this.get(key);
    return typeof v === 'number' ? BigInt(v) : undefined;
  }

  async set(key: string, value: unknown): Promise<void> {
    await this.store.putJson(`param:${key}`, value);
  }
}

// ---- CnsManagement: contract names ----

/** Registrations in CNS' storage: every one in order (by index), each name's versions, each name's current version. */
export class CnsRegistry {
  constructor(readonly store: SlotStore) {}

  private get keys(): TextList {
    return new TextList(this.store, 'cns:keys');
  }

  private versionList(name: string): TextList {
    return new TextList(this.store, `cns:versions:${name}`);
  }

  get(name: string, version: string): Promise<CnsRecord | undefined> {
    return this.store.getJson<CnsRecord>(`cns:record:${name}:${version}`);
  }

  total(): Promise<number> {
    return this.keys.length();
  }

  /** the registrations from index `from` up to (not including) `to`, in registration order */
  async range(from: number, to: number): Promise<CnsRecord[]> {
    const out: CnsRecord[] = [];
    for (let i = from; i < to; i++) {
      const key = (await this.store.getText(`cns:keys#${i}`))!;
      out.push((await this.store.getJson<CnsRecord>(`cns:record:${key}`))!);
    }
    return out;
  }

  async all(): Promise<CnsRecord[]> {
    return this.range(0, await this.total());
  }

  /** a name's versions in registration order */
  versions(name: string): Promise<string[]> {
    return this.versionList(name).all();
  }

  /** Writes a registration; a name and version registered before is overwritten in place. */
  async put(record: CnsRecord): Promise<void> {
    const key = `${record.name}:${record.version}`;
    if ((await this.get(record.name, record.version)) === undefined) {
      await this.keys.push(key);
      await this.versionList(record.name).push(record.version);
    }
    await this.store.putJson(`cns:record:${key}`, record);
  }

  /** the version calls by name without one reach; undefined before the name's first registration */
  current(name: string): Promise<string | undefined> {
    return this.store.getText(`cns:current:${name}`);
  }

  setCurrent(name: string, version: string): Promise<void> {
    return this.store.putText(`cns:current:${name}`, version);
  }
}

// ---- FirewallManagement: each contract's firewall ----

/** Venachain's wildcard address in a firewall rule ("*"). */
export const FW_ANY_ADDRESS = '0x' + 'f'.repeat(40);

/** One rule: a caller (or FW_ANY_ADDRESS) and a function name (or "*"). */
export interface FwRule {
  address: string;
  funcName: string;
}

/** A contract's firewall: open or not, and its accept and reject rules in the order they were added. */
export interface FwState {
  active: boolean;
  accept: FwRule[];
  reject: FwRule[];
}

/** Firewalls in FirewallManagement's storage, by contract address. A contract never given one has none (closed, no rules). */
export class Firewalls {
  constructor(readonly store: SlotStore) {}

  async get(contract: string): Promise<FwState> {
    return (await this.store.getJson<FwState>(`fw:${contract.toLowerCase()}`)) ?? { active: false, accept: [], reject: [] };
  }

  put(contract: string, state: FwState): Promise<void> {
    const empty = !state.active && state.accept.length === 0 && state.reject.length === 0;
    return this.store.putJson(`fw:${contract.toLowerCase()}`, empty ? undefined : state);
  }
}

// ---- GroupManagement: groups and their boot nodes ----


/** Groups in GroupManagement's storage: each by its id, and the ids in creation order. */
export class Groups {
  constructor(readonly store: SlotStore) {}

  private get ids(): TextList {
    return new TextList(this.store, 'group:ids');
  }

  get(id: number): Promise<GroupRecord | undefined> {
    return this.store.getJson<GroupRecord>(`group:${id}`);
  }

  async all(): Promise<GroupRecord[]> {
    const out: GroupRecord[] = [];
    for (const id of await this.ids.all()) out.push((await this.get(Number(id)))!);
    return out;
  }

  /** Writes a group; a new id joins the list. */
  async put(group: GroupRecord): Promise<void> {
    if ((await this.get(group.groupID)) === undefined) await this.ids.push(String(group.groupID));
    await this.store.putJson(`group:${group.groupID}`, group);
  }
}

// ---- EvidenceManagement: evidence by key ----


export class EvidenceStore {
  constructor(readonly store: SlotStore) {}

  get(key: string): Promise<EvidenceRecord | undefined> {
    return this.store.getJson<EvidenceRecord>(`evidence:${key}`);
  }

  put(key: string, record: EvidenceRecord): Promise<void> {
    return this.store.putJson(`evidence:${key}`, record);
  }
}

/** The system contracts' state over slots of each account (a state view, an EVM, a genesis being built). */
export interface SystemState {
  roles: Roles;
  users: Users;
  nodes: Nodes;
  params: Params;
  cns: CnsRegistry;
  firewalls: Firewalls;
  groups: Groups;
  evidence: EvidenceStore;
}

export function systemState(slotsOf: (address: string) => Slots): SystemState {
  return {
    roles: new Roles(new SlotStore(slotsOf(USER_MANAGEMENT))),
    users: new Users(new SlotStore(slotsOf(USER_MANAGEMENT))),
    nodes: new Nodes(new SlotStore(slotsOf(NODE_MANAGEMENT))),
    params: new Params(new SlotStore(slotsOf(PARAMETER_MANAGEMENT))),
    cns: new CnsRegistry(new SlotStore(slotsOf(CNS_MANAGEMENT))),
    firewalls: new Firewalls(new SlotStore(slotsOf(FIREWALL_MANAGEMENT))),
    groups: new Groups(new SlotStore(slotsOf(GROUP_MANAGEMENT))),
    evidence: new EvidenceStore(new SlotStore(slotsOf(EVIDENCE_MANAGEMENT))),
  };
}

/**
 * A system contract's storage root at a state view, as hex ('' while the account does not exist):
 * its state moves exactly when this does, so readers that ask every block remember by it.
 */
export async function systemStorageRoot(view: { getAccount(address: Uint8Array): Promise<{ storageRoot: Uint8Array } | undefined> }, address: string): Promise<string> {
  const account = await view.getAccount(hexToBytes(address));
  return account === undefined ? '' : bytesToHex(account.storageRoot);
}

/** The system contracts' state at a state root, read-only (the node's own reads). */
export function systemStateAt(view: { getStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> }): SystemState {
  return systemState((address) => new ViewSlots(view, hexToBytes(address)));
}

/**
 * Genesis `alloc` entries holding the system contracts' state that `write` makes (their storage,
 * and nonce 1 so no rule treats the accounts as empty): a chain that starts governed.
 */
export async function systemGenesisAlloc(write: (state: SystemState) => Promise<void>): Promise<Record<string, { nonce: string; storage: Record<string, string> }>> {
  const slots = new Map<string, MemorySlots>();
  await write(
    systemState((address) => {
      let s = slots.get(address);
      if (s === undefined) slots.set(address, (s = new MemorySlots()));
      return s;
    }),
  );
  return Object.fromEntries([...slots].map(([address, s]) => [address, { nonce: '1', storage: s.toAlloc() }]));
}
