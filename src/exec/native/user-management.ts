// UserManagement (0x1000…0001): roles and users, with Venachain's names, argument order, return
// codes and events (core/vm/sc_user_*.go). Permission subject: the immediate caller.
import { implement, NativeCallError, type NativeContract } from './engine.ts';
import { USER_MANAGEMENT, ROLES, type RoleName } from './system-state.ts';
import { USER_MANAGEMENT_ABI } from '../../codec/system-contracts-abi.ts';

/** a mutator's return code on success (Venachain's operateSuccess) */
const SUCCESS = 0n;

export const userManagement: NativeContract = {
  name: 'UserManagement',
  address: USER_MANAGEMENT,
  methods: implement(USER_MANAGEMENT_ABI, {
    async setSuperAdmin(call) {
      if ((await call.state.roles.members('SUPER_ADMIN')).length > 0) throw new NativeCallError('Already Set SuperAdmin ');
      await call.state.roles.grant(call.caller, 'SUPER_ADMIN');
      call.emit('setSuperAdmin', SUCCESS, 'Success');
      return SUCCESS;
    },
    async getRolesByAddress(call, address) {
      return JSON.stringify(await call.state.roles.names(address));
    },
    async hasRole(call, address, role) {
      if (!(ROLES as readonly string[]).includes(role)) return 0n;
      return (await call.state.roles.has(address, role as RoleName)) ? 1n : 0n;
    },
  }),
};
