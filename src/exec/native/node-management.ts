// NodeManagement (0x1000…0002): the node records, with Venachain's names, checks, return codes and
// events (core/vm/sc_node*.go). Permission subject: the transaction's origin.
import { implement, type NativeContract } from './engine.ts';
import { NODE_MANAGEMENT_ABI } from '../../codec/system-contracts-abi.ts';
import { NODE_MANAGEMENT } from './system-state.ts';

export const nodeManagement: NativeContract = {
  name: 'NodeManagement',
  address: NODE_MANAGEMENT,
  methods: implement(NODE_MANAGEMENT_ABI, {}),
};
