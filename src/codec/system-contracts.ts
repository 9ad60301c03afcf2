// The system contracts as a caller sees them: their addresses and the records they answer in JSON.
// Shared by the native contracts (src/exec/native) and the client SDK, which must not import the node.

export const USER_MANAGEMENT = '0x1000000000000000000000000000000000000001';
export const NODE_MANAGEMENT = '0x1000000000000000000000000000000000000002';
export const PARAMETER_MANAGEMENT = '0x1000000000000000000000000000000000000004';

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
