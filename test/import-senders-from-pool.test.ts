// A block's transactions that this node's pool already holds keep the sender its admission
// recovered: the import counts them in chain_import_senders_total{source="pool"} and recovers only
// the rest (S23). Real processes: 1 validator + 1 follower from `npm run network`, the follower
// restarted with --metrics: the blocks it missed while down are synced and their senders recovered;
// transfers sent to it are in its pool when the validator's block carrying them arrives; every
// receipt names its true sender.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanUp, fundedKey, networkDir, nextNonce, receiptOn, restartNode, runNetwork, signedTransfer, until, type NetworkNode, type NetworkRun, type RestartedNode } from './helpers/network.ts';
import { rpcCall } from './helpers/process.ts';
import { addressOf } from '../src/crypto/secp256k1.ts';
import { bytesToHex } from '../src/util/hex.ts';

const SINK = '0x' + '5e'.repeat(20);

async function senders(metricsUrl: string): Promise<{ pool: number; recovered: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const count = (source: string) => Number(new RegExp(`^chain_import_senders_total\\{source="${source}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { pool: count('pool'), recovered: count('recovered') };
}

test('a follower takes the senders of its pooled transactions from the pool, recovers the rest, and every receipt names its sender', async () => {
  const dir = networkDir();
  let run: NetworkRun | undefined;
  let follower: RestartedNode | undefined;
  try {
    run = await runNetwork(dir, ['--nodes', '2']);
    const [validator, f] = run.nodes as [NetworkNode, NetworkNode];
    const key = await fundedKey(dir);
    const from = bytesToHex(addressOf(key));
    let nonce = await nextNonce(validator, key);
    const send = async (to: NetworkNode) => {
      const tx = signedTransfer(key, nonce++, SINK);
      assert.is(await rpcCall(to.http, 'eth_sendRawTransaction', [tx.raw]), tx.hash);
      return tx.hash;
    };

    // blocks mined while the follower is down reach it by sync: their senders are recovered
    process.kill(f.pid, 'SIGKILL');
    await until('the follower to be gone', async () => rpcCall(f.http, 'eth_blockNumber').then(() => false, () => true));
    const MISSED = 5;
    const missed: string[] = [];
    for (let i = 0; i < MISSED; i++) missed.push(await send(validator));
    for (const h of missed) await receiptOn(validator, h, 60_000);
    follower = await restartNode(f, {}, ['--metrics', '--metrics.port', '0']);
    const url = await until('the metrics address in the log', async () => /metrics: serving Prometheus text at (http:\/\/\S+?\/metrics)/.exec(follower!.output())?.[1]);
    for (const h of missed) assert.is((await receiptOn(f, h, 60_000)).from, from, 'the recovered sender is the signer');
    const synced = await senders(url);
    assert.ok(synced.recovered >= MISSED, `the ${MISSED} transactions the follower never pooled were recovered: ${JSON.stringify(synced)}`);

    // transactions sent to the follower are in its pool when the block carrying them arrives
    await until('the follower to have a peer', async () => Number(await rpcCall(f.http, 'net_peerCount')) >= 1);
    const POOLED = 20;
    const pooled: string[] = [];
    for (let i = 0; i < POOLED; i++) pooled.push(await send(f));
    for (const h of pooled) assert.is((await receiptOn(f, h, 60_000)).from, from, 'the pooled sender is the signer');
    const after = await senders(url);
    assert.ok(after.pool - synced.pool >= POOLED, `the ${POOLED} transactions the follower pooled kept their senders: ${JSON.stringify({ synced, after })}`);
  } finally {
    await follower?.stop();
    await cleanUp(run, dir);
  }
});

test.run();
