// `npm run network` itself (src/network-command.ts), without relying on the nodes talking to each
// other: what it creates and prints, the governance it registers on node 1, SIGTERM stopping every
// node, and a second run on the same dir restarting the same network and adding a node.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { alive, cleanUp, networkDir, runNetwork, type NetworkRun } from './helpers/network.ts';
import { rpcCall } from './helpers/process.ts';
import { decodeSystemResult, systemCall } from '../src/client/system-contracts.ts';
import { NODE_STATUS, NODE_TYPE, type NodeRecord } from '../src/exec/native/system-state.ts';

async function registeredNodes(http: string): Promise<NodeRecord[]> {
  const call = systemCall('NodeManagement', 'getAllNodes');
  return decodeSystemResult('NodeManagement', 'getAllNodes', await rpcCall(http, 'eth_call', [{ to: call.to, data: call.data }, 'latest'])).data;
}

async function rolesOf(http: string, address: string): Promise<string[]> {
  const call = systemCall('UserManagement', 'getRolesByAddress', address);
  return decodeSystemResult('UserManagement', 'getRolesByAddress', await rpcCall(http, 'eth_call', [{ to: call.to, data: call.data }, 'latest']));
}

test('two nodes: the lines printed, node 1 governs and registers node 2, SIGTERM stops both; a re-run restarts them and adds a third', async () => {
  const dir = networkDir();
  let run: NetworkRun | undefined;
  try {
    run = await runNetwork(dir, ['--nodes', '2']);
    const [one, two] = run.nodes;
    assert.is(run.nodes.length, 2);
    assert.equal([one!.node, one!.validator, two!.node, two!.validator], [1, true, 2, false]);
    for (const n of run.nodes) {
      assert.ok(alive(n.pid), `node ${n.node} runs as pid ${n.pid}`);
      assert.match(n.http, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.is(n.ws, n.http.replace('http:', 'ws:'));
      assert.match(n.enode, /^enode:\/\/[0-9a-f]{128}@127\.0\.0\.1:\d+$/);
      assert.match(n.address, /^0x[0-9a-f]{40}$/);
      assert.is(n.datadir, join(dir, `node-${n.node}`));
      assert.equal(n.command.slice(0, 2), ['node', 'dist/chain-node.mjs']);
      assert.ok(existsSync(join(n.datadir, 'nodekey')));
      // the address printed is the one the node seals with
      assert.is(await rpcCall(n.http, 'eth_coinbase'), n.address);
    }
    assert.ok(two!.command.includes(one!.enode), 'node 2 has node 1 as bootnode');
    const genesis = JSON.parse(readFileSync(join(dir, 'genesis.json'), 'utf8'));
    assert.is(genesis.config.istanbul.firstValidatorNode, one!.enode);
    assert.is(genesis.config.istanbul.period, 1);
    assert.is(genesis.config.chainId, 300);
    // the funded account: node 1 holds it unlocked, node 2 does not hold it
    const [account] = Object.keys(genesis.alloc);
    assert.equal(await rpcCall(one!.http, 'eth_accounts'), [account]);
    assert.equal(await rpcCall(two!.http, 'eth_accounts'), []);
    assert.ok(BigInt(await rpcCall(one!.http, 'eth_getBalance', [account, 'latest'])) > 10n ** 24n);
    assert.equal((await rolesOf(one!.http, account!)).sort(), ['CHAIN_ADMIN', 'SUPER_ADMIN']);
    const records = await registeredNodes(one!.http);
    assert.equal(
      records.map((r) => [r.name, r.type, r.status, r.publicKey, `${r.externalIP}:${r.p2pPort}`, r.rpcPort]),
      run.nodes.map((n, i) => [`node${n.node}`, i === 0 ? NODE_TYPE.consensus : NODE_TYPE.observer, NODE_STATUS.normal, n.enode.slice(8, 136), n.enode.split('@')[1], Number(new URL(n.http).port)]),
    );

    const head = BigInt(await rpcCall(one!.http, 'eth_blockNumber'));
    assert.ok(head > 0n, 'the registration is mined');
    assert.is(await run.stop(), 0, 'SIGTERM: the command exits 0');
    for (const n of run.nodes) assert.not.ok(alive(n.pid), `node ${n.node} stopped`);

    run = await runNetwork(dir, ['--nodes', '3']);
    assert.equal(
      run.nodes.slice(0, 2).map((n) => [n.http, n.enode]),
      [one!, two!].map((n) => [n.http, n.enode]),
      'the same nodes on the same ports',
    );
    assert.ok(BigInt(await rpcCall(run.nodes[0]!.http, 'eth_blockNumber')) >= head, 'node 1 kept its chain');
    assert.equal((await registeredNodes(one!.http)).map((r) => [r.name, r.type]), [['node1', NODE_TYPE.consensus], ['node2', NODE_TYPE.observer], ['node3', NODE_TYPE.observer]]);
    assert.is(await run.stop(), 0);
    for (const n of run.nodes) assert.not.ok(alive(n.pid), `node ${n.node} stopped`);
  } finally {
    await cleanUp(run, dir);
  }
});

test('usage errors exit 2 with the flag named, before anything is made', () => {
  const parent = networkDir();
  const dir = join(parent, 'net');
  const command = fileURLToPath(new URL('../src/network-command.ts', import.meta.url));
  const r = spawnSync(process.execPath, ['--import', 'tsx', command, '--dir', dir, '--nodes', '3', '--validators', '4'], { encoding: 'utf8' });
  assert.is(r.status, 2);
  assert.match(r.stderr, /--validators must be an integer from 1 to 3, got "4"/);
  const quick = spawnSync(process.execPath, ['--import', 'tsx', command, '--dir', dir, '--timeout', '50'], { encoding: 'utf8' });
  assert.is(quick.status, 2);
  assert.match(quick.stderr, /--timeout must be an integer from 100 to 3600000, got "50"/);
  const bad = spawnSync(process.execPath, ['--import', 'tsx', command, '--dir', dir, '--nodes', 'many'], { encoding: 'utf8' });
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /--nodes must be an integer from 1 to 1000, got "many"/);
  assert.not.ok(existsSync(dir));
  rmSync(parent, { recursive: true });
});

test.run();
