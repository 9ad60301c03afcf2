// ParameterManagement (0x1000…0004): chain parameters, with Venachain's names, defaults, ranges,
// return codes and events (core/vm/sc_param_*.go). Permission subject: the transaction's origin.
//
// Venachain's setters answer -1 with an error for a bad value or a caller without CHAIN_ADMIN; its
// wrapper turns every error into a failed call, so here each is a failed transaction (status 0,
// nothing stored, no event) whose reason eth_call answers. Its failure events (code 1 no
// permission, 3 param invalid) went with the reverted state there too, so none is emitted.
import { implement, NativeCallError, type NativeCall, type NativeContract } from './engine.ts';
import { PARAMETER_MANAGEMENT_ABI, SYSTEM_CALL_GAS } from '../../codec/system-contracts-abi.ts';
import { PARAMETER_MANAGEMENT, PARAM_KEYS } from './system-state.ts';
import { isVenachainName } from './formats.ts';

/** a setter's return code on success (Venachain's sucFlag) */
const SUCCESS = 0n;

// Venachain's bounds: gas is a time budget there (12,771,596 gas ≈ 0.0128 s)
const TX_GAS_LIMIT_MIN = 1_277_159_600n;
const TX_GAS_LIMIT_MAX = 2_000_000_000n;
const BLOCK_GAS_LIMIT_MIN = 1_277_159_600n;
const BLOCK_GAS_LIMIT_MAX = 20_000_000_000n;

function invalid(key: string, why: string): never {
  throw new NativeCallError(`param is invalid: ${key} ${why}`);
}

/** An integer parameter: its default and the checks of a new value (against other parameters too, hence the call). */
interface IntParam {
  /** what the node applies while it was never set (a function: the gas limits depend on the chain) */
  readonly default: bigint | ((call: NativeCall) => bigint);
  check(call: NativeCall, key: string, value: bigint): Promise<void>;
}

/** A text parameter: its default and how a new value's text becomes the stored value (throws when invalid). */
interface TextParam {
  readonly default: unknown;
  parse(key: string, text: string): unknown;
  /** checks of the value against the chain's state */
  check?(call: NativeCall, key: string, value: unknown): Promise<void>;
}

async function intValue(call: NativeCall, key: string): Promise<bigint> {
  const value = await call.state.params.getInt(key);
  if (value !== undefined) return value;
  const fallback = INT_PARAMS[key]!.default;
  return typeof fallback === 'bigint' ? fallback : fallback(call);
}

function inRange(key: string, value: bigint, min: bigint, max: bigint): void {
  if (value < min || value > max) invalid(key, `must be between ${min} and ${max}, got ${value}`);
}

const flag = (defaultValue: 0n | 1n): IntParam => ({
  default: defaultValue,
  async check(_call, key, value) {
    if (value !== 0n && value !== 1n) invalid(key, `must be 0 or 1, got ${value}`);
  },
});

const INT_PARAMS: Readonly<Record<string, IntParam>> = {
  [PARAM_KEYS.txGasLimit]: {
    // unset: the genesis' config.txGasLimit (Venachain's 1.5e9 unless the genesis names one), which the node enforces
    default: (call) => call.unsetLimits.txGasLimit,
    async check(call, key, value) {
      inRange(key, value, TX_GAS_LIMIT_MIN, TX_GAS_LIMIT_MAX);
      const block = await intValue(call, PARAM_KEYS.blockGasLimit);
      if (value > block) invalid(key, `${value} is larger than the block gas limit ${block}`);
    },
  },
  [PARAM_KEYS.blockGasLimit]: {
    // unset: the gas limit blocks carry on with (the genesis' gasLimit), which the node enforces
    default: (call) => call.unsetLimits.blockGasLimit,
    async check(call, key, value) {
      inRange(key, value, BLOCK_GAS_LIMIT_MIN, BLOCK_GAS_LIMIT_MAX);
      const tx = await intValue(call, PARAM_KEYS.txGasLimit);
      if (value < tx) invalid(key, `${value} is smaller than the transaction gas limit ${tx}`);
    },
  },
  [PARAM_KEYS.isProduceEmptyBlock]: flag(0n),
  [PARAM_KEYS.isCheckContractDeployPermission]: flag(0n),
  [PARAM_KEYS.isTxUseGas]: flag(0n),
  [PARAM_KEYS.isApproveDeployedContract]: flag(0n),
  [PARAM_KEYS.isBlockUseTrieHash]: flag(1n),
  [PARAM_KEYS.isUseDAG]: flag(0n),
};

const name: TextParam = {
  default: '',
  parse(key, text) {
    // Venachain's checkNameFormat
    if (!isVenachainName(text)) invalid(key, `must be 1 to 128 letters, digits or _, got ${JSON.stringify(text.slice(0, 140))}`);
    return text;
  },
};

/** Venachain's common.VRFParams, in its JSON field order. */
interface VrfParams {
  electionEpoch: number;
  nextElectionBlock: number;
  validatorCount: number;
}

const VRF_FIELDS = ['electionEpoch', 'nextElectionBlock', 'validatorCount'] as const;

const vrfParams: TextParam = {
  default: { electionEpoch: 0, nextElectionBlock: 0, validatorCount: 0 } satisfies VrfParams,
  parse(key, text) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      invalid(key, `is not JSON: ${(e as Error).message}`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) invalid(key, 'must be a JSON object {"electionEpoch","nextElectionBlock","validatorCount"}');
    const out = { electionEpoch: 0, nextElectionBlock: 0, validatorCount: 0 } satisfies VrfParams;
    for (const field of VRF_FIELDS) {
      const v = (json as Record<string, unknown>)[field];
      if (v === undefined) continue;
      // uint64 in Venachain; kept to JSON's exact integers here
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) invalid(key, `${field} must be a non-negative integer below 2^53, got ${JSON.stringify(v)}`);
      out[field] = v;
    }
    if (out.validatorCount < 1) invalid(key, 'validatorCount must be at least 1 (Validator Count Invalid)');
    return out;
  },
};

/** GasContractName: a name, registered in CNS (Venachain's gasContractNameType). */
const gasContractName: TextParam = {
  ...name,
  async check(call, key, value) {
    if ((await call.state.cns.versions(value as string)).length === 0) throw new NativeCallError(`contract name not exist: ${key} ${JSON.stringify(value)} is not registered in CNS`);
  },
};

const TEXT_PARAMS: Readonly<Record<string, TextParam>> = {
  [PARAM_KEYS.gasContractName]: gasContractName,
  [PARAM_KEYS.vrfParams]: vrfParams,
};

/** Any key that is not predefined: a free string parameter (Venachain's stringParamType). */
const textParam = (key: string): TextParam => TEXT_PARAMS[key] ?? name;

async function store(call: NativeCall, key: string, value: unknown): Promise<bigint> {
  // as Venachain: the value is checked first, then the permission
  if (!(await call.state.roles.has(call.origin, 'CHAIN_ADMIN'))) {
    throw new NativeCallError(`No Permission: ${call.origin} has no permission to adjust param (${key} needs CHAIN_ADMIN)`);
  }
  await call.state.params.set(key, value);
  call.emit(key, SUCCESS, 'param set successful.');
  return SUCCESS;
}

async function setInt(call: NativeCall, key: string, value: bigint): Promise<bigint> {
  const param = INT_PARAMS[key];
  if (param === undefined) throw new NativeCallError(`the operation is unsupported: ${JSON.stringify(key)} is not an integer parameter`);
  await param.check(call, key, value);
  return store(call, key, Number(value));
}

async function setText(call: NativeCall, key: string, text: string): Promise<bigint> {
  if (INT_PARAMS[key] !== undefined) throw new NativeCallError(`the operation is unsupported: ${key} is an integer parameter (setIntParam or set${key})`);
  const param = textParam(key);
  const value = param.parse(key, text);
  await param.check?.(call, key, value);
  return store(call, key, value);
}

async function getInt(call: NativeCall, key: string): Promise<bigint> {
  if (INT_PARAMS[key] === undefined) throw new NativeCallError(`the data type invalid: ${JSON.stringify(key)} is not an integer parameter`);
  return intValue(call, key);
}

async function getValue(call: NativeCall, key: string): Promise<unknown> {
  return INT_PARAMS[key] !== undefined ? Number(await intValue(call, key)) : ((await call.state.params.get(key)) ?? textParam(key).default);
}

export const parameterManagement: NativeContract = {
  name: 'ParameterManagement',
  address: PARAMETER_MANAGEMENT,
  gas: SYSTEM_CALL_GAS,
  methods: implement(PARAMETER_MANAGEMENT_ABI, {
    setTxGasLimit: (call, v) => setInt(call, PARAM_KEYS.txGasLimit, v),
    getTxGasLimit: (call) => getInt(call, PARAM_KEYS.txGasLimit),
    setBlockGasLimit: (call, v) => setInt(call, PARAM_KEYS.blockGasLimit, v),
    getBlockGasLimit: (call) => getInt(call, PARAM_KEYS.blockGasLimit),
    setIsProduceEmptyBlock: (call, v) => setInt(call, PARAM_KEYS.isProduceEmptyBlock, v),
    getIsProduceEmptyBlock: (call) => getInt(call, PARAM_KEYS.isProduceEmptyBlock),
    setCheckContractDeployPermission: (call, v) => setInt(call, PARAM_KEYS.isCheckContractDeployPermission, v),
    getCheckContractDeployPermission: (call) => getInt(call, PARAM_KEYS.isCheckContractDeployPermission),
    setIsTxUseGas: (call, v) => setInt(call, PARAM_KEYS.isTxUseGas, v),
    getIsTxUseGas: (call) => getInt(call, PARAM_KEYS.isTxUseGas),
    setIsApproveDeployedContract: (call, v) => setInt(call, PARAM_KEYS.isApproveDeployedContract, v),
    getIsApproveDeployedContract: (call) => getInt(call, PARAM_KEYS.isApproveDeployedContract),
    setIsBlockUseTrieHash: (call, v) => setInt(call, PARAM_KEYS.isBlockUseTrieHash, v),
    getIsBlockUseTrieHash: (call) => getInt(call, PARAM_KEYS.isBlockUseTrieHash),
    setGasContractName: (call, v) => setText(call, PARAM_KEYS.gasContractName, v),
    getGasContractName: async (call) => (await getValue(call, PARAM_KEYS.gasContractName)) as string,
    setVRFParams: (call, v) => setText(call, PARAM_KEYS.vrfParams, v),
    getVRFParams: async (call) => JSON.stringify(await getValue(call, PARAM_KEYS.vrfParams)),
    setIntParam: setInt,
    getIntParam: getInt,
    setStrParam: setText,
    // Venachain answers any parameter as JSON: a number, a quoted string, the VRF object
    getStrParam: async (call, key) => JSON.stringify(await getValue(call, key)),
  }),
};
