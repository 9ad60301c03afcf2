// ParameterManagement (0x1000…0004): chain parameters, with Venachain's names, defaults, ranges,
// return codes and events (core/vm/sc_param_*.go). Permission subject: the transaction's origin.
import { implement, type NativeContract } from './engine.ts';
import { PARAMETER_MANAGEMENT_ABI } from '../../codec/system-contracts-abi.ts';
import { PARAMETER_MANAGEMENT } from './system-state.ts';

export const parameterManagement: NativeContract = {
  name: 'ParameterManagement',
  address: PARAMETER_MANAGEMENT,
  methods: implement(PARAMETER_MANAGEMENT_ABI, {}),
};
