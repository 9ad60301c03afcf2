// The state sync (`--syncmode snap`, N16) between real node processes on loopback: a validator
// whose chain holds 300 blocks (transfers, a contract with storage and logs, 600 funded genesis
// accounts), a second node that full-synced it and lies in the state it serves (test-only fault
// injection), and joiners that state-sync: they answer balances, storage, code, an old receipt and
// old logs as the validator does, drop the liar, and one SIGKILLed in the middle of the state resumes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction, Wallet, getCreateAddress, keccak256 } from 'ethers';
import { spawnNode, rpcCall, type NodeProcess } from './helpers/process.ts';
import { sealBlock, startTestNode, testAddress, testKey, type TestNode } from './helpers/node.ts';
import { signedTransfer, undialledGenesis, SINK } from './helpers/blocks.ts';
import { enodeUrl, nodeKeyFrom } from '../src/crypto/node-key.ts';
import { hexToBytes } from '../src/util/hex.ts';
import { until as untilAt } from './helpers/network.ts';

const BLOCKS = 300;
const ACCOUNTS = 600;
const dir = mkdtempSync(join(tmpdir(), 'chain-node-p2p-snap-'));
const started: NodeProcess[] = [];
const genesis = undialledGenesis(ACCOUNTS);
const vdir = join(dir, 'validator');
const faultFile = join(dir, 'validator-faults.json');
const quick = ['--http.port', '0', '--p2p.port', '0', '--verbosity', '3'];

// constructor: slot 7 = 42; runtime: sstore(calldata[0], calldata[32]) and log1(topic = calldata[0])
const RUNTIME = '6020356000355560003560006000a100';
const INIT = '0x602a6007556010601160003960106000f3';

async function start(args: string[]): Promise<NodeProcess> {
  const node = await spawnNode([...args, ...quick]);
  started.push(node);
  return node;
}

/** a sync of a few hundred blocks on a loaded machine: a minute before giving up */
const until = <T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 60_000, everyMs = 50) => untilAt(what, check, timeoutMs, everyMs);

const head = async (node: NodeProcess) => Number(await rpcCall(node.url, 'eth_blockNumber'));


let validator: NodeProcess;
let contract: string;
let deployHash: string;

/** A joiner's datadir with its node key written, so its peers admit it before it starts (the enode's port is a placeholder: it dials them). */
function joinerDir(name: string, keyByte: number): { dir: string; enode: string } {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  const key = new Uint8Array(32).fill(keyByte);
  writeFileSync(join(d, 'nodekey'), Buffer.from(key).toString('hex'));
  return { dir: d, enode: enodeUrl(nodeKeyFrom(key), '127.0.0.1', 1) };
}

/** What the joiner must answer exactly as the validator does. */
async function sameAnswers(joiner: NodeProcess): Promise<void> {
  const calls: [string, unknown[]][] = [
    ['eth_getBalance', [testAddress(0), 'latest']],
    ['eth_getBalance', [testAddress(1), 'latest']],
    ['eth_getBalance', [testAddress(ACCOUNTS - 1), 'latest']],
    ['eth_getBalance', [SINK, 'latest']],
    ['eth_getTransactionCount', [testAddress(0), 'latest']],
    ['eth_getStorageAt', [contract, '0x7', 'latest']],
    ['eth_getStorageAt', [contract, '0x2', 'latest']],
    ['eth_getCode', [contract, 'latest']],
    ['eth_getTransactionReceipt', [deployHash]],
    ['eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]],
    ['eth_getBlockByNumber', ['latest', false]],
  ];
  for (const [method, params] of calls) assert.equal(await rpcCall(joiner.url, method, params), await rpcCall(validator.url, method, params), `${method} ${JSON.stringify(params)}`);
}

test.before(async () => {
  const maker = await startTestNode({ dir: vdir, genesis, config: { directTransfers: true } });
  const chainId = maker.core.config.chainId;
  const key0 = new Wallet(testKey(0));
  const signed = (nonce: number, tx: object) => key0.signTransaction(Transaction.from({ nonce, gasPrice: 0, chainId, type: 0, ...tx }));
  // block 1: the contract; blocks 2–4: three slots written, each with a log; then transfers
  const deploy = await signed(0, { data: INIT + RUNTIME, gasLimit: 200_000 });
  deployHash = keccak256(deploy);
  contract = getCreateAddress({ from: key0.address, nonce: 0 });
  await sealBlock(maker, [hexToBytes(deploy)]);
  for (let i = 1; i <= 3; i++) {
    const data = '0x' + i.toString(16).padStart(64, '0') + (100 + i).toString(16).padStart(64, '0');
    await sealBlock(maker, [hexToBytes(await signed(i, { to: contract, data, gasLimit: 100_000 }))]);
  }
  for (let n = 0; maker.core.chain.headNumber < BigInt(BLOCKS); n++) await sealBlock(maker, [signedTransfer(hexToBytes(testKey(1)), BigInt(n), chainId), signedTransfer(hexToBytes(testKey(2)), BigInt(n), chainId)]);
  await maker.stop();
  writeFileSync(faultFile, '{}');
  validator = await start(['--datadir', vdir, '--genesis', join(vdir, 'test-genesis.json'), '--p2p.faults', faultFile]);
  assert.is(await head(validator), BLOCKS);
});

test.after(async () => {
  for (const n of started) if (n.child.exitCode === null) n.child.kill('SIGKILL');
  await Promise.all(started.map((n) => n.exited));
  rmSync(dir, { recursive: true, force: true });
});

test('a snap joiner answers like the validator, its state root matches, and a peer serving corrupted ranges is dropped', async () => {
  const vInfo = await rpcCall(validator.url, 'admin_nodeInfo');
  // the liar: a full copy of the chain that flips a bit in every state answer
  const liarFaults = join(dir, 'liar-faults.json');
  writeFileSync(liarFaults, JSON.stringify({ corruptState: true }));
  const liarDir = joinerDir('liar', 7);
  assert.is(await rpcCall(validator.url, 'admin_addPeer', [liarDir.enode]), true);
  const liar = await start(['--datadir', liarDir.dir, '--genesis', join(vdir, 'genesis.json'), '--bootnodes', vInfo.enode, '--p2p.faults', liarFaults]);
  await until('the liar to hold the chain', async () => (await head(liar)) >= BLOCKS);
  const lInfo = await rpcCall(liar.url, 'admin_nodeInfo');

  const j = joinerDir('joiner', 9);
  for (const n of [validator, liar]) assert.is(await rpcCall(n.url, 'admin_addPeer', [j.enode]), true);
  const joiner = await start(['--datadir', j.dir, '--genesis', join(vdir, 'genesis.json'), '--bootnodes', `${vInfo.enode},${lInfo.enode}`, '--syncmode', 'snap']);
  await until('the joiner to reach the head', async () => (await head(joiner)) >= BLOCKS && (await rpcCall(joiner.url, 'eth_syncing')) === false);

  const out = joiner.output();
  assert.match(out, new RegExp(`snap: state sync to pivot #${BLOCKS - 64}`));
  assert.match(out, new RegExp(`snap: pivot #${BLOCKS - 64} is the head`));
  // the blocks below the pivot were stored, not executed: the full sync began at the pivot
  assert.match(out, new RegExp(`sync: from block #${BLOCKS - 64} to #${BLOCKS}`));
  assert.match(out, new RegExp(`snap: peer ${lInfo.peerId} dropped: (accounts|storage) range at root 0x[0-9a-f]{64} does not verify`));
  assert.match(out, new RegExp(`p2p: peer ${lInfo.peerId} refused for a while`));
  await sameAnswers(joiner);
});

test('a joiner SIGKILLed in the middle of the state resumes it after a restart', async () => {
  // small, slow state answers: the state takes a few seconds to fetch
  writeFileSync(faultFile, JSON.stringify({ stateDelayMs: 100, stateItems: 16 }));
  await until('the validator to read its fault file', async () => validator.output().includes('state answers delayed 100 ms'));
  const vInfo = await rpcCall(validator.url, 'admin_nodeInfo');
  const j = joinerDir('killed', 11);
  assert.is(await rpcCall(validator.url, 'admin_addPeer', [j.enode]), true);
  const args = ['--datadir', j.dir, '--genesis', join(vdir, 'genesis.json'), '--bootnodes', vInfo.enode, '--syncmode', 'snap'];
  let joiner = await start(args);
  const seen = await until('the joiner to be in the state phase', async () => {
    const s = await rpcCall(joiner.url, 'eth_syncing');
    return s && s.phase === 'state' && Number(s.pulledStates) > 0 && s;
  }, 60_000, 20);
  assert.is(seen.highestBlock, '0x' + (BLOCKS - 64).toString(16));
  joiner.child.kill('SIGKILL');
  await joiner.exited;

  writeFileSync(faultFile, '{}');
  joiner = await start(args);
  await until('the restarted joiner to reach the head', async () => (await head(joiner)) >= BLOCKS && (await rpcCall(joiner.url, 'eth_syncing')) === false);
  const resumed = /snap: resuming the state sync to pivot #(\d+) \(blocks stored to #(\d+), (\d+) state entries\)/.exec(joiner.output());
  assert.ok(resumed, 'the restart resumed the state sync');
  assert.is(Number(resumed![1]), BLOCKS - 64);
  assert.is(Number(resumed![2]), BLOCKS - 64);
  assert.ok(Number(resumed![3]) >= Number(seen.pulledStates), `resumed with ${resumed![3]} entries, ${seen.pulledStates} seen before the kill`);
  await sameAnswers(joiner);
});

test.run();
