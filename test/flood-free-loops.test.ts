// Issue 33 item 1: forty free endless loops (gas price 0, fresh zero-balance keys, gas at the
// chain's per-transaction limit) halted a 4-validator network and a dev node. Now blocks keep
// coming on both, an honest transfer sent after the flood is mined within 5 blocks, what the pool
// refuses says why, and a sender whose loop failed is refused when it signs another (S13, S14).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Transaction, Wallet, type HDNodeWallet } from 'ethers';
import { BLOCK_GAS_BOUND } from '../src/chain/genesis.ts';
import { DEV_TX_GAS_LIMIT } from '../src/core/dev-genesis.ts';
import { spawnNode, type NodeProcess } from './helpers/process.ts';
import { cleanUp, fundedSender, networkDir, receiptOn, runNetwork, until, type NetworkNode, type NetworkRun } from './helpers/network.ts';

/** JUMPDEST PUSH1 0 JUMP: for ever */
const ENDLESS = '0x5b600056';
const LOOPS = 40;
type Signer = Wallet | HDNodeWallet;

function signLoop(w: Signer, gasLimit: bigint, nonce = 0): Promise<string> {
  return w.signTransaction(Transaction.from({ to: null, data: ENDLESS, gasLimit, gasPrice: 0n, chainId: 300, type: 0, nonce }));
}

async function call(url: string, method: string, params: unknown[] = []): Promise<{ result?: any; error?: { code: number; message: string } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await res.json()) as { result?: any; error?: { code: number; message: string } };
}

async function headOf(url: string): Promise<number> {
  return Number((await call(url, 'eth_blockNumber')).result);
}

/** Sends the loops round-robin to `urls`: the senders admitted, and the refusals. */
async function flood(urls: string[], wallets: Signer[], gasLimit: bigint): Promise<{ admitted: Signer[]; refusals: string[] }> {
  const answers = await Promise.all(wallets.map(async (w, i) => call(urls[i % urls.length]!, 'eth_sendRawTransaction', [await signLoop(w, gasLimit)])));
  const refusals = answers.filter((a) => a.error).map((a) => `${a.error!.code} ${a.error!.message}`);
  return { admitted: wallets.filter((_, i) => !answers[i]!.error), refusals };
}

test('dev node: 40 free loops at 30M gas; blocks keep coming, an honest transfer after them is mined within 5 blocks', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chain-node-flood-'));
  let node: NodeProcess | undefined;
  try {
    node = await spawnNode(['--datadir', dir, '--http.port', '0', '--lightkdf'], 60_000);
    const url = node.url;
    const attackers = Array.from({ length: LOOPS }, () => Wallet.createRandom());
    const { admitted, refusals } = await flood([url], attackers, DEV_TX_GAS_LIMIT);
    // the pool holds UNPAID_BLOCKS (4) block gas bounds of unpaid work at most: 8 loops of 30M
    assert.ok(admitted.length >= 1 && admitted.length <= Number((4n * BLOCK_GAS_BOUND) / DEV_TX_GAS_LIMIT), `${admitted.length} admitted`);
    assert.ok(refusals.length > 0 && refusals.every((r) => r.startsWith('-32000 txpool is full for unpaid work')), refusals[0]);

    const from = (await call(url, 'eth_accounts')).result[0];
    // blocks come only with work (no empty blocks): honest transfers, one after the other, each mined within 5 blocks
    const honestly = async () => {
      const sentAt = await headOf(url);
      const honest = (await call(url, 'eth_sendTransaction', [{ from, to: '0x' + '42'.repeat(20), value: '0x1', gas: '0x5208' }])).result as string;
      const receipt = await until('the honest transfer to be mined', async () => (await call(url, 'eth_getTransactionReceipt', [honest])).result, 60_000);
      assert.is(receipt.status, '0x1');
      assert.ok(Number(receipt.blockNumber) <= sentAt + 5, `sent at head #${sentAt}, mined in #${Number(receipt.blockNumber)}`);
    };
    await honestly();
    await honestly();
    // the loops end (out of gas, or dropped past the build time), in blocks of their own
    await until('the pool to drain of loops', async () => Number((await call(url, 'txpool_status')).result.pending) === 0, 60_000);
    await honestly();

    // a sender whose loop went unpaid is refused when it signs another
    for (const w of admitted) {
      const again = await call(url, 'eth_sendRawTransaction', [await signLoop(w, DEV_TX_GAS_LIMIT, 1)]);
      assert.ok(again.error?.message.startsWith(`sender ${w.address.toLowerCase()} is refused for `), JSON.stringify(again));
    }
  } finally {
    if (node && node.child.exitCode === null) {
      node.child.kill('SIGTERM');
      await node.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

test('4 validators: 40 free loops at the per-transaction limit; blocks keep coming, an honest transfer is mined within 5 blocks', async () => {
  const dir = networkDir();
  let run: NetworkRun | undefined;
  try {
    run = await runNetwork(dir, ['--nodes', '4', '--validators', '4']);
    const nodes: NetworkNode[] = run.nodes;
    const urls = nodes.map((n) => n.http);
    await until('every node to see every other', async () => (await Promise.all(urls.map((u) => call(u, 'net_peerCount')))).every((c) => Number(c.result) >= 3), 30_000);

    // a genesis-file chain keeps Venachain's TxGasLimit 1.5e9: the block gas bound caps it, and says so
    const over = await call(urls[0]!, 'eth_sendRawTransaction', [await signLoop(Wallet.createRandom(), 1_500_000_000n)]);
    assert.is(over.error?.code, -32000);
    assert.ok(over.error!.message.includes(`exceeds the chain's per-transaction limit ${BLOCK_GAS_BOUND}`) && over.error!.message.includes('block gas bound'), over.error!.message);

    const attackers = Array.from({ length: LOOPS }, () => Wallet.createRandom());
    const { admitted, refusals } = await flood(urls, attackers, BLOCK_GAS_BOUND);
    assert.ok(admitted.length >= 1, `none admitted: ${refusals[0]}`);

    // blocks come only with work (no empty blocks): honest transfers, one after the other, each mined within 5 blocks
    const send = await fundedSender(dir, nodes[0]!);
    for (let i = 0; i < 3; i++) {
      const sentAt = Math.max(...(await Promise.all(urls.map(headOf))));
      const honest = await send(nodes[(i + 1) % 4]!, nodes[0]!);
      const receipt = await receiptOn(nodes[(i + 1) % 4]!, honest, 50_000);
      assert.is(receipt.status, '0x1');
      assert.ok(Number(receipt.blockNumber) <= sentAt + 5, `sent at head #${sentAt}, mined in #${Number(receipt.blockNumber)}`);
    }
  } finally {
    await cleanUp(run, dir);
  }
});

test.run();
