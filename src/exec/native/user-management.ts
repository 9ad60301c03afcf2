// UserManagement (0x1000…0001): roles and users, with Venachain's names, argument order, return
// codes, error messages and events (core/vm/sc_user_role.go, sc_user_info.go, sc_tool.go).
// Permission subject: the immediate caller. A failure throws (status 0, nothing kept, the message
// is the revert reason); a mutator that succeeds emits topic = its name, [0, "Success"] and returns 0.
import { implement, NativeCallError, type NativeCall, type NativeContract } from './engine.ts';
import { USER_MANAGEMENT, ROLES, roleBit, type RoleName, type UserRecord } from './system-state.ts';
import { isVenachainEmail, isVenachainName, isVenachainPhone } from './formats.ts';
import { USER_MANAGEMENT_ABI, SYSTEM_CALL_GAS } from '../../codec/system-contracts-abi.ts';

/** a mutator's return code on success (Venachain's operateSuccess) */
const SUCCESS = 0n;

// Venachain's error texts, trailing spaces included: callers match on them
const NO_PERMISSION = 'No Permission ';
const UNSUPPORTED_ROLE = 'Unsupported role ';
const UNSUPPORTED_USERNAME = 'Unsupported Username ';
const NO_USER_INFO = 'No User Info ';
const USER_NAME_EXISTS = ' UserName Already Exist ';
const ALREADY_SET_USER_NAME = 'Already Set UserName ';

const ZERO_ADDRESS = '0x' + '0'.repeat(40);

/** Who may grant or revoke each role (Venachain's roleOpPermission): holding any one of these suffices. */
const GRANTED_BY: Readonly<Record<RoleName, readonly RoleName[]>> = {
  SUPER_ADMIN: ['SUPER_ADMIN'],
  CHAIN_ADMIN: ['SUPER_ADMIN'],
  GROUP_ADMIN: ['CHAIN_ADMIN'],
  NODE_ADMIN: ['CHAIN_ADMIN'],
  CONTRACT_ADMIN: ['CHAIN_ADMIN'],
  CONTRACT_DEPLOYER: ['CHAIN_ADMIN', 'CONTRACT_ADMIN'],
};

function success(call: NativeCall, topic: string): bigint {
  call.emit(topic, SUCCESS, 'Success');
  return SUCCESS;
}

function isRole(name: string): name is RoleName {
  return (ROLES as readonly string[]).includes(name);
}

/** Grants (or revokes) `role` to `address` if the caller may: Venachain's setRoleWithPermissionCheckByAddress. */
async function setRole(call: NativeCall, address: string, role: RoleName, active: boolean): Promise<void> {
  const callerMask = await call.state.roles.mask(call.caller);
  if (!GRANTED_BY[role].some((r) => (callerMask & roleBit(r)) !== 0)) throw new NativeCallError(NO_PERMISSION);
  if (active) await call.state.roles.grant(address, role);
  else await call.state.roles.revoke(address, role);
}

/** The address of a registered user: the ByName methods need the user record (addUser) first. */
async function addressOfUser(call: NativeCall, name: string): Promise<string> {
  if (!isVenachainName(name)) throw new NativeCallError(UNSUPPORTED_USERNAME);
  const address = await call.state.users.addressOf(name);
  if (address === undefined) throw new NativeCallError(NO_USER_INFO);
  return address;
}

const byAddress = (topic: string, role: RoleName, active: boolean) => async (call: NativeCall, address: string) => {
  await setRole(call, address, role, active);
  return success(call, topic);
};

const byName = (topic: string, role: RoleName, active: boolean) => async (call: NativeCall, name: string) => {
  await setRole(call, await addressOfUser(call, name), role, active);
  return success(call, topic);
};

/**
 * The new super admin gets the role, the caller loses it (keeping its other roles). Venachain's
 * ByName variant skips the "is it the caller" check and so leaves a self-transfer without any super
 * admin (anyone's setSuperAdmin then takes the chain); both variants here keep the caller's role then.
 */
async function transferSuperAdmin(call: NativeCall, to: string, topic: string): Promise<bigint> {
  await setRole(call, to, 'SUPER_ADMIN', true);
  if (to !== call.caller) await setRole(call, call.caller, 'SUPER_ADMIN', false);
  return success(call, topic);
}

/** Adding users and changing their descriptions is for chain admins (Venachain's userOpPermission). */
async function requireUserAdmin(call: NativeCall): Promise<void> {
  if (!(await call.state.roles.has(call.caller, 'CHAIN_ADMIN'))) throw new NativeCallError(NO_PERMISSION);
}

// ---- the JSON arguments, read as Go's encoding/json reads them into Venachain's structs ----

/** Venachain's UserDescInfo; '' = not given. */
interface DescInfo {
  email: string;
  organization: string;
  phone: string;
}

const NO_DESC: DescInfo = { email: '', organization: '', phone: '' };

/** A JSON object's fields; null reads as no fields (Go leaves the struct zero). */
function fieldsOf(value: unknown, where: string): Record<string, unknown> {
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new NativeCallError(`${where}: must be a JSON object`);
  return value as Record<string, unknown>;
}

/** A field's value as Go's encoding/json finds it: the key matched case-insensitively, the last match wins. */
function fieldOf(fields: Record<string, unknown>, key: string): unknown {
  const match = Object.keys(fields).findLast((k) => k.toLowerCase() === key.toLowerCase());
  return match === undefined ? undefined : fields[match];
}

function stringField(fields: Record<string, unknown>, key: string, where: string): string {
  const v = fieldOf(fields, key);
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new NativeCallError(`${where}: ${key} must be a string`);
  return v;
}

function descInfoOf(value: unknown, where: string): DescInfo {
  const fields = fieldsOf(value, where);
  return { email: stringField(fields, 'email', where), organization: stringField(fields, 'organization', where), phone: stringField(fields, 'phone', where) };
}

/** Venachain's checkDescInfo: each field given must have its format. */
function checkDescInfo(d: DescInfo): void {
  if (d.organization !== '' && !isVenachainName(d.organization)) throw new NativeCallError('Unsupported Orgnization ');
  if (d.email !== '' && !isVenachainEmail(d.email)) throw new NativeCallError('Unsupported email address ');
  if (d.phone !== '' && !isVenachainPhone(d.phone)) throw new NativeCallError('Unsupported phone number ');
}

/** The description as Venachain stores it: Go's JSON of UserDescInfo, empty fields left out. */
function descText(d: DescInfo): string {
  return JSON.stringify({ ...(d.email && { email: d.email }), ...(d.organization && { organization: d.organization }), ...(d.phone && { phone: d.phone }) });
}

/** addUser's argument: Venachain's UserInfo (its authorizer is ignored: the caller is). */
function userInfoOf(value: unknown): { address: string; name: string; descInfo: string; version: number } {
  const where = 'UserManagement.addUser: argument 1 (json)';
  const fields = fieldsOf(value, where);
  let address = ZERO_ADDRESS;
  const a = fieldOf(fields, 'address');
  if (a !== undefined && a !== null) {
    if (typeof a !== 'string' || !/^0[xX][0-9a-fA-F]{40}$/.test(a)) throw new NativeCallError(`${where}: address must be "0x" and 40 hex digits`);
    address = '0x' + a.slice(2).toLowerCase();
  }
  const v = fieldOf(fields, 'version') ?? 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new NativeCallError(`${where}: version must be an integer from 0 to 4294967295`);
  return { address, name: stringField(fields, 'name', where), descInfo: stringField(fields, 'descInfo', where), version: v };
}

/** A user record with Venachain's key order, empty optional fields left out (Go's omitempty). */
function userRecord(address: string, authorizer: string, name: string, descInfo: string, version: number): UserRecord {
  return { address, authorizer, name, ...(descInfo && { descInfo }), ...(version && { version }) };
}

export const userManagement: NativeContract = {
  name: 'UserManagement',
  address: USER_MANAGEMENT,
  gas: SYSTEM_CALL_GAS,
  methods: implement(USER_MANAGEMENT_ABI, {
    async setSuperAdmin(call) {
      if ((await call.state.roles.members('SUPER_ADMIN')).length > 0) throw new NativeCallError('Already Set SuperAdmin ');
      await call.state.roles.grant(call.caller, 'SUPER_ADMIN');
      return success(call, 'setSuperAdmin');
    },
    transferSuperAdminByAddress: (call, address) => transferSuperAdmin(call, address, 'transferSuperAdminByAddress'),
    async transferSuperAdminByName(call, name) {
      return transferSuperAdmin(call, await addressOfUser(call, name), 'transferSuperAdminByName');
    },
    addChainAdminByAddress: byAddress('addChainAdminByAddress', 'CHAIN_ADMIN', true),
    addChainAdminByName: byName('addChainAdminByName', 'CHAIN_ADMIN', true),
    addGroupAdminByAddress: byAddress('addGroupAdminByAddress', 'GROUP_ADMIN', true),
    addGroupAdminByName: byName('addGroupAdminByName', 'GROUP_ADMIN', true),
    addNodeAdminByAddress: byAddress('addNodeAdminByAddress', 'NODE_ADMIN', true),
    addNodeAdminByName: byName('addNodeAdminByName', 'NODE_ADMIN', true),
    addContractAdminByAddress: byAddress('addContractAdminByAddress', 'CONTRACT_ADMIN', true),
    addContractAdminByName: byName('addContractAdminByName', 'CONTRACT_ADMIN', true),
    addContractDeployerByAddress: byAddress('addContractDeployerByAddress', 'CONTRACT_DEPLOYER', true),
    addContractDeployerByName: byName('addContractDeployerByName', 'CONTRACT_DEPLOYER', true),
    delChainAdminByAddress: byAddress('delChainAdminByAddress', 'CHAIN_ADMIN', false),
    delChainAdminByName: byName('delChainAdminByName', 'CHAIN_ADMIN', false),
    delGroupAdminByAddress: byAddress('delGroupAdminByAddress', 'GROUP_ADMIN', false),
    delGroupAdminByName: byName('delGroupAdminByName', 'GROUP_ADMIN', false),
    delNodeAdminByAddress: byAddress('delNodeAdminByAddress', 'NODE_ADMIN', false),
    delNodeAdminByName: byName('delNodeAdminByName', 'NODE_ADMIN', false),
    delContractAdminByAddress: byAddress('delContractAdminByAddress', 'CONTRACT_ADMIN', false),
    delContractAdminByName: byName('delContractAdminByName', 'CONTRACT_ADMIN', false),
    delContractDeployerByAddress: byAddress('delContractDeployerByAddress', 'CONTRACT_DEPLOYER', false),
    delContractDeployerByName: byName('delContractDeployerByName', 'CONTRACT_DEPLOYER', false),
    async getAddrListOfRole(call, role) {
      if (!isRole(role)) throw new NativeCallError(UNSUPPORTED_ROLE);
      return JSON.stringify(await call.state.roles.members(role));
    },
    async getRolesByAddress(call, address) {
      return JSON.stringify(await call.state.roles.names(address));
    },
    async getRolesByName(call, name) {
      return JSON.stringify(await call.state.roles.names(await addressOfUser(call, name)));
    },
    async hasRole(call, address, role) {
      // an unknown role name is not an error here, as in Venachain: nobody has it
      if (!isRole(role)) return 0n;
      return (await call.state.roles.has(address, role)) ? 1n : 0n;
    },
    async addUser(call, json) {
      const info = userInfoOf(json);
      if (info.address === ZERO_ADDRESS) throw new NativeCallError("User's Address must be a nonzero address!");
      await requireUserAdmin(call);
      if (!isVenachainName(info.name)) throw new NativeCallError(UNSUPPORTED_USERNAME);
      if ((await call.state.users.addressOf(info.name)) !== undefined) throw new NativeCallError(USER_NAME_EXISTS);
      if ((await call.state.users.get(info.address)) !== undefined) throw new NativeCallError(ALREADY_SET_USER_NAME);
      let descInfo = info.descInfo;
      if (descInfo !== '') {
        let parsed: unknown;
        try {
          parsed = JSON.parse(descInfo);
        } catch (e) {
          throw new NativeCallError(`UserManagement.addUser: descInfo: not JSON: ${(e as Error).message}`);
        }
        const d = descInfoOf(parsed, 'UserManagement.addUser: descInfo');
        checkDescInfo(d);
        descInfo = descText(d);
      }
      await call.state.users.put(userRecord(info.address, call.caller, info.name, descInfo, info.version));
      return success(call, 'addUser');
    },
    async updateUserDescInfo(call, address, json) {
      const update = descInfoOf(json, 'UserManagement.updateUserDescInfo: argument 2 (json)');
      await requireUserAdmin(call);
      checkDescInfo(update);
      const user = await call.state.users.get(address);
      if (user === undefined) throw new NativeCallError(NO_USER_INFO);
      // fields given replace the stored ones; fields left out (or empty) keep them
      const stored = user.descInfo === undefined ? NO_DESC : descInfoOf(JSON.parse(user.descInfo), 'stored descInfo');
      const merged = { email: update.email || stored.email, organization: update.organization || stored.organization, phone: update.phone || stored.phone };
      await call.state.users.put(userRecord(user.address, user.authorizer, user.name, descText(merged), user.version ?? 0));
      return success(call, 'updateUserDescInfo');
    },
    async getUserByAddress(call, address) {
      const user = await call.state.users.get(address);
      if (user === undefined) throw new NativeCallError(NO_USER_INFO);
      return JSON.stringify(user);
    },
    async getUserByName(call, name) {
      return JSON.stringify(await call.state.users.get(await addressOfUser(call, name)));
    },
    async getAllUsers(call) {
      return JSON.stringify(await call.state.users.all());
    },
  }),
};
