// The network's limits on their own: a peer's waste budget (src/p2p/peer-faults.ts) — what an honest
// peer sends passes, running it dry is a fault, three faults a ban, new heads and time refill it —
// and the inbound limit per address (src/p2p/inbound-limit.ts) — a burst, then the rate, a refused
// peer's address charged more, exempt networks and 0 unlimited — and the flags that set it. Against
// real nodes: test/p2p-hostile-network.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, parseFlags, type NodeConfig } from '../src/node/config.ts';
import { BAN_MS, PeerFaults, WASTE_BUDGET, WASTE_PER_HEAD } from '../src/p2p/peer-faults.ts';
import { InboundLimit } from '../src/p2p/inbound-limit.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('waste: the budget passes, each time it runs dry is a fault, the third bans; a new head refills it', () => {
  const bans: string[] = [];
  const faults = new PeerFaults((id, reason) => bans.push(`${id}: ${reason}`));
  for (let i = 0; i < WASTE_BUDGET; i++) assert.is(faults.wasted('a', 'a block it has'), false);
  assert.is(faults.wasted('a', 'a block it has'), true, 'one past the budget: a fault');
  assert.equal(bans, []);
  for (let i = 0; i < WASTE_BUDGET; i++) faults.wasted('a', 'a block it has');
  assert.is(faults.wasted('a', 'an old vote'), true);
  assert.equal(bans, [], 'two faults: still a peer');
  // an honest peer: a few useless messages a block, the head moving
  for (let block = 0; block < 100; block++) {
    for (let i = 0; i < 4; i++) assert.is(faults.wasted('b', 'a late COMMIT'), false, `block ${block}`);
    faults.newHead();
  }
  for (let i = 0; i <= WASTE_BUDGET; i++) faults.wasted('a', 'an old vote');
  assert.equal(bans, [`a: 3 faults, the last: more than ${WASTE_BUDGET} messages of no use at once, the last: an old vote`]);
  assert.ok(faults.banned('a') && !faults.banned('b'));
  assert.ok(BAN_MS >= 60_000 && WASTE_PER_HEAD > 4);
});

test('waste: a cost per message, and time refills the budget', async () => {
  const faults = new PeerFaults(() => undefined);
  assert.is(faults.wasted('a', 'a stream of a non-validator', WASTE_BUDGET), false);
  assert.is(faults.wasted('a', 'a stream of a non-validator', 1), true);
  // 8 a second
  for (let i = 0; i < WASTE_BUDGET; i++) faults.wasted('c', 'x');
  await sleep(300);
  assert.is(faults.wasted('c', 'x'), false, 'two tokens back after 300 ms');
  assert.ok(WASTE_BUDGET >= 32, 'room for a burst of an honest peer');
});

test('inbound: a burst of twice the rate, then refused; a refused peer costs its address a second; exempt networks and 0 pass everything', async () => {
  const limit = new InboundLimit(5, ['10.1.0.0/16', '::1']);
  const admitted = Array.from({ length: 12 }, () => limit.admit('127.0.0.1'));
  assert.equal(admitted, [...Array(10).fill(true), false, false], 'loopback is held to it');
  assert.is(limit.admit('127.0.0.2'), true, 'another address has its own');
  for (let i = 0; i < 50; i++) assert.ok(limit.admit('10.1.2.3') && limit.admit('::1'), 'exempt');
  await sleep(450);
  assert.is(limit.admit('127.0.0.1'), true, 'two tokens back after 450 ms');
  limit.refused('127.0.0.1');
  await sleep(450);
  assert.is(limit.admit('127.0.0.1'), false, 'a refused peer cost a second\'s worth');
  const off = new InboundLimit(0);
  for (let i = 0; i < 100; i++) assert.ok(off.admit('127.0.0.1'));
  assert.throws(() => new InboundLimit(5, ['10.0.0.0/33']), /prefix must be 0–32/);
});

test('flags: --p2p.inboundrate and --p2p.inboundrate.exempt, defaults, and a wrong network named', () => {
  const p2p = (argv: string[]) => (parseFlags(argv, {}) as NodeConfig).p2p!;
  assert.equal([p2p([]).inboundRate, p2p([]).inboundExempt], [5, []]);
  assert.equal([p2p(['--p2p.inboundrate', '0']).inboundRate, p2p(['--p2p.inboundrate.exempt', '127.0.0.0/8, ::1/128']).inboundExempt], [0, ['127.0.0.0/8', '::1/128']]);
  assert.throws(() => parseFlags(['--p2p.inboundrate.exempt', 'localhost'], {}), (e: Error) => e instanceof ConfigError && /--p2p.inboundrate.exempt: "localhost" is not an IP network/.test(e.message));
  assert.throws(() => parseFlags(['--p2p.inboundrate', 'many'], {}), (e: Error) => e instanceof ConfigError && /--p2p.inboundrate must be an integer/.test(e.message));
});

test.run();
