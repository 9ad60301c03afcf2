// The validator set of a block, from NodeManagement's records in the state after its parent
// (Venachain's iris snapshot, consensus/iris/backend/snapshot.go): the set of block N is the records
// with status 1 (normal), type 1 (consensus) and delayNum ≤ N−1 in the state after block N−1. A
// record added or promoted in block M thus validates from block M+1, or from delayNum+1 if later.
// An empty result keeps the parent's set (a chain never loses all its validators by a mistake),
// and a genesis-file chain, which starts with nothing registered, keeps its firstValidatorNode.
import type { Header } from '../chain/header.ts';
import type { StateView } from '../state/reader.ts';
import { NODE_MANAGEMENT, NODE_STATUS, NODE_TYPE, systemStateAt, systemStorageRoot, type NodeRecord } from '../exec/native/system-state.ts';
import { publicKeyProblem } from '../exec/native/node-management.ts';
import { addressOfPublicKey } from '../crypto/secp256k1.ts';
import { hexToBytes } from '../util/hex.ts';
import { decodeExtra } from '../chain/istanbul-extra.ts';


/**
 * The records last read, by NodeManagement's storage root. The sealer asks for every block and few
 * blocks touch the records: reading them through the trie took 0.73 ms a block (a dev chain's one
 * record is 13 slots), the account alone 0.03 ms (measured, blockRules at a dev chain's head).
 * Keyed by content, so nodes sharing the process share it safely.
 */
let lastRead: { storageRoot: string; nodes: ReadNode[] } | undefined;

/** A record with its validator address, worked out once per read (undefined: its key is no curve point, skipped as Venachain does). */
interface ReadNode {
  record: NodeRecord;
  address: Uint8Array | undefined;
}

async function nodeRecords(view: StateView): Promise<ReadNode[]> {
  const storageRoot = await systemStorageRoot(view, NODE_MANAGEMENT);
  if (storageRoot === '') return [];
  if (lastRead?.storageRoot !== storageRoot) {
    const records = await systemStateAt(view).nodes.all();
    lastRead = { storageRoot, nodes: records.map((record) => ({ record, address: publicKeyProblem(record.publicKey) === undefined ? addressOfPublicKey(hexToBytes('0x' + record.publicKey)) : undefined })) };
  }
  return lastRead.nodes;
}

/** Validator addresses (keccak256(publicKey)[12:]) of the records counting as consensus nodes at height `number` (GetConsensusNodesFilterDelay), in name order. */
async function consensusAddresses(view: StateView, number: bigint): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (const { record: r, address } of await nodeRecords(view)) {
    if (address !== undefined && r.status === NODE_STATUS.normal && r.type === NODE_TYPE.consensus && BigInt(r.delayNum ?? 0) <= number) out.push(address);
  }
  return out;
}

/** iris_candidates: the addresses of the consensus nodes at height `number`, in name order, from the state after that block. */
export async function candidatesAt(view: StateView, number: bigint): Promise<Uint8Array[]> {
  return consensusAddresses(view, number);
}

/**
 * The validator set of the block after `parent`, from `view` = the state after `parent`:
 * byte-sorted and without repeats, the order the istanbul extra carries (Snapshot.validators()).
 */
export async function validatorsAfter(view: StateView, parent: Header): Promise<Uint8Array[]> {
  const unique = new Map((await consensusAddresses(view, parent.number)).map((a) => [Buffer.from(a).toString('hex'), a]));
  if (unique.size === 0) return decodeExtra(parent.extraData).validators;
  return [...unique.values()].sort((a, b) => Buffer.compare(a, b));
}
