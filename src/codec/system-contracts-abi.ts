// The system contracts' method signatures: argument types in order and what each returns. One
// table read by the native contracts (which implement exactly these), the operator CLI and the
// client SDK (which encode calls and decode answers by them). Names, argument order and types are
// Venachain's (core/vm/sc_*_wrapper.go / sc_*_manager.go export tables).
import type { ParamType, ReturnKind } from './venachain-call.ts';

export interface MethodSignature {
  readonly params: readonly ParamType[];
  readonly returns: ReturnKind;
}

export type ContractAbi = Readonly<Record<string, MethodSignature>>;

/** The TypeScript type an argument of `T` is given as, and decoded to. */
export type ArgValue<T extends ParamType> = T extends 'string' | 'address' ? string : T extends 'json' ? unknown : bigint;

type ArgValues<P extends readonly ParamType[]> = { -readonly [K in keyof P]: P[K] extends ParamType ? ArgValue<P[K]> : never };

/** A method's arguments as a tuple. */
export type ArgsOf<S extends MethodSignature> = ArgValues<S['params']>;

/** A method's result. */
export type ResultOf<S extends MethodSignature> = S['returns'] extends 'int' ? bigint : string;

/** Venachain's flat gas of every system contract method (params: UserManagementGas, SCNodeGas, ParamManagerGas). */
export const SYSTEM_CALL_GAS = 80_000n;

// ---- UserManagement (0x1000…0001) ----
export const USER_MANAGEMENT_ABI = {
  setSuperAdmin: { params: [], returns: 'int' },
  transferSuperAdminByAddress: { params: ['address'], returns: 'int' },
  transferSuperAdminByName: { params: ['string'], returns: 'int' },
  addChainAdminByAddress: { params: ['address'], returns: 'int' },
  addChainAdminByName: { params: ['string'], returns: 'int' },
  addGroupAdminByAddress: { params: ['address'], returns: 'int' },
  addGroupAdminByName: { params: ['string'], returns: 'int' },
  addNodeAdminByAddress: { params: ['address'], returns: 'int' },
  addNodeAdminByName: { params: ['string'], returns: 'int' },
  addContractAdminByAddress: { params: ['address'], returns: 'int' },
  addContractAdminByName: { params: ['string'], returns: 'int' },
  addContractDeployerByAddress: { params: ['address'], returns: 'int' },
  addContractDeployerByName: { params: ['string'], returns: 'int' },
  delChainAdminByAddress: { params: ['address'], returns: 'int' },
  delChainAdminByName: { params: ['string'], returns: 'int' },
  delGroupAdminByAddress: { params: ['address'], returns: 'int' },
  delGroupAdminByName: { params: ['string'], returns: 'int' },
  delNodeAdminByAddress: { params: ['address'], returns: 'int' },
  delNodeAdminByName: { params: ['string'], returns: 'int' },
  delContractAdminByAddress: { params: ['address'], returns: 'int' },
  delContractAdminByName: { params: ['string'], returns: 'int' },
  delContractDeployerByAddress: { params: ['address'], returns: 'int' },
  delContractDeployerByName: { params: ['string'], returns: 'int' },
  getAddrListOfRole: { params: ['string'], returns: 'string' },
  getRolesByAddress: { params: ['address'], returns: 'string' },
  getRolesByName: { params: ['string'], returns: 'string' },
  hasRole: { params: ['address', 'string'], returns: 'int' },
  addUser: { params: ['json'], returns: 'int' },
  updateUserDescInfo: { params: ['address', 'json'], returns: 'int' },
  getUserByAddress: { params: ['address'], returns: 'string' },
  getUserByName: { params: ['string'], returns: 'string' },
  getAllUsers: { params: [], returns: 'string' },
} as const satisfies ContractAbi;

// ---- NodeManagement (0x1000…0002) ----
// add/update take a NodeInfo / UpdateNode JSON record, the queries a NodeInfo whose non-zero fields must match
export const NODE_MANAGEMENT_ABI = {
  add: { params: ['json'], returns: 'int' },
  update: { params: ['string', 'json'], returns: 'int' },
  getAllNodes: { params: [], returns: 'string' },
  getNodes: { params: ['json'], returns: 'string' },
  nodesNum: { params: ['json'], returns: 'int' },
  getNormalEnodeNodes: { params: [], returns: 'string' },
  getDeletedEnodeNodes: { params: [], returns: 'string' },
  validJoinNode: { params: ['string'], returns: 'int' },
  importOldNodesData: { params: ['string'], returns: 'int' },
} as const satisfies ContractAbi;

// ---- ParameterManagement (0x1000…0004) ----
// (Venachain's dedicated setters and getters are "deprecated" in favour of the generic four; vcl
// still calls them, so both are here.)
export const PARAMETER_MANAGEMENT_ABI = {
  setTxGasLimit: { params: ['uint64'], returns: 'int' },
  getTxGasLimit: { params: [], returns: 'int' },
  setBlockGasLimit: { params: ['uint64'], returns: 'int' },
  getBlockGasLimit: { params: [], returns: 'int' },
  setIsProduceEmptyBlock: { params: ['uint32'], returns: 'int' },
  getIsProduceEmptyBlock: { params: [], returns: 'int' },
  setCheckContractDeployPermission: { params: ['uint32'], returns: 'int' },
  getCheckContractDeployPermission: { params: [], returns: 'int' },
  setIsTxUseGas: { params: ['uint32'], returns: 'int' },
  getIsTxUseGas: { params: [], returns: 'int' },
  setIsApproveDeployedContract: { params: ['uint32'], returns: 'int' },
  getIsApproveDeployedContract: { params: [], returns: 'int' },
  setIsBlockUseTrieHash: { params: ['uint32'], returns: 'int' },
  getIsBlockUseTrieHash: { params: [], returns: 'int' },
  setGasContractName: { params: ['string'], returns: 'int' },
  getGasContractName: { params: [], returns: 'string' },
  setVRFParams: { params: ['string'], returns: 'int' },
  getVRFParams: { params: [], returns: 'string' },
  setIntParam: { params: ['string', 'uint64'], returns: 'int' },
  getIntParam: { params: ['string'], returns: 'int' },
  setStrParam: { params: ['string', 'string'], returns: 'int' },
  getStrParam: { params: ['string'], returns: 'string' },
} as const satisfies ContractAbi;

/** Venachain's flat gas of a CNS method (params.CnsManagerGas) and of a call by name (params.CnsInvokeGas, before the callee's own). */
export const CNS_CALL_GAS = 80_000n;
/** Venachain's flat gas of a firewall method (params.FireWall). */
export const FIREWALL_CALL_GAS = 10_000n;

// ---- CnsManagement (0x0000…0011) ----
// (getContractInfoByAddress is Venachain's old name of getRegisteredContractsByAddress, kept as an alias.)
export const CNS_MANAGEMENT_ABI = {
  cnsRegisterFromInit: { params: ['string', 'string'], returns: 'int' },
  cnsRegister: { params: ['string', 'string', 'address'], returns: 'int' },
  cnsRedirect: { params: ['string', 'string'], returns: 'int' },
  getContractAddress: { params: ['string', 'string'], returns: 'string' },
  ifRegisteredByAddress: { params: ['address'], returns: 'int' },
  ifRegisteredByName: { params: ['string'], returns: 'int' },
  getRegisteredContracts: { params: ['int64', 'int64'], returns: 'string' },
  getRegisteredContractsByName: { params: ['string'], returns: 'string' },
  getRegisteredContractsByAddress: { params: ['address'], returns: 'string' },
  getRegisteredContractsByOrigin: { params: ['address'], returns: 'string' },
  getContractInfoByAddress: { params: ['address'], returns: 'string' },
  importOldCnsManagerData: { params: ['string'], returns: 'int' },
} as const satisfies ContractAbi;

// ---- FirewallManagement (0x1000…0005) ----
// action = "accept" | "reject" (any case); list = "address:funcName|…", "*" for any address or function
export const FIREWALL_MANAGEMENT_ABI = {
  __sys_FwOpen: { params: ['address'], returns: 'int' },
  __sys_FwClose: { params: ['address'], returns: 'int' },
  __sys_FwClear: { params: ['address', 'string'], returns: 'int' },
  __sys_FwAdd: { params: ['address', 'string', 'string'], returns: 'int' },
  __sys_FwDel: { params: ['address', 'string', 'string'], returns: 'int' },
  __sys_FwSet: { params: ['address', 'string', 'string'], returns: 'int' },
  __sys_FwImport: { params: ['address', 'string'], returns: 'int' },
  __sys_FwStatus: { params: ['address'], returns: 'string' },
  __sys_FwExport: { params: ['address'], returns: 'string' },
} as const satisfies ContractAbi;

// ---- GroupManagement (0x1000…0006) ----
// groupInfo = {"groupID": n, "creatorEnode": "…", "bootNodes": ["…"]}; nodes = a JSON array of strings
export const GROUP_MANAGEMENT_ABI = {
  hasGroupOpPermission: { params: [], returns: 'int' },
  createGroup: { params: ['string'], returns: 'int' },
  getAllGroups: { params: [], returns: 'string' },
  getGroupByID: { params: ['uint64'], returns: 'string' },
  updateBootNodes: { params: ['uint64', 'string'], returns: 'int' },
  addBootNode: { params: ['uint64', 'string'], returns: 'int' },
  delBootNode: { params: ['uint64', 'string'], returns: 'int' },
} as const satisfies ContractAbi;

// ---- EvidenceManagement (0x0000…0099) ----
export const EVIDENCE_MANAGEMENT_ABI = {
  saveEvidence: { params: ['string', 'string'], returns: 'int' },
  getEvidence: { params: ['string'], returns: 'string' },
  setJsonData: { params: ['string', 'string'], returns: 'int' },
  getJsonData: { params: ['string'], returns: 'string' },
} as const satisfies ContractAbi;

/** Gas per slot ContractDataProcessor.migrate copies, beyond its flat price: an SSTORE of a new slot (G17). */
export const MIGRATE_SLOT_GAS = 20_000n;

// ---- ContractDataProcessor (0x1000…0007) ----
// migrate(src, dest): the creator of both copies src's storage into dest
export const CONTRACT_DATA_PROCESSOR_ABI = {
  migrate: { params: ['address', 'address'], returns: 'int' },
} as const satisfies ContractAbi;
