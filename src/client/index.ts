// The hand-written half of the client SDK, re-exported by generated/client/index.ts (the package's
// `chain-node/client` entry) next to the generated typed API.
export { RpcClient, type ClientOptions, type ClientEvents, type Subscription } from './rpc-client.ts';
export { RpcError, TransportError, type ErrorObject } from './errors.ts';
export { EXECUTION_REVERTED, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, SERVER_ERROR } from './errors.ts';
export { httpTransport, type HttpTransportOptions } from './http.ts';
export { wsTransport, type WsTransportOptions, type ReconnectOptions } from './ws.ts';
export { DEV_CHAIN_ID, devChain, devChainAt, devNetwork } from './chains.ts';
export { toQuantity, fromQuantity } from './quantity.ts';
export type { Transport, CallOptions, ConnectionEvent, JsonRpcRequest, JsonRpcResponse, JsonRpcNotification } from './transport.ts';
export type { SubscriptionItems } from './subscriptions.ts';
export {
  SYSTEM_CONTRACT_ABIS,
  systemCall,
  encodeSystemCall,
  hasSystemMethod,
  decodeSystemResult,
  decodeSystemEvent,
  systemParameters,
  systemCallGas,
  callSystem,
  sendSystem,
  systemOutcome,
  systemErrorReason,
  waitForReceipt,
  callByName,
  CNS_INVOKE_ADDRESS,
  type CnsAnswer,
  type FwStatus,
  type FwRuleJson,
  type SystemContractName,
  type SystemAbi,
  type SystemMethod,
  type SystemArgs,
  type SystemResult,
  type SystemCall,
  type SystemEvent,
  type SystemOutcome,
  type SystemParameter,
  type SystemClient,
  type SystemCallOptions,
  type NodeManagementAnswer,
  type EnodeNode,
  type VrfParams,
  type JsonOrText,
} from './system-contracts.ts';
export { TX_TYPE_CALL, TX_TYPE_RAW_RETURN, TX_TYPE_SOL_COMPATIBLE_WASM, CallCodecError } from '../codec/venachain-call.ts';
export {
  wasmContract,
  deployWasm,
  callWasm,
  sendWasm,
  type WasmContract,
  type WasmCall,
  type WasmEvent,
  type WasmOutcome,
  type WasmDeployOptions,
  type WasmFunctionName,
  type WasmArgs,
  type WasmResult,
  type WasmTypeValue,
} from './wasm-contracts.ts';
export { WasmAbiError, parseWasmAbi, TX_TYPE_DEPLOY, type WasmAbi, type WasmAbiEntry, type WasmAbiParam, type WasmValue } from '../codec/wasm-abi.ts';
