// The system contracts as a caller sees them: their addresses and the records they answer in JSON.
// Shared by the native contracts (src/exec/native) and the client SDK, which must not import the node.

export const USER_MANAGEMENT = '0x1000000000000000000000000000000000000001';
export const NODE_MANAGEMENT = '0x1000000000000000000000000000000000000002';
export const PARAMETER_MANAGEMENT = '0x1000000000000000000000000000000000000004';
export const FIREWALL_MANAGEMENT = '0x1000000000000000000000000000000000000005';
/** Venachain's CNS (it takes the address Prague gives BLS12_MAP_FP2_TO_G2: G9) */
export const CNS_MANAGEMENT = '0x0000000000000000000000000000000000000011';
/** calls by name (Venachain's CnsInvokeAddress): RLP([txType, "name[:version]", funcName, args…]) */
export const CNS_INVOKE = '0x0000000000000000000000000000000000000000';
export const GROUP_MANAGEMENT = '0x1000000000000000000000000000000000000006';
export const EVIDENCE_MANAGEMENT = '0x0000000000000000000000000000000000000099';
export const CONTRACT_DATA_PROCESSOR = '0x1000000000000000000000000000000000000007';

/** Venachain's roles: bit i of an address' role mask (core/vm/sc_user_role.go). */
export const ROLES = ['SUPER_ADMIN', 'CHAIN_ADMIN', 'GROUP_ADMIN', 'NODE_ADMIN', 'CONTRACT_ADMIN', 'CONTRACT_DEPLOYER'] as const;
export type RoleName = (typeof ROLES)[number];

/**
 * A user record as UserManagement keeps and answers it: Venachain's UserInfo JSON, keys in its
 * order, the optional ones absent when empty (Go's omitempty). Addresses are lowercase 0x hex.
 */
export interface UserRecord {
  address: string;
  /** who added the user (the immediate caller of addUser) */
  authorizer: string;
  name: string;
  /** JSON text of { email?, organization?, phone? } */
  descInfo?: string;
  version?: number;
}

/** A node record as NodeManagement keeps and answers it (Venachain's NodeInfo JSON). */
export interface NodeRecord {
  name: string;
  owner: string;
  desc: string;
  /** 1 consensus (validator), 2 observer, 3 light */
  type: number;
  /** 1 normal, 2 deleted */
  status: number;
  externalIP: string;
  internalIP: string;
  /** 128 hex digits: the node key's public point without the 0x04 prefix */
  publicKey: string;
  rpcPort: number;
  p2pPort: number;
  /** the block from which (after which) a consensus record counts as a validator; 0 = at once */
  delayNum?: number;
}

/** A registration as CNS keeps and answers it (Venachain's ContractInfo JSON). Addresses are lowercase 0x hex. */
export interface CnsRecord {
  name: string;
  version: string;
  address: string;
  /** the transaction origin that registered it */
  origin: string;
  /** the block number it was registered in */
  create_time: number;
}

/** A group as GroupManagement keeps and answers it (Venachain's GroupInfo JSON; creator EIP-55 hex, as Go's Address.String()). */
export interface GroupRecord {
  creator: string;
  groupID: number;
  creatorEnode: string;
  bootNodes: string[];
}

/** One piece of evidence (Venachain's Evidence: who saved it, its value, the block number it was saved in). Owner lowercase 0x hex. */
export interface EvidenceRecord {
  Owner: string;
  EvidenceValue: string;
  Timestamp: number;
}
