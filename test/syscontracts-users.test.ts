// UserManagement through JSON-RPC, method by method, on a genesis-file chain where nothing is
// registered (the first setSuperAdmin caller becomes super admin) and on a dev chain (the dev
// account governs from the genesis): Venachain's grant rules with the immediate caller as the
// subject, its error texts as revert reasons (a refused transaction keeps nothing and logs
// nothing), its events in receipts and eth_getLogs, its answers' JSON, answers at older blocks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Transaction, Wallet } from 'ethers';
import { mined, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { decodeEventData, decodeReturn, encodeArg, encodeCall, eventTopic } from '../src/codec/venachain-call.ts';
import { USER_MANAGEMENT_ABI } from '../src/codec/system-contracts-abi.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { USER_MANAGEMENT } from '../src/exec/native/system-state.ts';

type Method = keyof typeof USER_MANAGEMENT_ABI;

let node: TestNode;
const dir = mkdtempSync(join(tmpdir(), 'chain-node-users-'));
const nonces = new Map<number, number>();

// funded test keys and what they become
const SUPER = 0; // setSuperAdmin
const CHAIN = 1; // chain admin, granted by SUPER
const CONTRACT = 2; // contract admin, granted by CHAIN
const NOBODY = 3; // never gets a role
// unfunded addresses that only receive roles
const alice = testAddress(10);
const bob = testAddress(11);

/** Call data of `method` with its arguments encoded by the ABI's parameter types. */
function umData(method: Method, ...args: (string | object)[]): Uint8Array {
  return encodeCall(
    method,
    USER_MANAGEMENT_ABI[method].params.map((type, i) => encodeArg(type, args[i]!)),
  );
}

async function send(who: number, data: Uint8Array): Promise<any> {
  const nonce = nonces.get(who) ?? 0;
  nonces.set(who, nonce + 1);
  const tx = Transaction.from({ to: USER_MANAGEMENT, data: bytesToHex(data), gasLimit: 200_000n, gasPrice: 0n, chainId: 300, nonce });
  return mined(node, await node.rpc('eth_sendRawTransaction', [await new Wallet(testKey(who)).signTransaction(tx)]));
}

/** A method's answer through eth_call (as `from`, at `block`); rejects with the node's error message. */
async function query(method: Method, args: (string | object)[] = [], from = testAddress(NOBODY), block = 'latest'): Promise<bigint | string> {
  const res = await node.raw('eth_call', [{ from, to: USER_MANAGEMENT, data: bytesToHex(umData(method, ...args)) }, block]);
  if (res.error) throw new Error(res.error.message);
  return decodeReturn(2n, USER_MANAGEMENT_ABI[method].returns, Buffer.from(res.result.slice(2), 'hex'));
}

/** The error message a query is answered with (the assertion fails if it succeeds). */
async function failure(answer: Promise<unknown>): Promise<string> {
  try {
    assert.unreachable(`answered ${String(await answer)}`);
  } catch (e) {
    if (e instanceof assert.Assertion) throw e;
    return (e as Error).message;
  }
  return '';
}

async function queryJson(method: Method, args: (string | object)[] = [], block = 'latest'): Promise<unknown> {
  return JSON.parse((await query(method, args, testAddress(NOBODY), block)) as string);
}

/** The transaction succeeds, returns 0 through eth_call first, and logs Venachain's event: topic = the method, [0, "Success"]. */
async function succeeds(who: number, method: Method, ...args: (string | object)[]): Promise<any> {
  assert.is(await query(method, args, testAddress(who)), 0n, `${method} through eth_call`);
  const receipt = await send(who, umData(method, ...args));
  assert.is(receipt.status, '0x1', `${method} by ${who}`);
  assert.is(receipt.logs.length, 1);
  assert.is(receipt.logs[0].address, USER_MANAGEMENT);
  assert.equal(receipt.logs[0].topics, [bytesToHex(eventTopic(method))]);
  assert.equal(decodeEventData(Buffer.from(receipt.logs[0].data.slice(2), 'hex')), { code: 0n, message: 'Success' });
  return receipt;
}

/** The transaction fails (status 0, no logs, the state root moves only by the sender's nonce) and eth_call answers `reason` exactly. */
async function refused(who: number, reason: string, method: Method, ...args: (string | object)[]): Promise<void> {
  const umBefore = await contractStorageProbe();
  assert.is(await failure(query(method, args, testAddress(who))), `execution reverted: ${reason}`, `${method} by ${who}`);
  const receipt = await send(who, umData(method, ...args));
  assert.is(receipt.status, '0x0', `${method} by ${who} must fail`);
  assert.is(receipt.logs.length, 0);
  assert.is(await contractStorageProbe(), umBefore, `${method} by ${who} changed UserManagement's state`);
}

/** Everything the contract answers about roles and users, as one string to compare before and after. */
async function contractStorageProbe(): Promise<string> {
  const lists = [];
  for (const role of ['SUPER_ADMIN', 'CHAIN_ADMIN', 'GROUP_ADMIN', 'NODE_ADMIN', 'CONTRACT_ADMIN', 'CONTRACT_DEPLOYER']) lists.push(await query('getAddrListOfRole', [role]));
  return JSON.stringify([lists, await query('getAllUsers')]);
}

const hasRole = async (address: string, role: string, block = 'latest') => (await query('hasRole', [address, role], testAddress(NOBODY), block)) === 1n;

test.before(async () => {
  node = await startTestNode({ dir });
});

test.after(async () => {
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('setSuperAdmin: the first caller becomes super admin (that role only); a second call is refused', async () => {
  assert.equal(await queryJson('getAddrListOfRole', ['SUPER_ADMIN']), []);
  await succeeds(SUPER, 'setSuperAdmin');
  assert.equal(await queryJson('getRolesByAddress', [testAddress(SUPER)]), ['SUPER_ADMIN']);
  assert.equal(await queryJson('getAddrListOfRole', ['SUPER_ADMIN']), [testAddress(SUPER)]);
  await refused(NOBODY, 'Already Set SuperAdmin ', 'setSuperAdmin');
  await refused(SUPER, 'Already Set SuperAdmin ', 'setSuperAdmin');
});

test("grant rules: the super admin grants chain admin, not the other roles; a chain admin grants them, not chain admin; the event is in eth_getLogs", async () => {
  await refused(SUPER, 'No Permission ', 'addNodeAdminByAddress', alice);
  await refused(NOBODY, 'No Permission ', 'addChainAdminByAddress', testAddress(CHAIN));
  const before = await node.rpc('eth_blockNumber');
  const receipt = await succeeds(SUPER, 'addChainAdminByAddress', testAddress(CHAIN));
  assert.equal(await queryJson('getRolesByAddress', [testAddress(CHAIN)]), ['CHAIN_ADMIN']);
  // the answer at the block before the grant is the state then
  assert.is(await hasRole(testAddress(CHAIN), 'CHAIN_ADMIN', before), false);
  assert.equal(await queryJson('getAddrListOfRole', ['CHAIN_ADMIN'], before), []);
  assert.is(await hasRole(testAddress(CHAIN), 'CHAIN_ADMIN'), true);
  const logs = await node.rpc('eth_getLogs', [{ address: USER_MANAGEMENT, topics: [bytesToHex(eventTopic('addChainAdminByAddress'))], fromBlock: '0x0' }]);
  assert.is(logs.length, 1);
  assert.is(logs[0].transactionHash, receipt.transactionHash);
  assert.equal(decodeEventData(Buffer.from(logs[0].data.slice(2), 'hex')), { code: 0n, message: 'Success' });
  await refused(CHAIN, 'No Permission ', 'addChainAdminByAddress', alice);
  await succeeds(CHAIN, 'addContractAdminByAddress', testAddress(CONTRACT));
});

// [role, the add/del methods' middle part, who may grant it, who may not (though holding another admin role)]
const GRANTS: [string, string, number, number][] = [
  ['GROUP_ADMIN', 'GroupAdmin', CHAIN, SUPER],
  ['NODE_ADMIN', 'NodeAdmin', CHAIN, CONTRACT],
  ['CONTRACT_ADMIN', 'ContractAdmin', CHAIN, SUPER],
  ['CONTRACT_DEPLOYER', 'ContractDeployer', CONTRACT, SUPER],
  ['CONTRACT_DEPLOYER', 'ContractDeployer', CHAIN, NOBODY],
];

test('add<Role>ByAddress / del<Role>ByAddress for every role: granted and revoked by the roles Venachain names, refused to others', async () => {
  for (const [role, part, granter, other] of GRANTS) {
    const add = `add${part}ByAddress` as Method;
    const del = `del${part}ByAddress` as Method;
    await refused(other, 'No Permission ', add, bob);
    await succeeds(granter, add, bob);
    assert.ok(await hasRole(bob, role), `${role} after ${add}`);
    assert.ok(((await queryJson('getAddrListOfRole', [role])) as string[]).includes(bob));
    // granting twice changes nothing, and succeeds, as in Venachain
    await succeeds(granter, add, bob);
    assert.equal(((await queryJson('getAddrListOfRole', [role])) as string[]).filter((a) => a === bob), [bob]);
    await refused(other, 'No Permission ', del, bob);
    await succeeds(granter, del, bob);
    assert.not.ok(await hasRole(bob, role), `${role} after ${del}`);
    assert.not.ok(((await queryJson('getAddrListOfRole', [role])) as string[]).includes(bob));
  }
  // the chain admin role: the super admin's to grant and revoke
  await succeeds(SUPER, 'addChainAdminByAddress', bob);
  await refused(CHAIN, 'No Permission ', 'delChainAdminByAddress', bob);
  await succeeds(SUPER, 'delChainAdminByAddress', bob);
  assert.equal(await queryJson('getRolesByAddress', [bob]), []);
});

test('addUser and the user queries: the record as Venachain answers it, the authorizer is the caller', async () => {
  assert.equal(await queryJson('getAllUsers'), []);
  await refused(NOBODY, 'No Permission ', 'addUser', { address: alice, name: 'alice' });
  // the super admin is not a chain admin: users are a chain admin's
  await refused(SUPER, 'No Permission ', 'addUser', { address: alice, name: 'alice' });
  await succeeds(CHAIN, 'addUser', { address: alice.toUpperCase().replace('0X', '0x'), name: 'alice', descInfo: JSON.stringify({ phone: '13800000000', email: 'alice@example.com' }), version: 2 });
  const record = { address: alice, authorizer: testAddress(CHAIN), name: 'alice', descInfo: '{"email":"alice@example.com","phone":"13800000000"}', version: 2 };
  assert.is(await query('getUserByAddress', [alice]), JSON.stringify(record));
  assert.is(await query('getUserByName', ['alice']), JSON.stringify(record));
  // keys match as Go's encoding/json matches them: case-insensitively
  await succeeds(CHAIN, 'addUser', { Address: bob, NAME: '用户_bob' });
  const bobRecord = { address: bob, authorizer: testAddress(CHAIN), name: '用户_bob' };
  assert.is(await query('getAllUsers'), JSON.stringify([record, bobRecord]));
  await succeeds(CHAIN, 'addUser', { address: testAddress(SUPER), name: 'root' });
  await succeeds(CHAIN, 'addUser', { address: testAddress(NOBODY), name: 'nobody' });
});

test('addUser refuses what Venachain refuses, with its messages, and bad JSON with the argument named', async () => {
  const cases: [object | string, string][] = [
    [{ address: '0x' + '0'.repeat(40), name: 'zero' }, "User's Address must be a nonzero address!"],
    [{ name: 'noaddress' }, "User's Address must be a nonzero address!"],
    [{ address: testAddress(12), name: 'alice' }, ' UserName Already Exist '],
    [{ address: alice, name: 'alice2' }, 'Already Set UserName '],
    [{ address: testAddress(12), name: 'has-hyphen' }, 'Unsupported Username '],
    [{ address: testAddress(12) }, 'Unsupported Username '],
    [{ address: testAddress(12), name: 'x'.repeat(129) }, 'Unsupported Username '],
    [{ address: testAddress(12), name: 'carol', descInfo: '{"email":"not-an-email"}' }, 'Unsupported email address '],
    [{ address: testAddress(12), name: 'carol', descInfo: '{"phone":"12"}' }, 'Unsupported phone number '],
    [{ address: testAddress(12), name: 'carol', descInfo: '{"organization":"a b"}' }, 'Unsupported Orgnization '],
    [{ address: testAddress(12), name: 'carol', descInfo: '{nope' }, 'UserManagement.addUser: descInfo: not JSON'],
    [{ address: testAddress(12), name: 'carol', descInfo: '{"email":5}' }, 'UserManagement.addUser: descInfo: email must be a string'],
    [{ address: testAddress(12).slice(2), name: 'carol' }, 'UserManagement.addUser: argument 1 (json): address must be "0x" and 40 hex digits'],
    [{ address: testAddress(12), name: 'carol', version: '1' }, 'UserManagement.addUser: argument 1 (json): version must be an integer from 0 to 4294967295'],
    [{ address: testAddress(12), name: 7 }, 'UserManagement.addUser: argument 1 (json): name must be a string'],
    ['[1,2]', 'UserManagement.addUser: argument 1 (json): must be a JSON object'],
    ['{"address":', 'UserManagement.addUser: argument 1 (json): not JSON'],
  ];
  for (const [info, reason] of cases) {
    const message = await failure(query('addUser', [info], testAddress(CHAIN)));
    assert.ok(message.startsWith(`execution reverted: ${reason}`), `${JSON.stringify(info)}: ${message}`);
  }
  // one of them as a transaction: status 0, nothing kept
  await refused(CHAIN, ' UserName Already Exist ', 'addUser', { address: testAddress(12), name: 'alice' });
});

test('updateUserDescInfo: given fields replace, others stay; chain admins only; an unknown user or bad field is refused', async () => {
  await refused(NOBODY, 'No Permission ', 'updateUserDescInfo', alice, { organization: 'org' });
  await refused(CHAIN, 'No User Info ', 'updateUserDescInfo', testAddress(12), { organization: 'org' });
  await refused(CHAIN, 'Unsupported phone number ', 'updateUserDescInfo', alice, { phone: '+86' });
  assert.match(await failure(query('updateUserDescInfo', [alice, '"text"'], testAddress(CHAIN))), /argument 2 \(json\): must be a JSON object/);
  await succeeds(CHAIN, 'updateUserDescInfo', alice, { organization: 'Acme_组织', phone: '' });
  const alice1 = JSON.parse((await query('getUserByAddress', [alice])) as string);
  assert.equal(alice1, { address: alice, authorizer: testAddress(CHAIN), name: 'alice', descInfo: '{"email":"alice@example.com","organization":"Acme_组织","phone":"13800000000"}', version: 2 });
  // a user without a description gets one
  await succeeds(CHAIN, 'updateUserDescInfo', bob, { email: 'bob@example.org' });
  assert.equal(JSON.parse((await query('getUserByName', ['用户_bob'])) as string).descInfo, '{"email":"bob@example.org"}');
});

test('user queries refuse an unknown or malformed user', async () => {
  assert.is(await failure(query('getUserByAddress', [testAddress(12)])), 'execution reverted: No User Info ');
  assert.is(await failure(query('getUserByName', ['nosuchuser'])), 'execution reverted: No User Info ');
  assert.is(await failure(query('getUserByName', ['bad name'])), 'execution reverted: Unsupported Username ');
  assert.is(await failure(query('getRolesByName', ['nosuchuser'])), 'execution reverted: No User Info ');
});

test('add<Role>ByName / del<Role>ByName for every role: the name must be a registered user', async () => {
  for (const [role, part, granter, other] of GRANTS) {
    const add = `add${part}ByName` as Method;
    const del = `del${part}ByName` as Method;
    await refused(granter, 'No User Info ', add, 'nosuchuser');
    await refused(granter, 'Unsupported Username ', add, 'bad-name');
    await refused(other, 'No Permission ', add, 'alice');
    await succeeds(granter, add, 'alice');
    assert.ok(((await queryJson('getRolesByName', ['alice'])) as string[]).includes(role), `${role} after ${add}`);
    await refused(other, 'No Permission ', del, 'alice');
    await succeeds(granter, del, 'alice');
    assert.not.ok(await hasRole(alice, role), `${role} after ${del}`);
  }
  await refused(CHAIN, 'No Permission ', 'addChainAdminByName', 'alice');
  await succeeds(SUPER, 'addChainAdminByName', 'alice');
  assert.equal(await queryJson('getRolesByName', ['alice']), ['CHAIN_ADMIN']);
  await succeeds(SUPER, 'delChainAdminByName', 'alice');
  assert.equal(await queryJson('getRolesByName', ['alice']), []);
});

test('transferSuperAdminByAddress / ByName: the new super admin gets the role, the old one loses only that role', async () => {
  await refused(CHAIN, 'No Permission ', 'transferSuperAdminByAddress', testAddress(CHAIN));
  await succeeds(SUPER, 'addChainAdminByAddress', testAddress(SUPER));
  await succeeds(SUPER, 'transferSuperAdminByAddress', testAddress(NOBODY));
  assert.equal(await queryJson('getRolesByAddress', [testAddress(SUPER)]), ['CHAIN_ADMIN']);
  assert.equal(await queryJson('getAddrListOfRole', ['SUPER_ADMIN']), [testAddress(NOBODY)]);
  await refused(SUPER, 'No Permission ', 'transferSuperAdminByName', 'root');
  await refused(NOBODY, 'No User Info ', 'transferSuperAdminByName', 'nosuchuser');
  // to oneself: a no-op that keeps the role (by name too, where Venachain would lose it)
  await succeeds(NOBODY, 'transferSuperAdminByAddress', testAddress(NOBODY));
  await succeeds(NOBODY, 'transferSuperAdminByName', 'nobody');
  assert.equal(await queryJson('getRolesByAddress', [testAddress(NOBODY)]), ['SUPER_ADMIN']);
  await succeeds(NOBODY, 'transferSuperAdminByName', 'root');
  assert.equal(await queryJson('getRolesByAddress', [testAddress(SUPER)]), ['SUPER_ADMIN', 'CHAIN_ADMIN']);
  assert.equal(await queryJson('getRolesByAddress', [testAddress(NOBODY)]), []);
  assert.equal(await queryJson('getAddrListOfRole', ['SUPER_ADMIN']), [testAddress(SUPER)]);
});

test('role queries: unknown role names, wrong argument counts and bad addresses are refused with the reason', async () => {
  assert.is(await failure(query('getAddrListOfRole', ['OWNER'])), 'execution reverted: Unsupported role ');
  // hasRole answers 0 for a role nobody can have, as Venachain does
  assert.is(await query('hasRole', [testAddress(SUPER), 'OWNER']), 0n);
  assert.is(await query('hasRole', [testAddress(SUPER), 'SUPER_ADMIN']), 1n);
  const raw = (data: Uint8Array) => node.raw('eth_call', [{ to: USER_MANAGEMENT, data: bytesToHex(data) }, 'latest']);
  const cases: [Uint8Array, RegExp][] = [
    [encodeCall('addChainAdminByAddress'), /addChainAdminByAddress: takes 1 argument\(s\), got 0/],
    [encodeCall('hasRole', [encodeArg('address', alice)]), /hasRole: takes 2 argument\(s\), got 1/],
    [encodeCall('getAllUsers', [encodeArg('string', 'x')]), /getAllUsers: takes 0 argument\(s\), got 1/],
    [encodeCall('delNodeAdminByAddress', [new TextEncoder().encode('0xnothex')]), /delNodeAdminByAddress: argument 1 \(address\): not an address/],
    [encodeCall('updateUserDescInfo', [encodeArg('address', alice), new TextEncoder().encode('{')]), /updateUserDescInfo: argument 2 \(json\): not JSON/],
  ];
  for (const [data, reason] of cases) {
    const res = await raw(data);
    assert.ok(res.error, `expected an error for ${reason}`);
    assert.match(res.error!.message, reason);
  }
});

test('users and roles survive a restart', async () => {
  const users = await query('getAllUsers');
  const roles = await contractStorageProbe();
  await node.stop();
  node = await startTestNode({ dir });
  assert.is(await query('getAllUsers'), users);
  assert.is(await contractStorageProbe(), roles);
  assert.is(await query('getRolesByName', ['root']), '["SUPER_ADMIN","CHAIN_ADMIN"]');
});

test('a dev chain: the dev account is super admin and chain admin, and grants at once', async () => {
  const dev = await startTestNode({ dev: true });
  try {
    const [account] = await dev.rpc<string[]>('eth_accounts');
    const devQuery = async (method: Method, ...args: string[]) => {
      const res = await dev.rpc('eth_call', [{ to: USER_MANAGEMENT, data: bytesToHex(umData(method, ...args)) }, 'latest']);
      return decodeReturn(2n, USER_MANAGEMENT_ABI[method].returns, Buffer.from(res.slice(2), 'hex'));
    };
    assert.is(await devQuery('getRolesByAddress', account!), '["SUPER_ADMIN","CHAIN_ADMIN"]');
    const sendAs = async (data: Uint8Array) => mined(dev, await dev.rpc('eth_sendTransaction', [{ from: account, to: USER_MANAGEMENT, data: bytesToHex(data), gas: '0x30d40' }]));
    const receipt = await sendAs(umData('addNodeAdminByAddress', alice));
    assert.is(receipt.status, '0x1');
    assert.equal(receipt.logs[0].topics, [bytesToHex(eventTopic('addNodeAdminByAddress'))]);
    assert.is((await sendAs(umData('addUser', JSON.stringify({ address: alice, name: 'alice' })))).status, '0x1');
    assert.is(await devQuery('getRolesByName', 'alice'), '["NODE_ADMIN"]');
    assert.is(await devQuery('getAddrListOfRole', 'CHAIN_ADMIN'), JSON.stringify([account!.toLowerCase()]));
  } finally {
    await dev.stop();
  }
});

test.run();
