// ContractDataProcessor (0x1000…0007): `migrate(src, dest)` copies one contract's storage into
// another, as Venachain's core/vm/sc_contract_data.go does: the immediate caller must have created
// both; every non-zero slot of src is written into dest, dest's other slots stay. Venachain logs
// nothing on success (its event is for failures, which revert here). Beyond the flat price each
// slot copied costs an SSTORE of a new slot (G17): Venachain's flat price copies any number.
import { implement, NativeCallError, type NativeCall, type NativeContract } from './engine.ts';
import { CONTRACT_DATA_PROCESSOR_ABI, MIGRATE_SLOT_GAS, SYSTEM_CALL_GAS } from '../../codec/system-contracts-abi.ts';
import { CONTRACT_DATA_PROCESSOR } from './system-state.ts';

const NOT_CREATOR = 'not creator of the contract';

function mustHaveCreated(call: NativeCall, contract: string, which: string): void {
  if (call.creatorOf(contract) !== call.caller) throw new NativeCallError(`${NOT_CREATOR}: ${call.caller} did not create ${which} ${contract}`);
}

async function migrate(call: NativeCall, src: string, dest: string): Promise<bigint> {
  mustHaveCreated(call, src, 'src');
  mustHaveCreated(call, dest, 'dest');
  const copied = await call.copyStorage(src, dest, Number(call.gasLeft / MIGRATE_SLOT_GAS));
  call.charge(BigInt(copied) * MIGRATE_SLOT_GAS);
  return 0n;
}

export const contractDataProcessor: NativeContract = {
  name: 'ContractDataProcessor',
  address: CONTRACT_DATA_PROCESSOR,
  gas: SYSTEM_CALL_GAS,
  methods: implement(CONTRACT_DATA_PROCESSOR_ABI, { migrate }),
};
