// The fault injection's logic (src/p2p/faults.ts) on its own: what a fault file may say (and the
// field named when it is wrong), what becomes of each message from a peer (dropped, delayed in its
// window, in order unless reordering, duplicated), the same choices from the same seed, a peer's
// own rule over '*', node keys and peer ids naming the same peer, partitions, a file re-read when a
// test rewrites it, and how a node is told of the file (--p2p.faults, CHAIN_NODE_P2P_FAULTS). Real nodes under injected faults: test/p2p-faults-network.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolve } from 'node:path';
import { nodeKeyFrom } from '../src/crypto/node-key.ts';
import { ConfigError, parseFlags, type NodeConfig } from '../src/node/config.ts';
import type { Logger } from '../src/util/logger.ts';

type Faults = typeof import('../src/p2p/faults.ts');
let faults: Faults;
let peerIdOf: (nodeId: string) => string;
// libp2p's packages are ESM-only: loaded with import(), as the node loads them (uvu -r tsx require()s test files)
test.before(async () => {
  faults = await import('../src/p2p/faults.ts');
  const { peerIdOfNodeId } = await import('../src/p2p/peer-address.ts');
  peerIdOf = (id) => peerIdOfNodeId(id).toString();
});

const key = (i: number) => nodeKeyFrom(new Uint8Array(32).fill(i + 1)).id;
const plan = (o: object) => faults.parseFaultPlan(JSON.stringify(o));
/** `n` messages from `peer`, one every 10 ms: the delays of each */
const many = (inj: InstanceType<Faults['FaultInjector']>, peer: string, n: number) => Array.from({ length: n }, (_, i) => inj.inbound(peer, i * 10));

test('a wrong fault file is refused with the field named', () => {
  const wrong: [string, RegExp][] = [
    ['{', /not JSON/],
    ['[]', /the fault file must be an object/],
    ['{"drop": 1}', /unknown field "drop"/],
    ['{"peers": {"*": {"drop": 1.5}}}', /peers\["\*"\]\.drop must be a probability/],
    ['{"peers": {"*": {"delayMs": [300, 0]}}}', /delayMs must be \[min, max\]/],
    ['{"peers": {"*": {"delayMs": [0.5, 1]}}}', /delayMs must be \[min, max\]/],
    ['{"peers": {"*": {"reorder": "yes"}}}', /reorder must be true or false/],
    ['{"peers": {"*": {"lose": 1}}}', /unknown field "lose"/],
    ['{"peers": {"nobody": {}}}', /"nobody" is neither a peer id nor a node key/],
    ['{"partition": [["a"]]}', /partition\[0\]\[0\]: "a" is neither/],
    ['{"partition": {}}', /partition must be a list of groups/],
    ['{"seed": 1.5}', /seed must be an integer/],
  ];
  for (const [text, reason] of wrong) assert.throws(() => faults.parseFaultPlan(text), reason, text);
});

test('drop, delay window, order kept unless reordering, duplicates; the same choices from the same seed', () => {
  const self = peerIdOf(key(0));
  const peer = peerIdOf(key(1));
  const inj = new faults.FaultInjector(self);
  assert.equal(inj.inbound(peer, 0), [0], 'no plan: every message at once');

  inj.setPlan(plan({ peers: { '*': { drop: 1 } } }));
  assert.equal(many(inj, peer, 20), Array(20).fill([]), 'drop 1: every message dropped');

  inj.setPlan(plan({ seed: 3, peers: { '*': { drop: 0.2 } } }));
  const dropped = many(inj, peer, 2000).filter((d) => d.length === 0).length;
  assert.ok(dropped > 300 && dropped < 500, `drop 0.2: ${dropped} of 2000 dropped`);

  // without reorder each message is handled no earlier than the one before it from that peer
  inj.setPlan(plan({ seed: 3, peers: { '*': { delayMs: [0, 300] } } }));
  const inOrder = many(inj, peer, 200).map((d) => d[0]!);
  assert.ok(inOrder.every((d, i) => d >= 0 && d <= 300 && (i === 0 || i * 10 + d >= (i - 1) * 10 + inOrder[i - 1]!)), 'in order, within the window');
  assert.ok(new Set(inOrder).size > 10, 'delays vary');

  inj.setPlan(plan({ seed: 3, peers: { '*': { delayMs: [100, 300], reorder: true } } }));
  const reordered = many(inj, peer, 200).map((d) => d[0]!);
  assert.ok(reordered.every((d) => d >= 100 && d <= 300), 'within the window');
  assert.ok(reordered.some((d, i) => i > 0 && i * 10 + d < (i - 1) * 10 + reordered[i - 1]!), 'some overtake the one before');

  // the same file gives the same choices (the plan re-seeds); another node makes its own
  inj.setPlan(plan({ seed: 3, peers: { '*': { delayMs: [100, 300], reorder: true } } }));
  assert.equal(many(inj, peer, 200).map((d) => d[0]!), reordered, 'reproducible from the seed');
  const other = new faults.FaultInjector(peerIdOf(key(2)));
  other.setPlan(plan({ seed: 3, peers: { '*': { delayMs: [100, 300], reorder: true } } }));
  assert.not.equal(many(other, peer, 200).map((d) => d[0]!), reordered, 'another node draws its own');

  inj.setPlan(plan({ peers: { '*': { duplicate: 1, delayMs: [0, 50] } } }));
  for (const d of many(inj, peer, 20)) assert.is(d.length, 2, 'duplicate 1: every message twice');
});

test("a peer's own rule (by node key or peer id) over '*'; partitions cut across groups only", () => {
  const [self, a, b, c] = [0, 1, 2, 3].map((i) => peerIdOf(key(i))) as [string, string, string, string];
  const inj = new faults.FaultInjector(self);
  inj.setPlan(plan({ peers: { '*': { drop: 1 }, [key(1)]: {}, [b]: { drop: 0 } } }));
  assert.equal([inj.inbound(a, 0), inj.inbound(b, 0), inj.inbound(c, 0)], [[0], [0], []]);

  inj.setPlan(plan({ partition: [[key(0), a], [b, '0x' + key(3)]] }));
  assert.equal([a, b, c].map((p) => inj.separated(p)), [false, true, true], 'only its own group is reachable');
  const outside = new faults.FaultInjector(peerIdOf(key(4)));
  outside.setPlan(plan({ partition: [[self, a], [b, c]] }));
  assert.equal([self, a, b, c].map((p) => outside.separated(p)), [false, false, false, false], 'a node in no group is not partitioned');
  inj.setPlan(faults.NO_FAULTS);
  assert.not.ok(inj.separated(c), 'healed');
});

test('the file is read at once and again when rewritten; a wrong one keeps the plan in force', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chain-node-faults-'));
  const file = join(dir, 'faults.json');
  const warnings: string[] = [];
  const log: Logger = { error: () => undefined, warn: (m) => warnings.push(m), info: () => undefined, debug: () => undefined };
  const plans: number[] = [];
  const stop = await faults.watchFaultFile(file, (p) => plans.push(p.seed), log);
  try {
    assert.match(warnings[0]!, /unreadable: ENOENT/);
    writeFileSync(file, '{"seed": 1}');
    const wait = () => new Promise((r) => setTimeout(r, faults.FAULT_FILE_POLL_MS * 3));
    await wait();
    writeFileSync(file, '{"seed": 2, "bad": 1}');
    await wait();
    writeFileSync(file, '{"seed": 3}');
    await wait();
    assert.equal(plans, [1, 3]);
    assert.ok(warnings.some((w) => /ignored: the fault file: unknown field "bad"/.test(w)), warnings.join('\n'));
  } finally {
    stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the flag, or the environment variable when the flag is absent, names the file', () => {
  const faultsOf = (argv: string[], env: NodeJS.ProcessEnv = {}) => (parseFlags(argv, env) as NodeConfig).p2p!.faults;
  assert.is(faultsOf([]), undefined, 'off unless asked');
  assert.is(faultsOf(['--p2p.faults', 'f.json']), resolve('f.json'));
  assert.is(faultsOf([], { CHAIN_NODE_P2P_FAULTS: 'env.json' }), resolve('env.json'));
  assert.is(faultsOf(['--p2p.faults', 'f.json'], { CHAIN_NODE_P2P_FAULTS: 'env.json' }), resolve('f.json'), 'the flag first');
  assert.throws(() => parseFlags(['--p2p.faults', ''], {}), (e: Error) => e instanceof ConfigError && /--p2p.faults .* must name a file/.test(e.message));
});

test.run();
