// The client SDK's system-contract helpers against a real node, through nothing but the SDK (and
// ethers to sign, as the SDK does not): calls encoded from the one signature table, answers
// decoded (JSON parsed, integers as bigint, raw returns of txType 9, older blocks), events read
// from receipts and eth_getLogs, a failed transaction's reason, and compile-time argument checks.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Transaction, Wallet } from 'ethers';
import {
  ChainClient,
  CallCodecError,
  TX_TYPE_RAW_RETURN,
  callSystem,
  decodeSystemEvent,
  decodeSystemResult,
  encodeSystemCall,
  fromQuantity,
  sendSystem,
  systemCall,
  systemOutcome,
  waitForReceipt,
  type SystemResult,
} from '../generated/client/index.ts';
import { encodeArg, encodeCall } from '../src/codec/venachain-call.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';

let node: TestNode;
let client: ChainClient;

test.before(async () => {
  node = await startTestNode();
  client = ChainClient.http(node.url);
});
test.after(async () => {
  await client?.close();
  await node?.stop();
});

test('a call built by systemCall reaches the contract; its answer is decoded by the table (JSON parsed, integers as bigint)', async () => {
  const call = systemCall('UserManagement', 'getRolesByAddress', testAddress(0));
  assert.is(call.to, '0x1000000000000000000000000000000000000001');
  assert.is(call.data, bytesToHex(encodeCall('getRolesByAddress', [encodeArg('address', testAddress(0))])));
  assert.equal(await callSystem(client, call), []);
  assert.is(await callSystem(client, systemCall('UserManagement', 'hasRole', testAddress(0), 'SUPER_ADMIN')), 0n);
});

test('a mined call: events decoded from the receipt and from eth_getLogs; an older block answers the state before it', async () => {
  const wallet = new Wallet(testKey(0));
  const call = systemCall('UserManagement', 'setSuperAdmin');
  const raw = await wallet.signTransaction(Transaction.from({ to: call.to, data: call.data, gasLimit: 200_000n, gasPrice: 0n, chainId: 300, nonce: 0 }));
  const receipt = await waitForReceipt(client, await client.eth.sendRawTransaction(raw));
  const outcome = await systemOutcome(client, call, receipt);
  assert.is(outcome.ok, true);
  assert.is(outcome.reason, undefined);
  assert.equal(
    outcome.events.map(({ contract, topic, code, message }) => ({ contract, topic, code, message })),
    [{ contract: 'UserManagement', topic: 'setSuperAdmin', code: 0n, message: 'Success' }],
  );
  const logs = await client.eth.getLogs({ address: call.to, fromBlock: '0x0' });
  assert.is(decodeSystemEvent(logs[0]!)?.topic, 'setSuperAdmin');
  // not a system contract's log
  assert.is(decodeSystemEvent({ ...logs[0]!, address: testAddress(1) }), undefined);
  assert.equal(await callSystem(client, systemCall('UserManagement', 'getRolesByAddress', testAddress(0))), ['SUPER_ADMIN']);
  const before = fromQuantity(receipt.blockNumber) - 1n;
  assert.equal(await callSystem(client, systemCall('UserManagement', 'getRolesByAddress', testAddress(0)), { block: '0x' + before.toString(16) }), []);
});

test('txType 9 answers decode too: an integer of 8 bytes', async () => {
  const data = bytesToHex(encodeCall('hasRole', [encodeArg('address', testAddress(0)), encodeArg('string', 'SUPER_ADMIN')], TX_TYPE_RAW_RETURN));
  const answer = await client.eth.call({ to: '0x1000000000000000000000000000000000000001', data }, 'latest');
  assert.is(answer.length, 2 + 16);
  assert.is(decodeSystemResult('UserManagement', 'hasRole', answer, TX_TYPE_RAW_RETURN), 1n);
});

test('sendSystem from an account the node holds: a refused call is status 0 with the contract reason; the dev chain is governed', async () => {
  const dev = await startTestNode({ dev: true });
  const devClient = ChainClient.http(dev.url);
  try {
    const [from] = await devClient.eth.accounts();
    const outcome = await sendSystem(devClient, systemCall('UserManagement', 'setSuperAdmin'), { from: from! });
    assert.is(outcome.receipt.status, '0x0');
    assert.is(outcome.ok, false);
    assert.equal(outcome.events, []);
    assert.is(outcome.reason, 'Already Set SuperAdmin');
    assert.equal(await callSystem(devClient, systemCall('UserManagement', 'getAddrListOfRole', 'CHAIN_ADMIN')), [from]);
    // NodeManagement's answers: {code, msg, data}, the node itself registered as node0
    const nodes = await callSystem(devClient, systemCall('NodeManagement', 'getAllNodes'));
    assert.equal([nodes.code, nodes.msg, nodes.data.map((n) => [n.name, n.type, n.status])], [0, 'success', [['node0', 1, 1]]]);
    const enodes = await callSystem(devClient, systemCall('NodeManagement', 'getNormalEnodeNodes'));
    assert.is(enodes.data[0]!.PublicKey, nodes.data[0]!.publicKey);
    assert.is(await callSystem(devClient, systemCall('NodeManagement', 'nodesNum', { type: 1, status: 1 })), 1n);
    // ParameterManagement: integers, and VRFParams' JSON parsed
    assert.equal(await callSystem(devClient, systemCall('ParameterManagement', 'getVRFParams')), { electionEpoch: 0, nextElectionBlock: 0, validatorCount: 0 });
    assert.is(await callSystem(devClient, systemCall('ParameterManagement', 'getIsProduceEmptyBlock')), 0n);
  } finally {
    await devClient.close();
    await dev.stop();
  }
});

test('bad calls are refused before they are sent, naming the method and argument', () => {
  assert.throws(() => encodeSystemCall('UserManagement', 'noSuchMethod', []), (e: Error) => e instanceof CallCodecError && /UserManagement has no method "noSuchMethod"/.test(e.message));
  assert.throws(() => encodeSystemCall('UserManagement', 'hasRole', [testAddress(0)]), /hasRole takes 2 argument\(s\), got 1/);
  assert.throws(() => encodeSystemCall('UserManagement', 'getRolesByAddress', ['0x12']), /getRolesByAddress argument 1 \(address\): an address argument must be 0x and 40 hex digits/);
});

// Compiled by `tsc --noEmit -p .`, never run: each marked line must be a type error.
export function typeChecks(): void {
  // @ts-expect-error an unknown method
  systemCall('UserManagement', 'noSuchMethod');
  // @ts-expect-error a missing argument
  systemCall('UserManagement', 'hasRole', testAddress(0));
  // @ts-expect-error an argument too many
  systemCall('UserManagement', 'setSuperAdmin', 1n);
  // @ts-expect-error a number where an address (text) goes
  systemCall('UserManagement', 'getRolesByAddress', 5);
  // @ts-expect-error update takes the name and the change
  systemCall('NodeManagement', 'update', { status: 2 });
  // results typed by the method: an integer, a parsed JSON answer
  const has = (answer: SystemResult<'UserManagement', 'hasRole'>): bigint => answer;
  const roles = (answer: SystemResult<'UserManagement', 'getRolesByAddress'>): readonly string[] => answer;
  const users = (answer: SystemResult<'UserManagement', 'getAllUsers'>): string => answer[0]!.name;
  // @ts-expect-error a role list is not text
  const notText = (answer: SystemResult<'UserManagement', 'getRolesByAddress'>): string => answer;
  void [has, roles, users, notText];
}

test.run();
