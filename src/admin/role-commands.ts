// `chain-node admin role …`: UserManagement's roles (vcl role).
import { callSystem } from '../client/system-contracts.ts';
import { ROLES, type RoleName } from '../exec/native/system-state.ts';
import { address, call, json, UsageError, write, type Command } from './command.ts';

/** chain-admin, CHAIN_ADMIN, chainAdmin → CHAIN_ADMIN */
function role(text: string): RoleName {
  const name = text.replace(/([a-z])([A-Z])/g, '$1_$2').replace(/-/g, '_').toUpperCase();
  if (!(ROLES as readonly string[]).includes(name)) throw new UsageError(`unknown role ${JSON.stringify(text)}: one of ${ROLES.map((r) => r.toLowerCase().replace(/_/g, '-')).join(', ')}`);
  return name as RoleName;
}

/** CHAIN_ADMIN → ChainAdmin: the middle of Venachain's add…ByAddress / del…ByAddress */
function roleMethodName(r: RoleName): string {
  return r
    .split('_')
    .map((w) => w[0] + w.slice(1).toLowerCase())
    .join('');
}

export const roleCommands: Record<string, Command> = {
  'set-super-admin': {
    args: [0, 0],
    async run(ctx) {
      return write(ctx, call('UserManagement', 'setSuperAdmin'), `${(await ctx.sender()).address} is super admin`);
    },
  },
  'transfer-super-admin': {
    args: [1, 0],
    async run(ctx, [to]) {
      return write(ctx, call('UserManagement', 'transferSuperAdminByAddress', address(to!)), `super admin transferred to ${to}`);
    },
  },
  add: {
    args: [2, 0],
    async run(ctx, [r, to]) {
      const name = role(r!);
      if (name === 'SUPER_ADMIN') throw new UsageError('SUPER_ADMIN is not granted: use role set-super-admin or role transfer-super-admin');
      return write(ctx, call('UserManagement', `add${roleMethodName(name)}ByAddress`, address(to!)), `${name} granted to ${to}`);
    },
  },
  remove: {
    args: [2, 0],
    async run(ctx, [r, from]) {
      const name = role(r!);
      if (name === 'SUPER_ADMIN') throw new UsageError('SUPER_ADMIN is not revoked: use role transfer-super-admin');
      return write(ctx, call('UserManagement', `del${roleMethodName(name)}ByAddress`, address(from!)), `${name} revoked from ${from}`);
    },
  },
  list: {
    args: [0, 1],
    async run(ctx, [who]) {
      if (who !== undefined) {
        const roles = await callSystem(ctx.client, call('UserManagement', 'getRolesByAddress', address(who)));
        if (ctx.values.json) ctx.out(json(roles));
        else ctx.out(`${who}: ${Array.isArray(roles) && roles.length > 0 ? roles.join(', ') : Array.isArray(roles) ? 'no roles' : roles}`);
        return 0;
      }
      const members: Record<string, unknown> = {};
      for (const r of ROLES) members[r] = await callSystem(ctx.client, call('UserManagement', 'getAddrListOfRole', r));
      if (ctx.values.json) ctx.out(json(members));
      else for (const [r, list] of Object.entries(members)) ctx.out(`${r}: ${Array.isArray(list) ? (list.length > 0 ? list.join(', ') : '-') : String(list)}`);
      return 0;
    },
  },
};

