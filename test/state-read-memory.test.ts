// The head's state view stays bounded while the head stands still: eth_getBalance of addresses
// never read before (a dev chain without transactions) once grew the view's @ethereumjs caches by
// one account and one checkpoint-diff entry a read, without end (the soak's memory growth).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { MANAGER_READS } from '../src/state/reader.ts';
import { batch, startTestNode } from './helpers/node.ts';

/** More fresh reads than a view sends one state manager, so an unbounded manager shows. */
const READS = 2 * MANAGER_READS + 8_000;
/** The dev chain's own accounts (genesis, the dev account, the coinbase), read before the loop. */
const SLACK = 64;

test('fresh-address reads leave the head view at its bound; balances stay right', async () => {
  const node = await startTestNode({ dev: true });
  try {
    const dev = node.devAccount!;
    const funded = await node.rpc<string>('eth_getBalance', [dev, 'latest']);
    assert.ok(BigInt(funded) > 0n, 'the dev account is funded');
    const head = node.core.chain.head.header.stateRoot;
    for (let done = 0; done < READS; done += 1000) {
      const answers = await batch(node, Array.from({ length: 1000 }, () => ['eth_getBalance', ['0x' + randomBytes(20).toString('hex'), 'latest']] as [string, unknown[]]));
      for (const a of answers) assert.is(a.result, '0x0', JSON.stringify(a));
    }
    assert.equal(node.core.chain.head.header.stateRoot, head, 'the head did not move');
    const held = node.core.state.at(head).heldEntries();
    // the view's account memo holds every read account (≤ 65,536); its manager at most one
    // manager's worth of reads beside it
    assert.ok(held <= READS + MANAGER_READS + SLACK, `held ${held} entries after ${READS} fresh reads (bound ${READS + MANAGER_READS + SLACK})`);
    // a funded account read through the renewed manager: the memo has it, so read its code and a slot
    assert.is(await node.rpc('eth_getBalance', [dev, 'latest']), funded);
    assert.is(await node.rpc('eth_getCode', [dev, 'latest']), '0x');
    assert.is(await node.rpc('eth_getStorageAt', [dev, '0x0', 'latest']), '0x' + '0'.repeat(64));
  } finally {
    await node.stop();
  }
});

test.run();
