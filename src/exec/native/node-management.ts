// NodeManagement (0x1000…0002): the node records, with Venachain's names, checks, return codes and
// events (core/vm/sc_node*.go). Permission subject: the transaction's origin. Records are never
// removed: "delete" is update(name, {"status":2}). The validator set of every block is read from
// these records (src/consensus/validator-set.ts).
import { implement, NativeCallError, type NativeCall, type NativeContract } from './engine.ts';
import { NODE_MANAGEMENT_ABI, SYSTEM_CALL_GAS } from '../../codec/system-contracts-abi.ts';
import { NODE_MANAGEMENT, NODE_STATUS, NODE_TYPE, type NodeRecord } from './system-state.ts';
import { nodeInfoJson, nodeUpdateJson, parseNodeInfo, parseNodeUpdate, successResult, type NodeUpdate } from './node-json.ts';
import { isPublicKey } from '../../crypto/secp256k1.ts';
import { hexToBytes } from '../../util/hex.ts';
import { isVenachainName } from './formats.ts';

/** a writer's return code on success (Venachain's addNodeSuccess / updateNodeSuccess) */
const SUCCESS = 0n;
const ZERO_ADDRESS = '0x' + '00'.repeat(20);

// Venachain's IPv4 pattern (sc_tool.go ipRegPattarn), leading zeros and all
const IPV4_PATTERN = /^(25[0-5]|2[0-4][0-9]|[0-1]?[0-9][0-9]?)(\.(25[0-5]|2[0-4][0-9]|[0-1]?[0-9][0-9]?)){3}$/;
const DESC_MAX_CHARS = 100;

/** NodeInfo's required fields (tag `required`), in struct order: zero is "not given". */
const REQUIRED: readonly (keyof NodeRecord)[] = ['name', 'status', 'externalIP', 'internalIP', 'publicKey', 'p2pPort'];

/** Fails the call unless the transaction's origin may manage nodes; the zero address is the node's own inner call. */
async function checkPermission(call: NativeCall): Promise<void> {
  if (call.origin === ZERO_ADDRESS) return;
  const roles = call.state.roles;
  if ((await roles.has(call.origin, 'CHAIN_ADMIN')) || (await roles.has(call.origin, 'NODE_ADMIN'))) return;
  throw new NativeCallError(`no permission to manage node system contract: ${call.origin} has neither CHAIN_ADMIN nor NODE_ADMIN`);
}

function statusProblem(status: number): string | undefined {
  return status === NODE_STATUS.normal || status === NODE_STATUS.deleted ? undefined : `"status" must be 1 (normal) or 2 (deleted), got ${status}`;
}

function nameProblem(name: string): string | undefined {
  return isVenachainName(name) ? undefined : `"name" must be 1 to 128 letters, digits, _ or Han characters, got ${JSON.stringify(name)}`;
}

function descProblem(desc: string): string | undefined {
  return [...desc].length > DESC_MAX_CHARS ? `"desc" must be at most ${DESC_MAX_CHARS} characters` : undefined;
}

/** A call with an argument Venachain's checks refuse (its errParamsInvalid, with the reason). */
function invalid(problem: string): NativeCallError {
  return new NativeCallError(`the parameters invalid: ${problem}`);
}

/** Why `publicKey` is no node key, or undefined: 128 hex digits (64 bytes, no 0x04 prefix) that are a secp256k1 point. */
export function publicKeyProblem(publicKey: string): string | undefined {
  if (!/^[0-9a-fA-F]*$/.test(publicKey)) return 'publicKey must be hex digits (without 0x)';
  if (publicKey.length !== 128) return `publicKey must be 128 hex digits (the 64-byte public point without 0x04), got ${publicKey.length}`;
  if (!isPublicKey(hexToBytes('0x' + publicKey))) return 'publicKey is not a point on secp256k1';
  return undefined;
}

/** A key's record, any status. Compared without case: one key written twice in two cases would be one validator twice. */
function recordWithKey(records: readonly NodeRecord[], publicKey: string): NodeRecord | undefined {
  const key = publicKey.toLowerCase();
  return records.find((r) => r.publicKey.toLowerCase() === key);
}

/** checkParamsOfAddNode's checks, in its order. */
async function addProblem(call: NativeCall, node: NodeRecord): Promise<string | undefined> {
  for (const field of REQUIRED) if (node[field] === '' || node[field] === 0) return `"${field}" is required`;
  const problem =
    statusProblem(node.status) ??
    // a node becomes a validator only through update: a record must be seen before it votes
    (node.type === NODE_TYPE.observer || node.type === NODE_TYPE.light ? undefined : `"type" must be 2 (observer) or 3 (light) when adding, got ${node.type}`) ??
    nameProblem(node.name) ??
    (['externalIP', 'internalIP'] as const).map((f) => (IPV4_PATTERN.test(node[f]) ? undefined : `"${f}" must be an IPv4 address, got ${JSON.stringify(node[f])}`)).find(Boolean) ??
    descProblem(node.desc);
  if (problem) return problem;
  const records = await call.state.nodes.all();
  if (records.some((r) => r.name === node.name)) return `node name exist: ${node.name}`;
  const holder = recordWithKey(records, node.publicKey);
  return publicKeyProblem(node.publicKey) ?? (holder && `publicKey exist: node ${holder.name} has it`);
}

/** checkParamsOfUpdateNodeAndReturnUpdatedNode's checks, in its order. */
function updateProblem(name: string, node: NodeRecord | undefined, update: NodeUpdate): string | undefined {
  return (
    nameProblem(name) ??
    (node === undefined ? `node not found: ${name}` : undefined) ??
    (update.status === undefined ? undefined : statusProblem(update.status)) ??
    (update.type === undefined || (Object.values(NODE_TYPE) as number[]).includes(update.type) ? undefined : `"type" must be 1 (consensus), 2 (observer) or 3 (light), got ${update.type}`) ??
    (update.desc === '' ? '"desc" cannot be an empty string' : update.desc === undefined ? undefined : descProblem(update.desc))
  );
}

async function addNode(call: NativeCall, node: NodeRecord): Promise<void> {
  await checkPermission(call);
  const problem = await addProblem(call, node);
  if (problem) throw invalid(problem);
  await call.state.nodes.put(node);
  call.emit('Notify', SUCCESS, `add node success. node:${nodeInfoJson(node)}`);
}

/** isMatch: every non-zero field of the query equals the record's; a query without one matches nothing. */
function matches(record: NodeRecord, query: NodeRecord): boolean {
  const given = (Object.keys(query) as (keyof NodeRecord)[]).filter((k) => query[k] !== '' && query[k] !== 0 && query[k] !== undefined);
  return given.length > 0 && given.every((k) => (record[k] ?? 0) === query[k]);
}

/** NodeManagement's error for a query that found nothing: the call fails (getNodes, the enode lists). */
function notFound(): never {
  throw new NativeCallError('node not found');
}

/** The enode list items Venachain answers (eNode: untagged Go fields). */
function enodes(records: readonly NodeRecord[]): string {
  return JSON.stringify(records.map((r) => ({ PublicKey: r.publicKey, IP: r.externalIP, Port: r.p2pPort })));
}

const listJson = (records: readonly NodeRecord[]) => `[${records.map(nodeInfoJson).join(',')}]`;

export const nodeManagement: NativeContract = {
  name: 'NodeManagement',
  address: NODE_MANAGEMENT,
  gas: SYSTEM_CALL_GAS,
  methods: implement(NODE_MANAGEMENT_ABI, {
    async add(call, nodeJson) {
      await addNode(call, parseNodeInfo('NodeManagement.add: argument 1', nodeJson));
      return SUCCESS;
    },
    async update(call, name, updateJson) {
      const update = parseNodeUpdate('NodeManagement.update: argument 2', updateJson);
      await checkPermission(call);
      const node = await call.state.nodes.get(name);
      const problem = updateProblem(name, node, update);
      if (problem) throw invalid(problem);
      await call.state.nodes.put({ ...node!, ...update });
      call.emit('Notify', SUCCESS, `update node success. info:${nodeUpdateJson(update)}`);
      return SUCCESS;
    },
    async getAllNodes(call) {
      return successResult(listJson(await call.state.nodes.all()));
    },
    async getNodes(call, queryJson) {
      const query = parseNodeInfo('NodeManagement.getNodes: argument 1', queryJson);
      const found = (await call.state.nodes.all()).filter((r) => matches(r, query));
      return found.length > 0 ? successResult(listJson(found)) : notFound();
    },
    async nodesNum(call, queryJson) {
      const query = parseNodeInfo('NodeManagement.nodesNum: argument 1', queryJson);
      return BigInt((await call.state.nodes.all()).filter((r) => matches(r, query)).length);
    },
    async getNormalEnodeNodes(call) {
      const found = (await call.state.nodes.all()).filter((r) => r.status === NODE_STATUS.normal);
      return found.length > 0 ? successResult(enodes(found)) : notFound();
    },
    async getDeletedEnodeNodes(call) {
      const found = (await call.state.nodes.all()).filter((r) => r.status === NODE_STATUS.deleted);
      return found.length > 0 ? successResult(enodes(found)) : notFound();
    },
    async validJoinNode(call, publicKey) {
      // p2p admission asks this of any peer: a malformed key is simply not known (0), not an error
      if (publicKeyProblem(publicKey)) return 0n;
      return recordWithKey(await call.state.nodes.all(), publicKey) ? 1n : 0n;
    },
    async importOldNodesData(call, data) {
      let items: unknown;
      try {
        items = JSON.parse(data);
      } catch (e) {
        throw new NativeCallError(`NodeManagement.importOldNodesData: old nodes data unmarshal fail: ${(e as Error).message}`);
      }
      if (items !== null && !Array.isArray(items)) throw new NativeCallError('NodeManagement.importOldNodesData: old nodes data unmarshal fail: not a JSON array of node records');
      for (const [i, item] of ((items as unknown[] | null) ?? []).entries()) await addNode(call, parseNodeInfo(`NodeManagement.importOldNodesData: record ${i + 1}`, item));
      call.emit('Notify', SUCCESS, 'import old nodes data success');
      return SUCCESS;
    },
  }),
};
