// The state server's pacing (src/p2p/snap-serve.ts, N16): at most PER_PEER requests of one peer
// wait, requests are served one at a time, and a peer that took more than its share of the serving
// time waits while another peer's request is served.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PER_PEER, ServePacer } from '../src/p2p/snap-serve.ts';

test('a peer has at most PER_PEER requests waiting; another peer is not held to its count', async () => {
  const pacer = new ServePacer();
  const mine = Array.from({ length: PER_PEER }, (_, i) => pacer.run('a', () => i));
  assert.ok(mine.every((p) => p !== undefined));
  assert.is(pacer.run('a', () => -1), undefined);
  const other = pacer.run('b', () => 'b');
  assert.ok(other !== undefined);
  assert.equal(await Promise.all(mine), [0, 1, 2, 3]);
  assert.is(await other, 'b');
  // served, the peer may ask again
  assert.is(await pacer.run('a', () => 'again'), 'again');
});

test('requests are served one at a time, in the order they came', async () => {
  const pacer = new ServePacer();
  const order: string[] = [];
  let running = 0;
  const work = (name: string) => () => {
    running++;
    assert.is(running, 1, 'one at a time');
    order.push(name);
    running--;
  };
  await Promise.all(['a', 'b', 'c', 'a', 'b'].map((peer, i) => pacer.run(peer, work(`${peer}${i}`))));
  assert.equal(order, ['a0', 'b1', 'c2', 'a3', 'b4']);
});

test('a peer past its share of the serving time waits while another peer is served', async () => {
  const pacer = new ServePacer();
  const busy = (ms: number) => () => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };
  await pacer.run('greedy', busy(200));
  const order: string[] = [];
  const late = pacer.run('greedy', () => order.push('greedy'))!;
  const fair = pacer.run('fair', () => order.push('fair'))!;
  await Promise.all([late, fair]);
  assert.equal(order, ['fair', 'greedy']);
});

test.run();
