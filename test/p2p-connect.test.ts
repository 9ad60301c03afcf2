// Two real node processes on loopback: a dev-chain validator and a follower on its genesis. The
// follower is refused until NodeManagement registers it (Venachain's admission), then both see
// each other (admin_peers, net_peerCount, the handshake's heads), a transaction sent to the
// follower is mined by the validator, the record's deletion drops the follower, and
// admin_addPeer / admin_removePeer make and unmake a static peer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction, Wallet } from 'ethers';
import { spawnNode, rpcCall, runCli, type NodeProcess } from './helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'chain-node-p2p-connect-'));
const started: NodeProcess[] = [];

async function start(args: string[]): Promise<NodeProcess> {
  const node = await spawnNode([...args, '--http.port', '0', '--p2p.port', '0', '--verbosity', '1']);
  started.push(node);
  return node;
}

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function admin(validator: NodeProcess, ...args: string[]): Promise<void> {
  const run = await runCli(['admin', ...args, '--rpc', validator.url]);
  assert.is(run.exit, 0, run.output);
}

test('a follower is refused until registered, then peers, relays a transaction to the validator, and is dropped when its record is deleted', async () => {
  const validator = await start(['--datadir', join(dir, 'validator'), '--dev.period', '0']);
  const vInfo = await rpcCall(validator.url, 'admin_nodeInfo');
  const follower = await start(['--datadir', join(dir, 'follower'), '--genesis', join(dir, 'validator', 'genesis.json'), '--bootnodes', vInfo.enode]);
  const fInfo = await rpcCall(follower.url, 'admin_nodeInfo');
  assert.match(fInfo.enode, /^enode:\/\/[0-9a-f]{128}@[0-9.]+:[1-9][0-9]*$/);
  assert.is(fInfo.listenAddr, `0.0.0.0:${fInfo.ports.listener}`, 'a genesis-file chain listens on every interface');
  assert.is(vInfo.listenAddr, `127.0.0.1:${vInfo.ports.listener}`, 'a dev chain listens on loopback');
  assert.ok(vInfo.multiaddrs[0].endsWith(`/p2p/${vInfo.peerId}`));

  // the follower dials every second; the validator refuses it while it has no record
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await rpcCall(validator.url, 'admin_peers'), []);
  assert.is(await rpcCall(follower.url, 'net_peerCount'), '0x0');

  await admin(validator, 'node', 'add', 'follower', fInfo.id, '127.0.0.1', '127.0.0.1');
  const vPeers = await until('the validator to list the follower', async () => {
    const peers = await rpcCall(validator.url, 'admin_peers');
    return peers.length === 1 && peers[0].protocols.chain !== 'handshake' && peers;
  });
  assert.is(vPeers[0].id, fInfo.id);
  assert.is(vPeers[0].network.inbound, true);
  assert.is(vPeers[0].network.static, false);
  const fPeers = await until('the follower to list the validator', async () => {
    const peers = await rpcCall(follower.url, 'admin_peers');
    return peers.length === 1 && peers[0].protocols.chain !== 'handshake' && peers;
  });
  assert.is(fPeers[0].id, vInfo.id);
  assert.is(fPeers[0].network.inbound, false);
  assert.is(fPeers[0].network.static, true, 'a bootnode is a static peer');
  assert.is(fPeers[0].network.consensus, true, 'the dev node is a consensus node');
  // the handshake told the follower the validator's head (block 1 holds the registration)
  const { number, head } = fPeers[0].protocols.chain;
  assert.ok(number >= 1);
  assert.is(head, (await rpcCall(validator.url, 'eth_getBlockByNumber', ['0x' + number.toString(16), false])).hash);
  assert.is(await rpcCall(validator.url, 'net_peerCount'), '0x1');
  assert.is(await rpcCall(follower.url, 'net_peerCount'), '0x1');
  assert.is(await rpcCall(follower.url, 'net_listening'), true);

  // gas price 0: an account without funds can send (the dev chain's minimum)
  const wallet = Wallet.createRandom();
  const raw = await wallet.signTransaction(Transaction.from({ to: '0x' + '5'.repeat(40), value: 0n, nonce: 0, gasLimit: 21000, gasPrice: 0n, chainId: 300, type: 0 }));
  const hash = await rpcCall(follower.url, 'eth_sendRawTransaction', [raw]);
  const receipt = await until('the validator to mine the follower\'s transaction', () => rpcCall(validator.url, 'eth_getTransactionReceipt', [hash]));
  assert.is(receipt.status, '0x1');

  await admin(validator, 'node', 'delete', 'follower');
  await until('the validator to drop the deleted follower', async () => (await rpcCall(validator.url, 'net_peerCount')) === '0x0');
  // it keeps dialling its bootnode, and stays refused
  await new Promise((r) => setTimeout(r, 1500));
  assert.is(await rpcCall(validator.url, 'net_peerCount'), '0x0');
  assert.is(await rpcCall(follower.url, 'net_peerCount'), '0x0');

  // a static peer needs no record: the validator dials it, and admits it when it dials (which of the two comes first varies)
  assert.is(await rpcCall(validator.url, 'admin_addPeer', [fInfo.enode]), true);
  const statics = await until('the static peer to connect', async () => {
    const peers = await rpcCall(validator.url, 'admin_peers');
    return peers.length === 1 && peers[0].protocols.chain !== 'handshake' && peers;
  });
  assert.is(statics[0].network.static, true);
  assert.is(await rpcCall(validator.url, 'admin_removePeer', [fInfo.enode]), true);
  await until('the removed peer to be disconnected', async () => (await rpcCall(validator.url, 'net_peerCount')) === '0x0');
  await new Promise((r) => setTimeout(r, 1500));
  assert.is(await rpcCall(validator.url, 'net_peerCount'), '0x0', 'no longer static nor registered: refused again');
  assert.is(await rpcCall(validator.url, 'admin_removePeer', [fInfo.enode]), false, 'not a static peer any more');
});

test('admin_addPeer and admin_removePeer refuse what is not a peer address, naming the argument', async () => {
  const node = started[0]!;
  for (const [url, reason] of [
    ['not-a-url', /enode URL/],
    ['enode://1234@127.0.0.1:30303', /128 hex/],
    ['/ip4/127.0.0.1/tcp/30303', /no \/p2p/],
  ] as const) {
    for (const method of ['admin_addPeer', 'admin_removePeer']) {
      const err = await rpcCall(node.url, method, [url]).then(() => undefined, (e: Error) => e);
      assert.ok(err, `${method}(${url}) must fail`);
      assert.match(err!.message, /invalid argument 0 \(url\)/);
      assert.match(err!.message, reason);
    }
  }
  assert.match(await rpcCall(node.url, 'eth_blockNumber'), /^0x/, 'the node still serves');
});

test.after(async () => {
  for (const node of started) {
    node.child.kill('SIGTERM');
    await node.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

test.run();
