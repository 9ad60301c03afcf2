// `chain-node admin …` end to end: a real node process on a dev chain (the dev account is super
// admin and chain admin, the node itself is registered as node0) and the real CLI in child
// processes — roles granted, listed and revoked; a node added, promoted, listed, shown and deleted;
// a parameter set and read; a key file of an account without roles refused with the contract's
// reason; a key file's password asked on a terminal; bad input answered with one line and an exit
// code, never a stack. What the CLI says is checked against the contracts' state read through
// JSON-RPC. Every write runs the CLI as a process; reads and the bad-input table run the same
// command in this process (a CLI process costs ~0.5–0.8 s of CPU from the sources), against the
// same node process.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Wallet } from 'ethers';
import { runCli, spawnNode, rpcCall, type CliRun, type NodeProcess } from './helpers/process.ts';
import { refused, succeeded } from './helpers/cli-assert.ts';
import { cheapKeyFile } from './helpers/accounts.ts';
import { testAddress, testKey } from './helpers/node.ts';
import { ChainClient, callSystem, encodeSystemCall, type SystemContractName } from '../generated/client/index.ts';
import { runAdminCommand } from '../src/admin-command.ts';
import { publicKeyOf, randomPrivateKey } from '../src/crypto/secp256k1.ts';
import { bytesToHex } from '../src/util/hex.ts';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'chain-node-admin-cli-'));
let node: NodeProcess;
let dev: string;
const passwordFile = join(dir, 'password.txt');
const wrongPasswordFile = join(dir, 'wrong-password.txt');
/** test keys OUTSIDER… hold no role */
const OUTSIDER = 5;
const keyFile = (i: number) => join(dir, `outsider-${i}.json`);
const outsider = (i: number) => ['--keyfile', keyFile(i), '--password-file', passwordFile];

test.before(async () => {
  node = await spawnNode(['--datadir', join(dir, 'data'), '--http.port', '0', '--p2p.port', '0', '--dev.period', '0']);
  [dev] = await rpcCall(node.url, 'eth_accounts');
  for (let i = 0; i < 3; i++) writeFileSync(keyFile(i), await cheapKeyFile(new Wallet(testKey(OUTSIDER + i)), 'outsider pw'));
  writeFileSync(passwordFile, 'outsider pw\n');
  writeFileSync(wrongPasswordFile, 'guess\n');
});

test.after(async () => {
  node?.child.kill('SIGTERM');
  await node?.exited;
  rmSync(dir, { recursive: true, force: true });
});

const admin = (...args: string[]): Promise<CliRun> => runCli(['admin', ...args, '--rpc', node.url]);

/** The same command in this process (a CLI process costs ~0.7 s of CPU): for the many bad-input cases. */
async function adminInProcess(...args: string[]): Promise<CliRun> {
  let output = '';
  const exit = await runAdminCommand(args, (line) => (output += line + '\n'), (line) => (output += line + '\n'));
  return { exit, output };
}

/** A system contract's answer through eth_call, decoded by the SDK. */
async function read(contract: SystemContractName, method: string, ...args: unknown[]): Promise<any> {
  const client = ChainClient.http(node.url);
  try {
    return await callSystem(client, encodeSystemCall(contract, method, args));
  } finally {
    await client.close();
  }
}

test('--help lists every command', async () => {
  const run = await adminInProcess('--help');
  assert.is(run.exit, 0);
  for (const c of ['role set-super-admin', 'role add <role> <address>', 'role remove', 'role list', 'node add', 'node update', 'node delete', 'node list', 'node show', 'param set', 'param get', '--rpc', '--from', '--keyfile', '--password-file', '--json']) {
    assert.ok(run.output.includes(c), `--help lacks ${c}`);
  }
});

test('roles: granted by the chain admin, listed, revoked', async () => {
  const who = testAddress(3);
  succeeded(await admin('role', 'add', 'node-admin', who), new RegExp(`^NODE_ADMIN granted to ${who} \\(block \\d+, tx 0x[0-9a-f]{64}\\)`));
  assert.equal(await read('UserManagement', 'getRolesByAddress', who), ['NODE_ADMIN']);
  succeeded(await adminInProcess('role', 'list', who, '--rpc', node.url), new RegExp(`^${who}: NODE_ADMIN$`, 'm'));
  const all = await adminInProcess('role', 'list', '--rpc', node.url);
  succeeded(all, new RegExp(`^NODE_ADMIN: ${who}$`, 'm'));
  assert.match(all.output, new RegExp(`^CHAIN_ADMIN: ${dev}$`, 'm'));
  succeeded(await admin('role', 'remove', 'NODE_ADMIN', who), new RegExp(`^NODE_ADMIN revoked from ${who}`));
  assert.equal(await read('UserManagement', 'getRolesByAddress', who), []);
  succeeded(await adminInProcess('role', 'list', who, '--rpc', node.url), /: no roles$/m);
});

const publicKey = bytesToHex(publicKeyOf(randomPrivateKey())).slice(2);

test('nodes: added as an observer, promoted to consensus, listed, shown, deleted', async () => {
  succeeded(await admin('node', 'add', 'node1', publicKey, '10.0.0.7', '192.168.0.7', '--p2pPort', '16800', '--desc', 'the second'), /^node node1 added as observer \(block \d+, tx 0x/);
  // a delay far ahead: a second validator in force would stop this lone node sealing
  succeeded(await admin('node', 'update', 'node1', '--type', 'consensus', '--delayNum', '100000'), /^node node1 updated: type consensus, delayNum 100000 \(block/);
  const { data } = await read('NodeManagement', 'getAllNodes');
  const record = data.find((n: { name: string }) => n.name === 'node1');
  assert.equal(
    { type: record.type, status: record.status, publicKey: record.publicKey, externalIP: record.externalIP, internalIP: record.internalIP, p2pPort: record.p2pPort, rpcPort: record.rpcPort, delayNum: record.delayNum, desc: record.desc },
    { type: 1, status: 1, publicKey, externalIP: '10.0.0.7', internalIP: '192.168.0.7', p2pPort: 16800, rpcPort: 6791, delayNum: 100000, desc: 'the second' },
  );
  const list = await adminInProcess('node', 'list', '--rpc', node.url);
  succeeded(list, /^node0\s+consensus\s+normal\s+127\.0\.0\.1:/m);
  assert.match(list.output, /^node1\s+consensus\s+normal\s+10\.0\.0\.7:16800\s+100000\s/m);
  const show = await adminInProcess('node', 'show', 'node1', '--rpc', node.url);
  succeeded(show, /^type:\s+consensus$/m);
  assert.match(show.output, new RegExp(`^publicKey:\\s+${publicKey}$`, 'm'));
  const json = await adminInProcess('node', 'show', 'node1', '--json', '--rpc', node.url);
  assert.is(JSON.parse(json.output).delayNum, 100000);
  succeeded(await admin('node', 'delete', 'node1'), /^node node1 deleted \(block/);
  assert.is((await read('NodeManagement', 'getAllNodes')).data.find((n: { name: string }) => n.name === 'node1').status, 2);
  succeeded(await adminInProcess('node', 'show', 'node1', '--rpc', node.url), /^status:\s+deleted$/m);
});

test('parameters: set by the chain admin, read back', async () => {
  succeeded(await admin('param', 'set', 'TxGasLimit', '2000000000'), /^TxGasLimit set to 2000000000 \(block \d+/);
  assert.is(await read('ParameterManagement', 'getTxGasLimit'), 2_000_000_000n);
  succeeded(await adminInProcess('param', 'get', 'txgaslimit', '--rpc', node.url), /^TxGasLimit: 2000000000$/m);
  const all = await adminInProcess('param', 'get', '--rpc', node.url);
  succeeded(all, /^IsProduceEmptyBlock: 0$/m);
  assert.match(all.output, /^VRFParams: \{"electionEpoch":0,"nextElectionBlock":0,"validatorCount":0\}$/m);
  assert.equal(JSON.parse((await adminInProcess('param', 'get', 'VRFParams', '--json', '--rpc', node.url)).output), { electionEpoch: 0, nextElectionBlock: 0, validatorCount: 0 });
  assert.is(JSON.parse((await adminInProcess('param', 'get', 'TxGasLimit', '--json', '--rpc', node.url)).output), 2_000_000_000);
});

test('accounts without roles, signing with key files: refused with the contract reason, exit 1, nothing changed', async () => {
  const superAdmin = await admin('role', 'set-super-admin', '--json', ...outsider(0));
  assert.is(superAdmin.exit, 1, superAdmin.output);
  const outcome = JSON.parse(superAdmin.output);
  assert.equal({ ok: outcome.ok, from: outcome.from, status: outcome.status, reason: outcome.reason }, { ok: false, from: testAddress(OUTSIDER), status: '0x0', reason: 'Already Set SuperAdmin' });
  // three accounts, so that the three run at once without sharing a nonce
  const runs = await Promise.all([
    admin('node', 'add', 'node2', bytesToHex(publicKeyOf(randomPrivateKey())).slice(2), '10.0.0.8', '10.0.0.8', ...outsider(0)),
    admin('param', 'set', 'IsProduceEmptyBlock', '1', ...outsider(1)),
    admin('role', 'add', 'contract-deployer', testAddress(2), ...outsider(2)),
  ]);
  for (const run of runs) refused(run, /^failed: .*permission.* \(status 0, block \d+, tx 0x/im);
  assert.not.ok((await read('NodeManagement', 'getAllNodes')).data.some((n: { name: string }) => n.name === 'node2'));
  assert.is(await read('ParameterManagement', 'getIsProduceEmptyBlock'), 0n);
  assert.equal(await read('UserManagement', 'getRolesByAddress', testAddress(2)), []);
});

test('without --password-file the password is asked on the terminal, and not echoed', async () => {
  // `script` gives the CLI a pseudo-terminal (util-linux)
  const cli = [process.execPath, '--import', 'tsx', CLI, 'admin', 'role', 'set-super-admin', '--keyfile', keyFile(0), '--rpc', node.url].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qec', cli, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let typed = false;
  child.stdout.on('data', (d) => {
    output += d;
    if (!typed && output.includes(`password for ${keyFile(0)}: `)) {
      typed = true;
      child.stdin.write('outsider pw\r');
    }
  });
  child.stderr.on('data', (d) => (output += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const exit = await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  assert.ok(typed, output);
  // signed with the key the password opened: the contract's refusal, not a password error
  assert.match(output, /failed: Already Set SuperAdmin \(status 0, block \d+/);
  assert.not.match(output, /outsider pw/);
  assert.is(exit, 1);
});

test('bad input: one line naming what is wrong, exit 2 for usage and 1 otherwise, never a stack', async () => {
  const cases: [string[], RegExp, number][] = [
    [[], /^usage: chain-node admin <command>/, 2],
    [['role', 'add', 'king', testAddress(1)], /unknown role "king": one of super-admin, chain-admin/, 2],
    [['role', 'add', 'chain-admin', '0x1234'], /address: not an address \(0x and 40 hex digits\): "0x1234"/, 2],
    [['role', 'add', 'chain-admin'], /role add takes 2 argument\(s\), got 1/, 2],
    [['node', 'fly'], /node: unknown command "fly": one of add, update, delete, list, show/, 2],
    [['vote'], /unknown command "vote": role, node, param, cns, fw, group, evidence or contract/, 2],
    [['node', 'add', 'n3', publicKey, '1.2.3.4', '1.2.3.4', '--type', 'consensus'], /added as observer or light; make it a validator with: node update <name> --type consensus/, 2],
    [['node', 'update', 'node1'], /give at least one of --type, --desc, --delayNum/, 2],
    [['node', 'list', '--type', 'light'], /--type is not an option of node list/, 2],
    [['node', 'add', 'n3', publicKey, '1.2.3.4', '1.2.3.4', '--p2pPort', '70000'], /--p2pPort: not an integer from 0 to 65535: "70000"/, 2],
    [['param', 'set', 'Speed', '1'], /unknown parameter "Speed": one of .*TxGasLimit/, 2],
    [['param', 'set', 'TxGasLimit', 'lots'], /TxGasLimit: not an integer/, 2],
    [['node', 'add', 'bad-name', publicKey, '1.2.3.4', '1.2.3.4'], /^failed: .+ \(status 0/m, 1],
    [['node', 'add', 'n4', 'abcd', '1.2.3.4', '1.2.3.4'], /^failed: .*public ?key.* \(status 0/im, 1],
    [['param', 'set', 'IsProduceEmptyBlock', '7'], /^failed: .*IsProduceEmptyBlock must be 0 or 1.* \(status 0, block/m, 1],
    [['node', 'delete', 'nobody'], /^failed: .*node not found.* \(status 0, block/m, 1],
    [['node', 'show', 'nobody'], /chain-node admin: .*(not found|no node named "nobody")/, 1],
    [['role', 'set-super-admin', '--keyfile', join(dir, 'missing.json'), '--password-file', passwordFile], /cannot read the key file .*missing\.json: no such file or directory \(ENOENT\)/, 1],
    [['role', 'set-super-admin', '--keyfile', keyFile(0), '--password-file', wrongPasswordFile], /could not decrypt key with given password/, 1],
  ];
  for (const [args, line, exit] of cases) {
    const run = await adminInProcess(...args, '--rpc', node.url);
    assert.is(run.exit, exit, `${args.join(' ')}: ${run.output}`);
    assert.match(run.output, line, args.join(' '));
  }
  // and through the command line: the exit code and the one line reach the shell
  const [down, notUrl] = await Promise.all([runCli(['admin', 'role', 'list', dev, '--rpc', 'http://127.0.0.1:9']), runCli(['admin', 'role', 'list', dev, '--rpc', 'nowhere'])]);
  refused(down, /^chain-node admin: cannot reach the node at http:\/\/127\.0\.0\.1:9: /);
  refused(notUrl, /^chain-node admin: --rpc: not a URL: "nowhere"/, 2);
});

test.run();
