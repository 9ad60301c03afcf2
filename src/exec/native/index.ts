// The native system contracts every chain has (Venachain's, at fixed addresses): one engine
// instance per EVM, handed to EngineEVM by createEvmVM.
import { NativeContracts } from './engine.ts';
import { userManagement } from './user-management.ts';
import { nodeManagement } from './node-management.ts';
import { parameterManagement } from './parameter-management.ts';

/** `chainTxGasLimit`: the genesis' config.txGasLimit, in force while TxGasLimit was never set. */
export function systemContracts(chainTxGasLimit: bigint): NativeContracts {
  return new NativeContracts([userManagement, nodeManagement, parameterManagement], chainTxGasLimit);
}
