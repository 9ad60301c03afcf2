// GroupManagement (0x1000…0006): groups of nodes and their boot nodes, with Venachain's names,
// JSON and permissions (core/vm/sc_group_manager.go). The permission subject is the immediate
// caller: creating a group needs CHAIN_ADMIN or GROUP_ADMIN, changing its boot nodes being its
// creator. A failure throws (status 0, nothing kept, the message is the revert reason); Venachain
// emits events only for failures, which revert here, so no method logs.
import { toChecksumAddress } from '@ethereumjs/util';
import { implement, NativeCallError, type NativeCall, type NativeContract } from './engine.ts';
import { GROUP_MANAGEMENT_ABI, SYSTEM_CALL_GAS } from '../../codec/system-contracts-abi.ts';
import { GROUP_MANAGEMENT, type GroupRecord } from './system-state.ts';

const SUCCESS = 0n;
const NO_PERMISSION = 'No Permission ';
const REPEATED_ID = 'Repeated GroupID ';

async function mayCreate(call: NativeCall): Promise<boolean> {
  const { roles } = call.state;
  return (await roles.has(call.caller, 'CHAIN_ADMIN')) || (await roles.has(call.caller, 'GROUP_ADMIN'));
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new NativeCallError(`${where} is not JSON: ${(e as Error).message}`);
  }
}

function stringList(v: unknown, where: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new NativeCallError(`${where} must be a JSON list of strings`);
  return v as string[];
}

/** createGroup's argument as Go's json.Unmarshal reads a GroupInfo: absent fields are zero; the creator is always the caller. */
function parseGroup(text: string, creator: string): GroupRecord {
  const where = 'GroupManagement.createGroup: argument 1 (groupInfo)';
  const json = parseJson(text, where);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new NativeCallError(`${where} must be a JSON object {groupID, creatorEnode, bootNodes}`);
  const { groupID = 0, creatorEnode = '', bootNodes } = json as Record<string, unknown>;
  if (typeof groupID !== 'number' || !Number.isSafeInteger(groupID) || groupID < 0) throw new NativeCallError(`${where}: groupID must be a non-negative integer, got ${JSON.stringify(groupID)}`);
  if (typeof creatorEnode !== 'string') throw new NativeCallError(`${where}: creatorEnode must be a string`);
  return { creator, groupID, creatorEnode, bootNodes: stringList(bootNodes, `${where}: bootNodes`) };
}

function idOf(id: bigint): number {
  if (id > BigInt(Number.MAX_SAFE_INTEGER)) throw new NativeCallError(`Group Not Found: no group ${id}`);
  return Number(id);
}

/** The group `id`, which the caller must have created. */
async function ownGroup(call: NativeCall, id: bigint): Promise<GroupRecord> {
  const group = await call.state.groups.get(idOf(id));
  if (group === undefined) throw new NativeCallError(`Group Not Found: no group ${id}`);
  if (group.creator !== toChecksumAddress(call.caller)) throw new NativeCallError(`${NO_PERMISSION}: ${call.caller} did not create group ${id}`);
  return group;
}

export const groupManagement: NativeContract = {
  name: 'GroupManagement',
  address: GROUP_MANAGEMENT,
  gas: SYSTEM_CALL_GAS,
  methods: implement(GROUP_MANAGEMENT_ABI, {
    hasGroupOpPermission: async (call) => ((await mayCreate(call)) ? 1n : 0n),
    async createGroup(call, groupInfo) {
      if (!(await mayCreate(call))) throw new NativeCallError(`${NO_PERMISSION}: creating a group needs CHAIN_ADMIN or GROUP_ADMIN`);
      const group = parseGroup(groupInfo, toChecksumAddress(call.caller));
      if ((await call.state.groups.get(group.groupID)) !== undefined) throw new NativeCallError(`${REPEATED_ID}: ${group.groupID}`);
      await call.state.groups.put(group);
      return SUCCESS;
    },
    // Go marshals an empty list as null
    getAllGroups: async (call) => {
      const groups = await call.state.groups.all();
      return groups.length === 0 ? 'null' : JSON.stringify(groups);
    },
    async getGroupByID(call, id) {
      const group = await call.state.groups.get(idOf(id));
      if (group === undefined) throw new NativeCallError(`Group Not Found: no group ${id}`);
      return JSON.stringify(group);
    },
    async updateBootNodes(call, id, nodes) {
      const group = await ownGroup(call, id);
      const bootNodes = stringList(parseJson(nodes, 'GroupManagement.updateBootNodes: argument 2 (nodes)'), 'GroupManagement.updateBootNodes: argument 2 (nodes)');
      await call.state.groups.put({ ...group, bootNodes });
      return SUCCESS;
    },
    async addBootNode(call, id, node) {
      const group = await ownGroup(call, id);
      // Venachain answers -1, not a failure, for a node the group already has
      if (group.bootNodes.includes(node)) return -1n;
      await call.state.groups.put({ ...group, bootNodes: [...group.bootNodes, node] });
      return SUCCESS;
    },
    async delBootNode(call, id, node) {
      const group = await ownGroup(call, id);
      const at = group.bootNodes.lastIndexOf(node);
      if (at >= 0) await call.state.groups.put({ ...group, bootNodes: group.bootNodes.filter((_, i) => i !== at) });
      return SUCCESS;
    },
  }),
};
