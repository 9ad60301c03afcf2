// GroupManagement (0x1000…0006) and EvidenceManagement (0x0000…0099) through JSON-RPC on a chain
// whose genesis gives test keys roles: success, permission denied (status 0, nothing changed, the
// reason through eth_call), bad arguments named, events, answers at an older block; then
// a restart; `chain-node admin group|evidence` against a dev chain.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { getAddress } from 'ethers';
import { startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { sysCallData, sysGenesisWithRoles, sysQuery, sysSendAs, type SysArg } from './helpers/syscontracts.ts';
import { EVIDENCE_MANAGEMENT_ABI, GROUP_MANAGEMENT_ABI } from '../src/codec/system-contracts-abi.ts';
import { decodeEventData, eventTopic } from '../src/codec/venachain-call.ts';
import { EVIDENCE_MANAGEMENT, GROUP_MANAGEMENT } from '../src/exec/native/system-state.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import { runAdminCommand } from '../src/admin-command.ts';

const NOBODY = 0;
const GROUP_ADMIN = 1;
const CHAIN_ADMIN = 2;

const dir = mkdtempSync(join(tmpdir(), 'chain-node-groups-'));
let node: TestNode;
let genesis: object;
test.before(async () => {
  genesis = await sysGenesisWithRoles({ [GROUP_ADMIN]: ['GROUP_ADMIN'], [CHAIN_ADMIN]: ['CHAIN_ADMIN'] });
  node = await startTestNode({ dir, genesis });
});
test.after(async () => {
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const group = (key: number, method: keyof typeof GROUP_MANAGEMENT_ABI, ...args: SysArg[]) => sysSendAs(node, testKey(key), GROUP_MANAGEMENT, sysCallData(GROUP_MANAGEMENT_ABI, method, args));
const evidence = (key: number, method: keyof typeof EVIDENCE_MANAGEMENT_ABI, ...args: SysArg[]) => sysSendAs(node, testKey(key), EVIDENCE_MANAGEMENT, sysCallData(EVIDENCE_MANAGEMENT_ABI, method, args));

async function askGroup(method: keyof typeof GROUP_MANAGEMENT_ABI, args: SysArg[] = [], o: { from?: string; block?: string } = {}) {
  const r = await sysQuery(node, GROUP_MANAGEMENT, GROUP_MANAGEMENT_ABI, method, args, o);
  return r.error ? { error: r.error.message } : r.value!;
}
async function askEvidence(method: keyof typeof EVIDENCE_MANAGEMENT_ABI, args: SysArg[] = [], o: { from?: string; block?: string } = {}) {
  const r = await sysQuery(node, EVIDENCE_MANAGEMENT, EVIDENCE_MANAGEMENT_ABI, method, args, o);
  return r.error ? { error: r.error.message } : r.value!;
}

const info = (groupID: unknown, bootNodes: string[] = []) => JSON.stringify({ groupID, creatorEnode: 'enode://aa@127.0.0.1:16791', bootNodes });

test('hasGroupOpPermission: 1 for CHAIN_ADMIN and GROUP_ADMIN, 0 for others', async () => {
  assert.is(await askGroup('hasGroupOpPermission', [], { from: testAddress(NOBODY) }), 0n);
  assert.is(await askGroup('hasGroupOpPermission', [], { from: testAddress(GROUP_ADMIN) }), 1n);
  assert.is(await askGroup('hasGroupOpPermission', [], { from: testAddress(CHAIN_ADMIN) }), 1n);
});

test('createGroup: a group admin creates; its creator is the caller, EIP-55 as Venachain writes it; 80,000 gas flat', async () => {
  assert.is(await askGroup('getAllGroups'), 'null', 'no groups: Go marshals null');
  const receipt = await group(GROUP_ADMIN, 'createGroup', info(7, ['enode://bb@10.0.0.2:16791']));
  assert.is(receipt.status, '0x1');
  assert.equal(receipt.logs, [], 'Venachain logs only failures');
  const g = JSON.parse((await askGroup('getGroupByID', [7n])) as string);
  assert.equal(g, { creator: getAddress(testAddress(GROUP_ADMIN)), groupID: 7, creatorEnode: 'enode://aa@127.0.0.1:16791', bootNodes: ['enode://bb@10.0.0.2:16791'] });
  assert.equal(JSON.parse((await askGroup('getAllGroups')) as string), [g]);
  // the flat charge: the same call's gas beyond a transfer's is the call data plus 80,000
  assert.ok(BigInt(receipt.gasUsed) >= 21_000n + 80_000n, receipt.gasUsed);
});

test('createGroup refused: no role (permission), bad JSON, a negative id, a repeated id; nothing changes', async () => {
  const before = await askGroup('getAllGroups');
  const cases: [number, string, RegExp][] = [
    [NOBODY, info(8), /No Permission/],
    [CHAIN_ADMIN, 'not json', /argument 1 \(groupInfo\) is not JSON/],
    [CHAIN_ADMIN, info(-1), /groupID must be a non-negative integer/],
    [CHAIN_ADMIN, JSON.stringify({ groupID: 9, bootNodes: 'x' }), /bootNodes must be a JSON list of strings/],
    [CHAIN_ADMIN, info(7), /Repeated GroupID/],
  ];
  for (const [key, arg, reason] of cases) {
    const receipt = await group(key, 'createGroup', arg);
    assert.is(receipt.status, '0x0', arg);
    const answer = await askGroup('createGroup', [arg], { from: testAddress(key) });
    assert.match((answer as { error: string }).error, reason);
  }
  assert.is(await askGroup('getAllGroups'), before);
  assert.match(((await askGroup('getGroupByID', [99n])) as { error: string }).error, /Group Not Found: no group 99/);
  // a wrong argument count or type names the argument
  const r = await node.raw('eth_call', [{ to: GROUP_MANAGEMENT, data: bytesToHex(sysCallData(GROUP_MANAGEMENT_ABI, 'getGroupByID', [])) }, 'latest']);
  assert.match(r.error!.message, /GroupManagement.getGroupByID: takes 1 argument\(s\), got 0/);
});

test('boot nodes: the creator adds (again: -1), removes and replaces them; a chain admin who did not create the group may not; older blocks answer as they were', async () => {
  const before = await node.rpc('eth_blockNumber');
  assert.is((await group(GROUP_ADMIN, 'addBootNode', 7n, 'enode://cc@10.0.0.3:16791')).status, '0x1');
  assert.is(await askGroup('addBootNode', [7n, 'enode://cc@10.0.0.3:16791'], { from: testAddress(GROUP_ADMIN) }), -1n, 'already there');
  const bootNodes = async (block = 'latest') => JSON.parse((await askGroup('getGroupByID', [7n], { block })) as string).bootNodes;
  assert.equal(await bootNodes(), ['enode://bb@10.0.0.2:16791', 'enode://cc@10.0.0.3:16791']);
  assert.is((await group(GROUP_ADMIN, 'delBootNode', 7n, 'enode://bb@10.0.0.2:16791')).status, '0x1');
  assert.equal(await bootNodes(), ['enode://cc@10.0.0.3:16791']);
  assert.is((await group(CHAIN_ADMIN, 'addBootNode', 7n, 'enode://dd@10.0.0.4:16791')).status, '0x0');
  assert.match(((await askGroup('updateBootNodes', [7n, '[]'], { from: testAddress(CHAIN_ADMIN) })) as { error: string }).error, /No Permission.*did not create group 7/);
  assert.is((await group(GROUP_ADMIN, 'updateBootNodes', 7n, '{"a":1}')).status, '0x0');
  assert.match(((await askGroup('updateBootNodes', [7n, '{"a":1}'], { from: testAddress(GROUP_ADMIN) })) as { error: string }).error, /argument 2 \(nodes\) must be a JSON list of strings/);
  assert.is((await group(GROUP_ADMIN, 'updateBootNodes', 7n, '["enode://ee@10.0.0.5:16791"]')).status, '0x1');
  assert.equal(await bootNodes(), ['enode://ee@10.0.0.5:16791']);
  assert.equal(JSON.parse((await askGroup('getAllGroups')) as string)[0].bootNodes, ['enode://ee@10.0.0.5:16791'], 'the list follows');
  assert.equal(await bootNodes(before), ['enode://bb@10.0.0.2:16791'], 'at the block before');
});

test('evidence: anyone saves once (event, owner = origin, Timestamp = block number); saving again refused; setJsonData overwrites; older blocks answer the old value', async () => {
  const receipt = await evidence(NOBODY, 'saveEvidence', 'doc-1', 'sha256:abcd');
  assert.is(receipt.status, '0x1');
  assert.is(receipt.logs.length, 1);
  assert.is(receipt.logs[0].address, EVIDENCE_MANAGEMENT);
  assert.is(receipt.logs[0].topics[0], bytesToHex(eventTopic('Notify')));
  assert.equal(decodeEventData(hexToBytes(receipt.logs[0].data)), { code: 0n, message: 'save evidence success' });
  const saved = JSON.parse((await askEvidence('getEvidence', ['doc-1'])) as string);
  assert.equal(saved, { code: 0, msg: 'success', data: { Owner: testAddress(NOBODY), EvidenceValue: 'sha256:abcd', Timestamp: Number(receipt.blockNumber) } });
  assert.is(await askEvidence('getJsonData', ['doc-1']), 'sha256:abcd');

  assert.is((await evidence(GROUP_ADMIN, 'saveEvidence', 'doc-1', 'other')).status, '0x0');
  assert.match(((await askEvidence('saveEvidence', ['doc-1', 'other'], { from: testAddress(GROUP_ADMIN) })) as { error: string }).error, /This id Already exsit/);
  assert.is(await askEvidence('getJsonData', ['doc-1']), 'sha256:abcd', 'unchanged');

  const set = await evidence(GROUP_ADMIN, 'setJsonData', 'doc-1', '{"v":2}');
  assert.is(set.status, '0x1');
  assert.equal(decodeEventData(hexToBytes(set.logs[0].data)), { code: 0n, message: 'set jsondata success.' });
  const now = JSON.parse((await askEvidence('getEvidence', ['doc-1'])) as string).data;
  assert.equal(now, { Owner: testAddress(GROUP_ADMIN), EvidenceValue: '{"v":2}', Timestamp: Number(set.blockNumber) });
  assert.is(await askEvidence('getJsonData', ['doc-1'], { block: receipt.blockNumber }), 'sha256:abcd', 'at the block it was saved in');

  assert.match(((await askEvidence('getEvidence', ['missing'])) as { error: string }).error, /Evidence Not Found/);
  const r = await node.raw('eth_call', [{ to: EVIDENCE_MANAGEMENT, data: bytesToHex(sysCallData(EVIDENCE_MANAGEMENT_ABI, 'saveEvidence', ['only-key'])) }, 'latest']);
  assert.match(r.error!.message, /EvidenceManagement.saveEvidence: takes 2 argument\(s\), got 1/);
});

test('a restart keeps the groups and the evidence, and the answers at older blocks', async () => {
  const [groups, group7, evidenceNow] = [await askGroup('getAllGroups'), await askGroup('getGroupByID', [7n]), await askEvidence('getEvidence', ['doc-1'])];
  const savedAt = JSON.parse(evidenceNow as string).data.Timestamp as number;
  const before = '0x' + (savedAt - 1).toString(16);
  await node.stop();
  node = await startTestNode({ dir, genesis });
  assert.is(await askGroup('getAllGroups'), groups);
  assert.is(await askGroup('getGroupByID', [7n]), group7);
  assert.is(await askEvidence('getEvidence', ['doc-1']), evidenceNow);
  assert.is(await askEvidence('getJsonData', ['doc-1'], { block: before }), 'sha256:abcd', 'before setJsonData overwrote it');
  // and they still take writes by the same rules
  assert.is((await evidence(NOBODY, 'saveEvidence', 'doc-1', 'again')).status, '0x0');
  assert.is((await group(CHAIN_ADMIN, 'createGroup', info(8))).status, '0x1');
  assert.is(JSON.parse((await askGroup('getAllGroups')) as string).length, JSON.parse(groups as string).length + 1);
});

test('chain-node admin group … and admin evidence … on a dev chain (its account is chain admin)', async () => {
  const dev = await startTestNode({ dev: true });
  try {
    let output = '';
    const admin = async (...args: string[]) => {
      output = '';
      const exit = await runAdminCommand([...args, '--rpc', dev.url], (l) => (output += l + '\n'), (l) => (output += l + '\n'));
      return exit;
    };
    assert.is(await admin('group', 'can-create'), 0, output);
    assert.match(output, /may create groups/);
    assert.is(await admin('group', 'create', '3', 'enode://aa@127.0.0.1:1', 'enode://bb@127.0.0.1:2'), 0, output);
    assert.match(output, /group 3 created \(block \d+, tx 0x/);
    assert.is(await admin('group', 'add-bootnode', '3', 'enode://cc@127.0.0.1:3'), 0, output);
    assert.is(await admin('group', 'show', '3', '--json'), 0, output);
    assert.equal(JSON.parse(output).bootNodes, ['enode://bb@127.0.0.1:2', 'enode://cc@127.0.0.1:3']);
    assert.is(await admin('group', 'create', '3'), 1, output);
    assert.match(output, /failed: .*Repeated GroupID/);
    assert.is(await admin('group', 'show', 'x'), 2, output);
    assert.match(output, /groupID: not an integer/);

    assert.is(await admin('evidence', 'save', 'k', 'v1'), 0, output);
    assert.is(await admin('evidence', 'save', 'k', 'v2'), 1, output);
    assert.match(output, /This id Already exsit/);
    assert.is(await admin('evidence', 'set', 'k', 'v3'), 0, output);
    assert.is(await admin('evidence', 'get', 'k', '--json'), 0, output);
    assert.is(JSON.parse(output).EvidenceValue, 'v3');
  } finally {
    await dev.stop();
  }
});

test.run();
