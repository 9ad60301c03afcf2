// A proposer's block holds at most BLOCK_TX_BYTES of transactions (src/consensus/block-builder.ts):
// with 1 MiB transactions the gas limit bounds nothing, and a block over the 10 MiB frame would not
// reach the other nodes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BLOCK_TX_BYTES, withinBytes } from '../src/consensus/block-builder.ts';
import { MAX_BLOCK_FRAME } from '../src/p2p/wire.ts';
import { ptx, poolAddress } from './helpers/txpool-fixture.ts';

test('a block of 1 MiB transactions stops at the byte budget; a sender that does not fit stops there, others still fill it', () => {
  assert.ok(BLOCK_TX_BYTES + 1024 * 1024 < MAX_BLOCK_FRAME, 'room for the header, the seals and one more transaction');
  const big = (i: number, nonce: number) => ptx(i, nonce, { dataBytes: 1024 * 1024 - 200 });
  const txs = [...[0, 1, 2, 3, 4, 5, 6].map((n) => big(1, n)), big(2, 0), big(2, 1), big(2, 2), ptx(3, 0), ptx(3, 1)];
  const taken = [...withinBytes(txs)];
  const bytes = taken.reduce((n, t) => n + t.raw.length, 0);
  assert.ok(bytes <= BLOCK_TX_BYTES, `${bytes} bytes`);
  assert.equal(taken.filter((t) => t.senderHex === poolAddress(1)).map((t) => Number(t.nonce)), [0, 1, 2, 3, 4, 5, 6]);
  assert.equal(taken.filter((t) => t.senderHex === poolAddress(2)).map((t) => Number(t.nonce)), [0], 'the second 1 MiB of sender 2 does not fit: its later nonces wait');
  assert.equal(taken.filter((t) => t.senderHex === poolAddress(3)).map((t) => Number(t.nonce)), [0, 1], 'small transfers still fit');
});

test.run();
