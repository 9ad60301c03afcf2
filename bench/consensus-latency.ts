// The consensus channel's latency (src/p2p/consensus-streams.ts) between two processes on loopback:
// node B's "engine" publishes messages through the door's onConsensusMessage, node A's door times
// each from its publish to consensusMessage (both processes read one clock). Each node is the real
// network host (startNetwork) over a door that stands in for the chain: a validator, no blocks.
//   node --import tsx bench/consensus-latency.ts [COUNT SIZE GAP_MS]   (default 200 200 20)
// Prints one JSON line: the latency's p50, p90, p99 and max in ms.
import { fork } from 'node:child_process';
import { createServer } from 'node:net';
import { startNetwork } from '../src/p2p/host.ts';
import { enodeUrl, nodeKeyFrom } from '../src/crypto/node-key.ts';
import type { ChainDoor } from '../src/core/chain-door.ts';

const [role, ...rest] = process.argv.slice(2);
const now = () => performance.timeOrigin + performance.now();
const freePort = () =>
  new Promise<number>((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });

async function node(me: 'a' | 'b', portA: number, portB: number, count: number, size: number, gapMs: number): Promise<void> {
  const keys = { a: nodeKeyFrom(new Uint8Array(32).fill(1)), b: nodeKeyFrom(new Uint8Array(32).fill(2)) };
  const other = me === 'a' ? enodeUrl(keys.b, '127.0.0.1', portB) : enodeUrl(keys.a, '127.0.0.1', portA);
  let publish: (m: Uint8Array) => void = () => undefined;
  const latencies: number[] = [];
  const door: ChainDoor = {
    networkId: 1n,
    genesisHash: new Uint8Array(32),
    head: () => ({ number: 0n, hash: new Uint8Array(32) }),
    hashAt: () => undefined,
    blocks: () => [],
    accountRange: () => ({ keys: [], values: [], proof: [] }),
    storageRange: () => ({ keys: [], values: [], proof: [] }),
    codes: () => [],
    snapReceipts: () => [],
    // this bench never state-syncs
    snap: undefined as unknown as ChainDoor['snap'],
    importBlocks: async () => ({ imported: 0, transactions: 0 }),
    blockId: () => { throw new Error('no blocks'); },
    receiveTransaction: async () => ({ kind: 'ignored', reason: 'no pool' }),
    pendingTransactions: () => [],
    onHead: () => undefined,
    onNewBlock: () => undefined,
    onLocalTransaction: () => undefined,
    nodeRecords: async () => [],
    onNodeRecordsChanged: () => undefined,
    setSyncing: () => undefined,
    isValidator: () => true,
    validators: () => [keys.a.address, keys.b.address],
    async consensusMessage(m) {
      latencies.push(now() - new DataView(m.buffer, m.byteOffset).getFloat64(0));
      if (latencies.length === count) {
        latencies.sort((x, y) => x - y);
        const at = (q: number) => Number(latencies[Math.min(count - 1, Math.floor(q * count))]!.toFixed(2));
        process.send!({ count, size, gapMs, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) });
      }
      return 'accepted';
    },
    onConsensusMessage: (l) => void (publish = l),
  };
  const quiet = { error: console.error, warn: () => undefined, info: () => undefined, debug: () => undefined };
  await startNetwork({ key: keys[me], config: { addr: '127.0.0.1', port: me === 'a' ? portA : portB, bootnodes: [other], maxPeers: 10 }, door, firstValidatorNode: '', name: 'bench', log: quiet });
  if (me === 'a') return;
  // connected and subscribed by then (the dial loop runs every second)
  await new Promise((r) => setTimeout(r, 3000));
  for (let i = 0; ; i++) {
    const m = new Uint8Array(size);
    for (let j = 8; j < size; j += 4096) m[j] = i & 0xff; // messages differ past the timestamp too
    new DataView(m.buffer).setFloat64(0, now());
    publish(m);
    await new Promise((r) => setTimeout(r, gapMs));
  }
}

if (role === 'a' || role === 'b') {
  const [portA, portB, count, size, gapMs] = rest.map(Number) as [number, number, number, number, number];
  void node(role, portA, portB, count, size, gapMs);
} else {
  const [count = 200, size = 200, gapMs = 20] = [role, ...rest].filter(Boolean).map(Number);
  const ports = [await freePort(), await freePort()];
  const args = [...ports, count, size, gapMs].map(String);
  const children = (['a', 'b'] as const).map((r) => fork(process.argv[1]!, [r, ...args], { execArgv: ['--import', 'tsx'] }));
  const result = await new Promise((done) => children[0]!.on('message', done));
  for (const c of children) c.kill('SIGKILL');
  console.log(JSON.stringify(result));
}
