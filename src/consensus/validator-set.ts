// The validator set of a block, from NodeManagement's records in the state after its parent
// (Venachain's iris snapshot, consensus/iris/backend/snapshot.go): the set of block N is the records
// with status 1 (normal), type 1 (consensus) and delayNum ≤ N−1 in the state after block N−1. A
// record added or promoted in block M thus validates from block M+1, or from delayNum+1 if later.
// An empty result keeps the parent's set (a chain never loses all its validators by a mistake),
// and a genesis-file chain, which starts with nothing registered, keeps its firstValidatorNode.
import type { Header } from '../chain/header.ts';
import type { NodeRecord, SystemState } from '../exec/native/system-state.ts';
import { NODE_STATUS, NODE_TYPE } from '../exec/native/system-state.ts';
import { addressOfPublicKey, isPublicKey } from '../crypto/secp256k1.ts';
import { hexToBytes } from '../util/hex.ts';
import { decodeExtra } from './istanbul-extra.ts';

/** The records counting as consensus nodes at height `number` (GetConsensusNodesFilterDelay), in name order. */
async function consensusNodes(state: SystemState, number: bigint): Promise<NodeRecord[]> {
  return (await state.nodes.all()).filter((r) => r.status === NODE_STATUS.normal && r.type === NODE_TYPE.consensus && BigInt(r.delayNum ?? 0) <= number);
}

/** Validator addresses of records (keccak256(publicKey)[12:]); a key that is no curve point is skipped, as Venachain does. */
function addresses(records: readonly NodeRecord[]): Uint8Array[] {
  return records.filter((r) => /^[0-9a-fA-F]{128}$/.test(r.publicKey) && isPublicKey(hexToBytes('0x' + r.publicKey))).map((r) => addressOfPublicKey(hexToBytes('0x' + r.publicKey)));
}

/** iris_candidates: the addresses of the consensus nodes at height `number`, in name order, from the state after that block. */
export async function candidatesAt(state: SystemState, number: bigint): Promise<Uint8Array[]> {
  return addresses(await consensusNodes(state, number));
}

/**
 * The validator set of the block after `parent`, from `state` = the state after `parent`:
 * byte-sorted and without repeats, the order the istanbul extra carries (Snapshot.validators()).
 */
export async function validatorsAfter(state: SystemState, parent: Header): Promise<Uint8Array[]> {
  const unique = new Map(addresses(await consensusNodes(state, parent.number)).map((a) => [Buffer.from(a).toString('hex'), a]));
  if (unique.size === 0) return decodeExtra(parent.extraData).validators;
  return [...unique.values()].sort((a, b) => Buffer.compare(a, b));
}
