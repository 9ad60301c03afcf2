// The native system contracts every chain has (Venachain's, at fixed addresses): one engine
// instance per EVM, handed to EngineEVM by createEvmVM.
import { NativeContracts } from './engine.ts';
import { userManagement } from './user-management.ts';
import { nodeManagement } from './node-management.ts';
import { parameterManagement } from './parameter-management.ts';
import { cnsManagement } from './cns-management.ts';
import { firewallManagement } from './firewall-management.ts';
import { cnsInvoke } from './cns-invoke.ts';
import { groupManagement } from './group-management.ts';
import { evidenceManagement } from './evidence-management.ts';
import { contractDataProcessor } from './contract-data-processor.ts';

/**
 * `chainTxGasLimit`: the genesis' config.txGasLimit, in force while TxGasLimit was never set;
 * `creatorOf`: the creator of a contract committed in an earlier block.
 */
export function systemContracts(chainTxGasLimit: bigint, creatorOf?: (address: Uint8Array) => Uint8Array | undefined): NativeContracts {
  return new NativeContracts([userManagement, nodeManagement, parameterManagement, firewallManagement, cnsManagement, cnsInvoke, groupManagement, evidenceManagement, contractDataProcessor], chainTxGasLimit, creatorOf);
}
