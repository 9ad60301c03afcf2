// Venachain's contract deploy permission (core/state_transition.go, checkContractDeployPermission):
// while IsCheckContractDeployPermission is 1, a contract-creation transaction whose sender holds
// none of CHAIN_ADMIN, CONTRACT_ADMIN, CONTRACT_DEPLOYER (its contractDeployPermission) fails.
// Venachain checks the transaction, not the CREATE opcode: contracts a contract creates pass.
import { PARAM_KEYS, roleBit, type SystemState } from './system-state.ts';

const DEPLOY_ROLES = roleBit('CHAIN_ADMIN') | roleBit('CONTRACT_ADMIN') | roleBit('CONTRACT_DEPLOYER');

/** Why `sender` (lowercase 0x hex) may not deploy a contract in `state`, or undefined when it may. */
export async function deployRefusal(state: SystemState, sender: string): Promise<string | undefined> {
  if ((await state.params.getInt(PARAM_KEYS.isCheckContractDeployPermission)) !== 1n) return undefined;
  if (((await state.roles.mask(sender)) & DEPLOY_ROLES) !== 0) return undefined;
  return `permission denied: ${sender} may not deploy contracts (IsCheckContractDeployPermission is 1: CHAIN_ADMIN, CONTRACT_ADMIN or CONTRACT_DEPLOYER needed)`;
}
