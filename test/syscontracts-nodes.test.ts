// NodeManagement through JSON-RPC on a dev chain (the dev account is chain admin, node0 is this
// node): every method's answer as Venachain's Go marshals it, Venachain's checks on add and update,
// the origin's permission, events in receipts and eth_getLogs, answers at an older block, records
// surviving a restart; and a genesis-file chain, which starts with nothing registered, where a
// NODE_ADMIN registers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Wallet } from 'ethers';
import { startTestNode, testKey, type TestNode } from './helpers/node.ts';
import { sysCallData, sysGenesisWithRoles, sysQuery, sysSendAs, sysSendFrom, type SysArg } from './helpers/syscontracts.ts';
import { decodeEventData, encodeCall, eventTopic, TX_TYPE_RAW_RETURN } from '../src/codec/venachain-call.ts';
import { NODE_MANAGEMENT_ABI } from '../src/codec/system-contracts-abi.ts';
import { NODE_MANAGEMENT } from '../src/exec/native/system-state.ts';
import { publicKeyOf, randomPrivateKey } from '../src/crypto/secp256k1.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

const dir = mkdtempSync(join(tmpdir(), 'chain-node-nodes-'));
let node: TestNode;
let admin: string;
let node0: Record<string, unknown>;
/** a key without any role */
const stranger = bytesToHex(randomPrivateKey());
const strangerAddress = new Wallet(stranger).address.toLowerCase();

const freshPublicKey = () => bytesToHex(publicKeyOf(randomPrivateKey())).slice(2);
const data = (method: string, ...args: SysArg[]) => sysCallData(NODE_MANAGEMENT_ABI, method, args);
const asAdmin = (method: string, ...args: SysArg[]) => sysSendFrom(node, admin, NODE_MANAGEMENT, data(method, ...args));
const query = (method: string, args: SysArg[] = [], o: { from?: string; block?: string } = {}) => sysQuery(node, NODE_MANAGEMENT, NODE_MANAGEMENT_ABI, method, args, { from: admin, ...o });
async function answer(method: string, args: SysArg[] = [], block?: string): Promise<any> {
  const r = await query(method, args, { block });
  assert.ok(r.error === undefined, `${method}: ${r.error?.message}`);
  return typeof r.value === 'string' ? JSON.parse(r.value) : r.value;
}
const observer = (name: string, publicKey = freshPublicKey()) => ({ name, owner: '', desc: `${name} node`, type: 2, status: 1, externalIP: '10.0.0.2', internalIP: '192.168.0.2', publicKey, rpcPort: 6791, p2pPort: 16791 });
const head = async () => node.rpc<string>('eth_blockNumber');

test.before(async () => {
  node = await startTestNode({ dev: true, dir });
  [admin] = await node.rpc<string[]>('eth_accounts');
  node0 = (await answer('getAllNodes')).data[0];
});

test.after(async () => {
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a new dev chain lists its own node: the exact bytes of Go’s json.Marshal of the result', async () => {
  const nodeInfo = await node.rpc('admin_nodeInfo');
  const r = await query('getAllNodes');
  const key = nodeInfo.id as string;
  assert.is(
    r.value,
    `{"code":0,"msg":"success","data":[{"name":"node0","owner":"${admin}","desc":"the dev chain node","type":1,"status":1,"externalIP":"127.0.0.1","internalIP":"127.0.0.1","publicKey":"${key}","rpcPort":${node0.rpcPort},"p2pPort":${node0.p2pPort}}]}`,
  );
  // txType 9 answers the same text raw
  const raw = await node.raw('eth_call', [{ to: NODE_MANAGEMENT, data: bytesToHex(encodeCall('getAllNodes', [], TX_TYPE_RAW_RETURN)) }, 'latest']);
  assert.is(Buffer.from(hexToBytes(raw.result)).toString(), r.value);
});

test('add: an observer joins, with a Notify event in the receipt and eth_getLogs; queries see it now, not at the block before', async () => {
  const before = await head();
  const record = observer('observer1');
  assert.is((await query('add', [record])).value, 0n);
  const receipt = await asAdmin('add', record);
  assert.is(receipt.status, '0x1');
  assert.is(receipt.logs.length, 1);
  const [log] = receipt.logs;
  assert.is(log.address, NODE_MANAGEMENT);
  assert.equal(log.topics, [bytesToHex(eventTopic('Notify'))]);
  // owner "" is written (not omitempty), delayNum 0 left out
  const json = `{"name":"observer1","owner":"","desc":"observer1 node","type":2,"status":1,"externalIP":"10.0.0.2","internalIP":"192.168.0.2","publicKey":"${record.publicKey}","rpcPort":6791,"p2pPort":16791}`;
  assert.equal(decodeEventData(hexToBytes(log.data)), { code: 0n, message: `add node success. node:${json}` });
  const logs = await node.rpc('eth_getLogs', [{ address: NODE_MANAGEMENT, fromBlock: '0x0', topics: [bytesToHex(eventTopic('Notify'))] }]);
  assert.is(logs.length, 1);
  assert.is(logs[0].transactionHash, receipt.transactionHash);

  const all = await answer('getAllNodes');
  assert.equal(all.data.map((n: any) => n.name), ['node0', 'observer1']);
  assert.is((await query('getNodes', [{ name: 'observer1' }])).value, `{"code":0,"msg":"success","data":[${json}]}`);
  assert.is(await answer('nodesNum', [{ type: 2 }]), 1n);
  assert.is(await answer('nodesNum', [{ status: 1 }]), 2n);
  assert.is(await answer('nodesNum', [{ status: 1, externalIP: '10.0.0.2' }]), 1n);
  // a query without a non-zero field matches nothing
  assert.is(await answer('nodesNum', [{}]), 0n);
  assert.match((await query('getNodes', [{ type: 0 }])).error!.message, /node not found/);
  assert.is(await answer('validJoinNode', [record.publicKey]), 1n);
  // the block before the add
  assert.equal((await answer('getAllNodes', [], before)).data.map((n: any) => n.name), ['node0']);
  assert.match((await query('getNodes', [{ name: 'observer1' }], { block: before })).error!.message, /node not found/);
  assert.is(await answer('validJoinNode', [record.publicKey], before), 0n);
});

test('permission: an origin without CHAIN_ADMIN or NODE_ADMIN fails (status 0, no logs, nothing changed), eth_call says why', async () => {
  const record = observer('intruder');
  const receipt = await sysSendAs(node, stranger, NODE_MANAGEMENT, data('add', record));
  assert.is(receipt.status, '0x0');
  assert.is(receipt.logs.length, 0);
  assert.is(await answer('nodesNum', [{ name: 'intruder' }]), 0n);
  const denied = await query('add', [record], { from: strangerAddress });
  assert.match(denied.error!.message, new RegExp(`no permission to manage node system contract: ${strangerAddress} has neither CHAIN_ADMIN nor NODE_ADMIN`));
  const update = await sysSendAs(node, stranger, NODE_MANAGEMENT, data('update', 'observer1', { status: 2 }));
  assert.is(update.status, '0x0');
  assert.is((await answer('getNodes', [{ name: 'observer1' }])).data[0].status, 1);
  assert.match((await query('update', ['observer1', { status: 2 }], { from: strangerAddress })).error!.message, /no permission/);
  // a call without a sender is the node's own inner call (the zero address), which Venachain lets through
  assert.is((await sysQuery(node, NODE_MANAGEMENT, NODE_MANAGEMENT_ABI, 'add', [record])).value, 0n);
  // the readers need no role
  assert.is((await query('getAllNodes', [], { from: strangerAddress })).error, undefined);
});

test('add: invalid arguments are refused with the reason, as a failed transaction', async () => {
  const taken = (await answer('getNodes', [{ name: 'observer1' }])).data[0].publicKey as string;
  const ok = observer('candidate');
  const cases: [Uint8Array, RegExp][] = [
    [encodeCall('add'), /takes 1 argument\(s\), got 0/],
    [data('add', ok, 'extra'), /takes 1 argument\(s\), got 2/],
    [encodeCall('add', [new TextEncoder().encode('{"name":')]), /argument 1 \(json\): not JSON/],
    [data('add', [ok]), /must be a JSON object/],
    [data('add', { ...ok, type: '2' }), /"type" must be a JSON number/],
    [data('add', { ...ok, p2pPort: -1 }), /"p2pPort" must be a JSON number, an integer from 0/],
    [data('add', { ...ok, publicKey: undefined }), /the parameters invalid: "publicKey" is required/],
    [data('add', { ...ok, internalIP: '' }), /"internalIP" is required/],
    [data('add', { ...ok, status: 3 }), /"status" must be 1 \(normal\) or 2 \(deleted\)/],
    [data('add', { ...ok, type: 1 }), /"type" must be 2 \(observer\) or 3 \(light\) when adding, got 1/],
    [data('add', { ...ok, name: 'node-1' }), /"name" must be 1 to 128 letters/],
    [data('add', { ...ok, name: 'x'.repeat(129) }), /"name" must be 1 to 128/],
    [data('add', { ...ok, externalIP: '10.0.0.256' }), /"externalIP" must be an IPv4 address/],
    [data('add', { ...ok, desc: 'd'.repeat(101) }), /"desc" must be at most 100 characters/],
    [data('add', { ...ok, name: 'observer1' }), /node name exist: observer1/],
    [data('add', { ...ok, publicKey: 'zz' + ok.publicKey.slice(2) }), /publicKey must be hex digits/],
    [data('add', { ...ok, publicKey: '0x' + ok.publicKey }), /publicKey must be hex digits/],
    [data('add', { ...ok, publicKey: ok.publicKey.slice(2) }), /publicKey must be 128 hex digits .* got 126/],
    // (1, 1) is not on y² = x³ + 7
    [data('add', { ...ok, publicKey: '00'.repeat(31) + '01' + '00'.repeat(31) + '01' }), /publicKey is not a point on secp256k1/],
    [data('add', { ...ok, publicKey: taken }), /publicKey exist: node observer1 has it/],
    [data('add', { ...ok, publicKey: taken.toUpperCase() }), /publicKey exist/],
  ];
  for (const [input, reason] of cases) {
    const res = await node.raw('eth_call', [{ from: admin, to: NODE_MANAGEMENT, data: bytesToHex(input) }, 'latest']);
    assert.ok(res.error, `expected an error for ${Buffer.from(input).toString()}`);
    assert.match(res.error!.message, reason);
  }
  // one of them as a transaction: status 0, nothing written, no event
  const receipt = await asAdmin('add', { ...ok, type: 1 });
  assert.is(receipt.status, '0x0');
  assert.is(receipt.logs.length, 0);
  assert.is(await answer('nodesNum', [{ name: 'candidate' }]), 0n);
  // keys are case-insensitive hex, names are any of Venachain's characters (Han too)
  assert.is((await query('add', [{ ...ok, name: '节点_1', publicKey: ok.publicKey.toUpperCase() }])).value, 0n);
});

test('update: desc, type, status and delayNum change, absent fields stay; "delete" is status 2 and keeps the record', async () => {
  const receipt = await asAdmin('update', 'observer1', { desc: 'promoted', type: 1, delayNum: 1000 });
  assert.is(receipt.status, '0x1');
  assert.equal(decodeEventData(hexToBytes(receipt.logs[0].data)), { code: 0n, message: 'update node success. info:{"desc":"promoted","type":1,"delayNum":1000}' });
  const record = (await answer('getNodes', [{ name: 'observer1' }])).data[0];
  assert.equal([record.desc, record.type, record.status, record.delayNum, record.externalIP], ['promoted', 1, 1, 1000, '10.0.0.2']);
  // Go leaves out a zero delayNum on output, but an update naming it (a pointer) says so
  const zero = await asAdmin('update', 'observer1', { delayNum: 0, type: 2 });
  assert.is(decodeEventData(hexToBytes(zero.logs[0].data)).message, 'update node success. info:{"type":2,"delayNum":0}');
  assert.not.ok('delayNum' in (await answer('getNodes', [{ name: 'observer1' }])).data[0]);

  const cases: [SysArg[], RegExp][] = [
    [['nobody', { status: 2 }], /the parameters invalid: node not found: nobody/],
    [['bad-name', { status: 2 }], /"name" must be 1 to 128 letters, digits, _ or Han characters, got "bad-name"/],
    [['observer1', { status: 3 }], /"status" must be 1 \(normal\) or 2 \(deleted\), got 3/],
    [['observer1', { type: 4 }], /"type" must be 1 \(consensus\), 2 \(observer\) or 3 \(light\), got 4/],
    [['observer1', { desc: '' }], /"desc" cannot be an empty string/],
    [['observer1', { delayNum: 'soon' }], /"delayNum" must be a JSON number/],
    [['observer1', '[1]'], /must be a JSON object/],
  ];
  for (const [args, reason] of cases) assert.match((await query('update', args)).error!.message, reason, JSON.stringify(args));

  assert.match((await query('getDeletedEnodeNodes')).error!.message, /node not found/);
  assert.is((await asAdmin('update', 'observer1', { status: 2 })).status, '0x1');
  const deleted = (await answer('getNodes', [{ name: 'observer1' }])).data[0];
  assert.is(deleted.status, 2);
  assert.is((await query('getDeletedEnodeNodes')).value, `{"code":0,"msg":"success","data":[{"PublicKey":"${deleted.publicKey}","IP":"10.0.0.2","Port":16791}]}`);
  assert.is((await query('getNormalEnodeNodes')).value, `{"code":0,"msg":"success","data":[{"PublicKey":"${node0.publicKey}","IP":"127.0.0.1","Port":${node0.p2pPort}}]}`);
  // a deleted record still holds its name and key, and still counts as known to p2p admission
  assert.is(await answer('nodesNum', [{ status: 2 }]), 1n);
  assert.is(await answer('validJoinNode', [deleted.publicKey]), 1n);
  assert.match((await query('add', [observer('observer1')])).error!.message, /node name exist/);
});

test('validJoinNode: 1 for a registered key, 0 for an unknown or malformed one', async () => {
  assert.is(await answer('validJoinNode', [node0.publicKey as string]), 1n);
  assert.is(await answer('validJoinNode', [freshPublicKey()]), 0n);
  assert.is(await answer('validJoinNode', ['not a key']), 0n);
  assert.match((await query('validJoinNode', [])).error!.message, /takes 1 argument\(s\), got 0/);
});

test('importOldNodesData: adds each record with add’s checks, all or nothing', async () => {
  const a = observer('imported_a');
  const b = observer('imported_b');
  assert.match((await query('importOldNodesData', ['[{']))!.error!.message, /old nodes data unmarshal fail/);
  // the second record is bad: the first is not kept either
  assert.match((await query('importOldNodesData', [JSON.stringify([a, { ...b, type: 1 }])])).error!.message, /"type" must be 2/);
  const receipt = await asAdmin('importOldNodesData', JSON.stringify([a, b]));
  assert.is(receipt.status, '0x1');
  assert.equal(
    receipt.logs.map((l: any) => decodeEventData(hexToBytes(l.data)).message.replace(/:\{.*/, '')),
    ['add node success. node', 'add node success. node', 'import old nodes data success'],
  );
  assert.is(await answer('nodesNum', [{ desc: 'imported_b node' }]), 1n);
  const denied = await sysSendAs(node, stranger, NODE_MANAGEMENT, data('importOldNodesData', JSON.stringify([observer('imported_c')])));
  assert.is(denied.status, '0x0');
});

test('the records survive a restart', async () => {
  const before = await answer('getAllNodes');
  await node.stop();
  node = await startTestNode({ dev: true, dir });
  assert.equal(await answer('getAllNodes'), before);
  assert.equal(before.data.map((n: any) => n.name), ['imported_a', 'imported_b', 'node0', 'observer1']);
});

test('a genesis-file chain starts with no records; a NODE_ADMIN may add and update, an account without a role may not', async () => {
  const plain = await startTestNode({ genesis: await sysGenesisWithRoles({ 1: ['NODE_ADMIN'] }) });
  try {
    const q = (method: string, args: SysArg[] = []) => sysQuery(plain, NODE_MANAGEMENT, NODE_MANAGEMENT_ABI, method, args);
    assert.is((await q('getAllNodes')).value, '{"code":0,"msg":"success","data":[]}');
    assert.match((await q('getNormalEnodeNodes')).error!.message, /node not found/);
    assert.is((await q('nodesNum', [{ status: 1 }])).value, 0n);
    const denied = await sysSendAs(plain, testKey(0), NODE_MANAGEMENT, data('add', observer('first')));
    assert.is(denied.status, '0x0');
    assert.is((await q('getAllNodes')).value, '{"code":0,"msg":"success","data":[]}');
    const added = await sysSendAs(plain, testKey(1), NODE_MANAGEMENT, data('add', observer('first')));
    assert.is(added.status, '0x1');
    const updated = await sysSendAs(plain, testKey(1), NODE_MANAGEMENT, data('update', 'first', { status: 2 }));
    assert.is(updated.status, '0x1');
    assert.is((await q('nodesNum', [{ name: 'first', status: 2 }])).value, 1n);
  } finally {
    await plain.stop();
  }
});

test.run();
