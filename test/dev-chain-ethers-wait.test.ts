// A dapp's script on the dev chain (issue 38 item 6, G15): ethers v6's wait() and
// waitForDeployment() look for a receipt again only when a new block arrives, so a receipt that
// lands between ethers' first look and its block subscription is seen only if another block
// comes. A dev chain seals every period, empty blocks too (IsProduceEmptyBlock = 1 in its genesis):
// 200 deploy-and-wait rounds through ethers' own wait() on a node process all finish. That race is
// rare on a quiet machine (none in 200 rounds here without the fix), so every tenth round waits for
// a second confirmation, tx.wait(2), which only a block after the receipt's can give: without
// empty blocks it never ends. The period is 50 ms (--dev.period 50ms) so 200 rounds, a block or
// two each, take tens of seconds rather than the 200+ s a 1 s period needs; ethers polls every
// 25 ms (its default of 4 s would make each round 4 s).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractFactory, JsonRpcProvider } from 'ethers';
import { spawnNode, type NodeProcess } from './helpers/process.ts';

// init code returning a one-byte runtime (STOP): what waitForDeployment waits to see
const BYTECODE = '0x6001600c60003960016000f300';
const ROUNDS = 200;
/** far beyond a busy machine's delay of one 50 ms block; without blocks a hung wait() never ends */
const ROUND_TIMEOUT_MS = 15_000;

let dir: string;
let node: NodeProcess;
test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chain-node-ethers-wait-'));
  node = await spawnNode(['--datadir', dir, '--http.port', '0', '--dev.period', '50ms', '--lightkdf', '--verbosity', '1'], 30_000);
});
test.after(async () => {
  node?.child.kill('SIGTERM');
  await node?.exited;
  rmSync(dir, { recursive: true, force: true });
});

function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} still waiting after ${ROUND_TIMEOUT_MS} ms`)), ROUND_TIMEOUT_MS)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

test(`${ROUNDS} rounds of deploy, then waitForDeployment() or tx.wait(): none hangs`, async () => {
  const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, pollingInterval: 25, cacheTimeout: -1 });
  try {
    const signer = await provider.getSigner();
    const factory = new ContractFactory([], BYTECODE, signer);
    const startBlock = await provider.getBlockNumber();
    for (let i = 0; i < ROUNDS; i++) {
      const contract = await factory.deploy();
      // half the rounds wait through the contract, half through the transaction's own wait()
      const tx = contract.deploymentTransaction()!;
      if (i % 10 === 9) assert.is((await within(tx.wait(2), `round ${i}: tx.wait(2)`))!.status, 1);
      else if (i % 2 === 0) await within(contract.waitForDeployment(), `round ${i}: waitForDeployment()`);
      else assert.is((await within(tx.wait(), `round ${i}: tx.wait()`))!.status, 1);
      if (i % 10 === 0) assert.is(await provider.getCode(await contract.getAddress()), '0x00', `round ${i}: the contract is there`);
    }
    const blocks = (await provider.getBlockNumber()) - startBlock;
    assert.ok(blocks >= ROUNDS, `${blocks} blocks for ${ROUNDS} deploys`);
    // and with nothing waiting the chain still moves: the blocks that release a late wait()
    const idle = await provider.getBlockNumber();
    const idleBlock = await within(
      (async () => {
        for (;;) {
          const b = await provider.getBlock('latest');
          if (b && b.number > idle) return b;
          await new Promise((r) => setTimeout(r, 25));
        }
      })(),
      'an empty block',
    );
    assert.is(idleBlock.transactions.length, 0);
  } finally {
    provider.destroy();
  }
});

test.run();
