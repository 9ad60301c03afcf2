// ParameterManagement through JSON-RPC: every setter and getter with Venachain's defaults, ranges,
// codes and events; permission (CHAIN_ADMIN of the origin) and bad values are failed transactions
// whose reason eth_call answers; values at older blocks; and the parameters' effects on the node:
// TxGasLimit (admission, eth_estimateGas's cap, eth_sendTransaction's default gas), BlockGasLimit
// (sealed blocks), IsProduceEmptyBlock (empty blocks on a chain with a period) and
// IsCheckContractDeployPermission (deploys without a deployer role fail).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { getCreateAddress, Transaction, Wallet } from 'ethers';
import { mined, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { decodeEventData, encodeCall, eventTopic } from '../src/codec/venachain-call.ts';
import { CNS_MANAGEMENT_ABI, PARAMETER_MANAGEMENT_ABI } from '../src/codec/system-contracts-abi.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { CNS_MANAGEMENT, PARAMETER_MANAGEMENT } from '../src/exec/native/system-state.ts';
import { sysCallData, sysGenesisWithRoles, sysQuery } from './helpers/syscontracts.ts';

type Method = keyof typeof PARAMETER_MANAGEMENT_ABI;

const paramCall = (method: Method, ...args: (string | bigint)[]): string => bytesToHex(sysCallData(PARAMETER_MANAGEMENT_ABI, method, args));

/** eth_call of a method: its decoded answer, or the error message of a failed call. */
async function ask(node: TestNode, method: Method, args: (string | bigint)[] = [], o: { from?: string; block?: string } = {}): Promise<bigint | string | { error: string }> {
  const answer = await sysQuery(node, PARAMETER_MANAGEMENT, PARAMETER_MANAGEMENT_ABI, method, args, o);
  return answer.error ? { error: answer.error.message } : answer.value!;
}

/** The one event of a receipt, decoded. */
function event(receipt: any): { topic: string; code: bigint; message: string } {
  assert.is(receipt.logs.length, 1, JSON.stringify(receipt.logs));
  const [log] = receipt.logs;
  assert.is(log.address, PARAMETER_MANAGEMENT);
  return { topic: log.topics[0], ...decodeEventData(Buffer.from(log.data.slice(2), 'hex')) };
}

const SUCCESS_EVENT = (key: string) => ({ topic: bytesToHex(eventTopic(key)), code: 0n, message: 'param set successful.' });

// ---- a dev chain: its dev account is chain admin ----

let dev: TestNode;
let admin: string;
const devDir = mkdtempSync(join(tmpdir(), 'chain-node-params-'));

async function adminSends(data: string, gas?: bigint): Promise<any> {
  const hash = await dev.rpc('eth_sendTransaction', [{ from: admin, to: PARAMETER_MANAGEMENT, data, gas: gas === undefined ? undefined : '0x' + gas.toString(16) }]);
  return mined(dev, hash);
}

test.before(async () => {
  dev = await startTestNode({ dev: true, dir: devDir });
  [admin] = await dev.rpc<string[]>('eth_accounts');
});

test.after(async () => {
  await dev?.stop();
  rmSync(devDir, { recursive: true, force: true });
});

test("before anything is set every getter answers the value in force: the gas limits the node applies, Venachain's defaults for the rest", async () => {
  // a dev chain's per-transaction limit (its genesis config.txGasLimit) and its blocks' gas limit
  assert.is(await ask(dev, 'getTxGasLimit'), 30_000_000n);
  const head = await dev.rpc('eth_getBlockByNumber', ['latest', false]);
  assert.is(await ask(dev, 'getBlockGasLimit'), BigInt(head.gasLimit));
  for (const m of ['getIsProduceEmptyBlock', 'getCheckContractDeployPermission', 'getIsTxUseGas', 'getIsApproveDeployedContract'] as const) assert.is(await ask(dev, m), 0n, m);
  assert.is(await ask(dev, 'getIsBlockUseTrieHash'), 1n);
  assert.is(await ask(dev, 'getGasContractName'), '');
  assert.is(await ask(dev, 'getVRFParams'), '{"electionEpoch":0,"nextElectionBlock":0,"validatorCount":0}');
  assert.is(await ask(dev, 'getIntParam', ['IsUseDAG']), 0n);
  assert.is(await ask(dev, 'getStrParam', ['TxGasLimit']), '30000000');
  assert.is(await ask(dev, 'getStrParam', ['neverSet']), '""');
});

test('every setter: success code 0, an event under the parameter key (receipt and eth_getLogs), the getter answers the new value, the older block the old one', async () => {
  // GasContractName must be a name registered in CNS: the admin registers a contract it creates
  const created = await mined(dev, await dev.rpc('eth_sendTransaction', [{ from: admin, data: '0x600a600c600039600a6000f3602a60005260206000f3' }]));
  const cnsRegister = bytesToHex(sysCallData(CNS_MANAGEMENT_ABI, 'cnsRegister', ['gas_token', '1.0.0.1', created.contractAddress]));
  assert.is((await mined(dev, await dev.rpc('eth_sendTransaction', [{ from: admin, to: CNS_MANAGEMENT, data: cnsRegister }]))).status, '0x1');
  const before = await dev.rpc('eth_blockNumber');
  const cases: [Method, (string | bigint)[], string, Method, (string | bigint)[], bigint | string][] = [
    ['setBlockGasLimit', [15_000_000_000n], 'BlockGasLimit', 'getBlockGasLimit', [], 15_000_000_000n],
    ['setTxGasLimit', [1_300_000_000n], 'TxGasLimit', 'getTxGasLimit', [], 1_300_000_000n],
    ['setIsTxUseGas', [1n], 'IsTxUseGas', 'getIsTxUseGas', [], 1n],
    ['setIsApproveDeployedContract', [1n], 'IsApproveDeployedContract', 'getIsApproveDeployedContract', [], 1n],
    ['setIsBlockUseTrieHash', [0n], 'IsBlockUseTrieHash', 'getIsBlockUseTrieHash', [], 0n],
    ['setCheckContractDeployPermission', [1n], 'IsCheckContractDeployPermission', 'getCheckContractDeployPermission', [], 1n],
    ['setGasContractName', ['gas_token'], 'GasContractName', 'getGasContractName', [], 'gas_token'],
    ['setVRFParams', ['{"electionEpoch":10,"nextElectionBlock":20,"validatorCount":3}'], 'VRFParams', 'getVRFParams', [], '{"electionEpoch":10,"nextElectionBlock":20,"validatorCount":3}'],
    ['setIntParam', ['IsUseDAG', 1n], 'IsUseDAG', 'getIntParam', ['IsUseDAG'], 1n],
    ['setIntParam', ['IsProduceEmptyBlock', 1n], 'IsProduceEmptyBlock', 'getIsProduceEmptyBlock', [], 1n],
    ['setStrParam', ['myParam', 'hello_world'], 'myParam', 'getStrParam', ['myParam'], '"hello_world"'],
  ];
  for (const [setter, args, key, getter, getArgs, value] of cases) {
    const receipt = await adminSends(paramCall(setter, ...args));
    assert.is(receipt.status, '0x1', setter);
    assert.equal(event(receipt), SUCCESS_EVENT(key), setter);
    assert.is(await ask(dev, getter, getArgs), value, getter);
    assert.is.not(await ask(dev, getter, getArgs, { block: before }), value, `${getter} at block ${before}`);
  }
  // setter answers its code through eth_call too
  assert.is(await ask(dev, 'setIsTxUseGas', [0n], { from: admin }), 0n);
  assert.is(await ask(dev, 'getStrParam', ['VRFParams']), '{"electionEpoch":10,"nextElectionBlock":20,"validatorCount":3}');
  const logs = await dev.rpc('eth_getLogs', [{ address: PARAMETER_MANAGEMENT, topics: [bytesToHex(eventTopic('TxGasLimit'))], fromBlock: '0x0' }]);
  assert.is(logs.length, 1);
  assert.equal(decodeEventData(Buffer.from(logs[0].data.slice(2), 'hex')), { code: 0n, message: 'param set successful.' });
});

test("invalid values fail with the reason: Venachain's ranges, 0/1 flags, bad JSON, bad names, the wrong kind", async () => {
  const cases: [Method, (string | bigint)[], RegExp][] = [
    ['setTxGasLimit', [1_000_000n], /TxGasLimit must be between 1277159600 and 2000000000, got 1000000/],
    ['setTxGasLimit', [2_000_000_001n], /TxGasLimit must be between/],
    ['setBlockGasLimit', [20_000_000_001n], /BlockGasLimit must be between 1277159600 and 20000000000/],
    ['setBlockGasLimit', [1_280_000_000n], /BlockGasLimit 1280000000 is smaller than the transaction gas limit 1300000000/],
    ['setIsProduceEmptyBlock', [2n], /IsProduceEmptyBlock must be 0 or 1, got 2/],
    ['setIntParam', ['IsTxUseGas', 7n], /IsTxUseGas must be 0 or 1, got 7/],
    ['setVRFParams', ['{"validatorCount":'], /VRFParams is not JSON/],
    ['setVRFParams', ['{"validatorCount":0}'], /validatorCount must be at least 1/],
    ['setVRFParams', ['{"validatorCount":"3"}'], /validatorCount must be a non-negative integer/],
    ['setVRFParams', ['[1,2]'], /VRFParams must be a JSON object/],
    ['setGasContractName', ['bad name!'], /GasContractName must be 1 to 128 letters, digits or _/],
    ['setGasContractName', ['unregistered'], /contract name not exist: GasContractName "unregistered" is not registered in CNS/],
    ['setStrParam', ['other', ''], /other must be 1 to 128/],
    ['setIntParam', ['GasContractName', 1n], /unsupported: "GasContractName" is not an integer parameter/],
    ['setIntParam', ['noSuchKey', 1n], /unsupported: "noSuchKey" is not an integer parameter/],
    ['setStrParam', ['TxGasLimit', '1300000000'], /unsupported: TxGasLimit is an integer parameter/],
    ['getIntParam', ['GasContractName'], /the data type invalid: "GasContractName" is not an integer parameter/],
  ];
  for (const [method, args, reason] of cases) {
    const answer = await ask(dev, method, args, { from: admin });
    assert.ok(typeof answer === 'object', `${method}(${args}) should fail`);
    assert.match((answer as { error: string }).error, reason);
  }
  const wrongCount = await dev.raw('eth_call', [{ to: PARAMETER_MANAGEMENT, data: bytesToHex(encodeCall('setTxGasLimit')) }, 'latest']);
  assert.match(wrongCount.error!.message, /setTxGasLimit: takes 1 argument\(s\), got 0/);
  // as a transaction: status 0, no event, nothing changed
  const receipt = await adminSends(paramCall('setTxGasLimit', 1_000_000n), 200_000n);
  assert.is(receipt.status, '0x0');
  assert.is(receipt.logs.length, 0);
  assert.is(await ask(dev, 'getTxGasLimit'), 1_300_000_000n);
});

test('TxGasLimit rules admission, eth_estimateGas and the default gas of eth_sendTransaction; BlockGasLimit the sealed blocks', async () => {
  // TxGasLimit is 1.3e9 (set above; the dev genesis' own limit is 30M), BlockGasLimit 1.5e10; the
  // block gas bound (S13, 60M by default) caps the limit in force, and the refusal names both
  const head = await dev.rpc('eth_getBlockByNumber', ['latest', false]);
  assert.is(BigInt(head.gasLimit), 15_000_000_000n);
  const over = await new Wallet(testKey(5)).signTransaction(Transaction.from({ to: admin, gasLimit: 1_300_000_001n, gasPrice: 0n, chainId: 300, nonce: 0 }));
  const refused = await dev.raw('eth_sendRawTransaction', [over]);
  assert.match(refused.error!.message, /transaction gas limit too high: gas 1300000001 exceeds the chain's per-transaction limit 60000000 \(TxGasLimit is 1300000000; the block gas bound/);
  const within = await new Wallet(testKey(5)).signTransaction(Transaction.from({ to: admin, gasLimit: 40_000_000n, gasPrice: 0n, chainId: 300, nonce: 0 }));
  assert.is((await mined(dev, await dev.rpc('eth_sendRawTransaction', [within]))).status, '0x1');
  const hash = await dev.rpc('eth_sendTransaction', [{ from: admin, to: admin }]);
  assert.is(BigInt((await dev.rpc('eth_getTransactionByHash', [hash])).gas), 60_000_000n);
  await mined(dev, hash);

  // creation code that needs 40M gas left (else INVALID): over 30M, under the test node's 50M gas cap
  const needs40M = '0x5a6302625a0011600b57005bfe';
  assert.ok(BigInt(await dev.rpc('eth_estimateGas', [{ from: admin, data: needs40M }])) > 40_000_000n);
  await adminSends(paramCall('setTxGasLimit', 1_277_159_600n));
  await adminSends(paramCall('setBlockGasLimit', 1_277_159_600n));
  assert.is(BigInt((await dev.rpc('eth_getBlockByNumber', ['latest', false])).gasLimit), 15_000_000_000n);
  // the block after the one that set it is sealed under the new limit
  await mined(dev, await dev.rpc('eth_sendTransaction', [{ from: admin, to: admin }]));
  assert.is(BigInt((await dev.rpc('eth_getBlockByNumber', ['latest', false])).gasLimit), 1_277_159_600n);
});

test('the parameters and their effect survive a restart', async () => {
  await dev.stop();
  dev = await startTestNode({ dev: true, dir: devDir });
  assert.is(await ask(dev, 'getTxGasLimit'), 1_277_159_600n);
  assert.is(await ask(dev, 'getGasContractName'), 'gas_token');
  const over = await new Wallet(testKey(6)).signTransaction(Transaction.from({ to: admin, gasLimit: 1_277_159_601n, gasPrice: 0n, chainId: 300, nonce: 0 }));
  const after = (await dev.raw('eth_sendRawTransaction', [over])).error!.message;
  assert.match(after, /limit 1277159600/, after);
});

test('a parameter at its default is the genesis limit: a fresh dev chain caps estimates and admission at 30M', async () => {
  const fresh = await startTestNode({ dev: true });
  try {
    const [account] = await fresh.rpc<string[]>('eth_accounts');
    const needs40M = '0x5a6302625a0011600b57005bfe';
    const estimate = await fresh.raw('eth_estimateGas', [{ from: account, data: needs40M }]);
    assert.match(estimate.error!.message, /gas required exceeds allowance \(30000000\)/);
    const over = await new Wallet(testKey(5)).signTransaction(Transaction.from({ to: account, gasLimit: 30_000_001n, gasPrice: 0n, chainId: 300, nonce: 0 }));
    assert.match((await fresh.raw('eth_sendRawTransaction', [over])).error!.message, /limit 30000000/);
  } finally {
    await fresh.stop();
  }
});

test('IsProduceEmptyBlock: a dev chain with a period starts at 1 and seals empty blocks; 0 (and no --seal.empty) stops them; 1 again restarts them', async () => {
  const timed = await startTestNode({ dev: true, config: { devPeriod: 1 } });
  try {
    const [account] = await timed.rpc<string[]>('eth_accounts');
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const number = async () => Number(await timed.rpc('eth_blockNumber'));
    const send = async (data: string) => mined(timed, await timed.rpc('eth_sendTransaction', [{ from: account, to: PARAMETER_MANAGEMENT, data }]));
    const getter = await timed.rpc('eth_call', [{ to: PARAMETER_MANAGEMENT, data: paramCall('getIsProduceEmptyBlock') }, 'latest']);
    assert.is(BigInt(getter), 1n);
    assert.is(await timed.rpc('eth_call', [{ to: PARAMETER_MANAGEMENT, data: paramCall('getIsProduceEmptyBlock') }, '0x0']), getter, 'set in the dev genesis');
    const start = await number();
    for (let waited = 0; (await number()) < start + 2 && waited < 6000; waited += 100) await sleep(100);
    assert.ok((await number()) >= start + 2, 'a new dev chain seals empty blocks');
    assert.is((await send(paramCall('setIsProduceEmptyBlock', 0n))).status, '0x1');
    await sleep(1500); // a block sealed before the change was seen may still land
    const idle = await number();
    await sleep(2200);
    assert.is(await number(), idle, 'no empty block while the parameter is 0');
    assert.is((await send(paramCall('setIsProduceEmptyBlock', 1n))).status, '0x1');
    const on = await number();
    // two empty blocks come within ~2 s; a loaded machine gets 6
    for (let waited = 0; (await number()) < on + 2 && waited < 6000; waited += 100) await sleep(100);
    assert.ok((await number()) >= on + 2, 'empty blocks once it is 1');
    const emptyBlock = await timed.rpc('eth_getBlockByNumber', ['latest', false]);
    assert.is(emptyBlock.transactions.length, 0);
  } finally {
    await timed.stop();
  }
});

// ---- a genesis-file chain: test keys with the roles its genesis gives them ----

const NOBODY = 0;
const DEPLOYER = 1;
const CONTRACT_ADMIN = 2;
const CHAIN_ADMIN = 3;

test('without CHAIN_ADMIN: status 0, no event, nothing changed, eth_call answers "No Permission"; IsCheckContractDeployPermission = 1 refuses deploys of accounts without a deploy role', async () => {
  const node = await startTestNode({ genesis: await sysGenesisWithRoles({ [DEPLOYER]: ['CONTRACT_DEPLOYER'], [CONTRACT_ADMIN]: ['CONTRACT_ADMIN'], [CHAIN_ADMIN]: ['CHAIN_ADMIN'] }) });
  const nonces = new Map<number, number>();
  const send = async (who: number, tx: { to?: string; data: string }) => {
    const nonce = nonces.get(who) ?? 0;
    nonces.set(who, nonce + 1);
    const raw = await new Wallet(testKey(who)).signTransaction(Transaction.from({ ...tx, gasLimit: 300_000n, gasPrice: 0n, chainId: 300, nonce }));
    return mined(node, await node.rpc('eth_sendRawTransaction', [raw]));
  };
  try {
    for (const who of [NOBODY, DEPLOYER]) {
      const receipt = await send(who, { to: PARAMETER_MANAGEMENT, data: paramCall('setCheckContractDeployPermission', 1n) });
      assert.is(receipt.status, '0x0');
      assert.is(receipt.logs.length, 0);
      assert.is(await ask(node, 'getCheckContractDeployPermission'), 0n);
      const answer = await ask(node, 'setCheckContractDeployPermission', [1n], { from: testAddress(who) });
      assert.match((answer as { error: string }).error, new RegExp(`No Permission: ${testAddress(who)} has no permission to adjust param \\(IsCheckContractDeployPermission needs CHAIN_ADMIN\\)`));
    }

    // init code returning the one-byte runtime 0x2a
    const initCode = '0x602a60005360016000f3';
    const deploy = async (who: number) => {
      const address = getCreateAddress({ from: testAddress(who), nonce: nonces.get(who) ?? 0 });
      return { receipt: await send(who, { data: initCode }), code: await node.rpc('eth_getCode', [address, 'latest']) };
    };
    const free = await deploy(NOBODY);
    assert.is(free.receipt.status, '0x1');
    assert.is(free.code, '0x2a');

    const on = await send(CHAIN_ADMIN, { to: PARAMETER_MANAGEMENT, data: paramCall('setCheckContractDeployPermission', 1n) });
    assert.is(on.status, '0x1');
    assert.equal(event(on), SUCCESS_EVENT('IsCheckContractDeployPermission'));

    const refused = await deploy(NOBODY);
    assert.is(refused.receipt.status, '0x0');
    assert.is(refused.code, '0x');
    // only the intrinsic gas is charged: a creation's 53,000, 8 non-zero and 2 zero bytes, one initcode word
    assert.is(BigInt(refused.receipt.gasUsed), 53_000n + 8n * 16n + 2n * 4n + 2n);
    // the reason, through eth_estimateGas (this node's eth_call needs a `to`)
    const why = await node.raw('eth_estimateGas', [{ from: testAddress(NOBODY), data: initCode }]);
    assert.match(why.error!.message, new RegExp(`permission denied: ${testAddress(NOBODY)} may not deploy contracts \\(IsCheckContractDeployPermission is 1`));

    for (const who of [DEPLOYER, CONTRACT_ADMIN, CHAIN_ADMIN]) {
      const allowed = await deploy(who);
      assert.is(allowed.receipt.status, '0x1', `test key ${who}`);
      assert.is(allowed.code, '0x2a');
    }
    // Venachain checks the transaction, not CREATE: a factory (deployed by a deployer) creates for anyone who calls it
    // runtime: CREATE(0, 22, 10) of the init code above, kept in memory by PUSH10 + MSTORE; its init code copies it out
    const factoryRuntime = '69' + initCode.slice(2) + '600052600a60166000f000';
    const factory = getCreateAddress({ from: testAddress(DEPLOYER), nonce: nonces.get(DEPLOYER)! });
    assert.is((await send(DEPLOYER, { data: '0x601680600b6000396000f3' + factoryRuntime })).status, '0x1');
    assert.is((await send(NOBODY, { to: factory, data: '0x' })).status, '0x1');
    assert.is(await node.rpc('eth_getCode', [getCreateAddress({ from: factory, nonce: 1 }), 'latest']), '0x2a');
  } finally {
    await node.stop();
  }
});

test.run();
