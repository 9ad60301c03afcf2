// What a new peer costs a node with a full pool (src/p2p/tx-sync.ts): follower A holds --txs
// pending transfers (4,096: the pool's default globalslots, 16 per sender), follower B starts on
// the same genesis and connects, and the push is timed from B's listening to B's pool holding all
// of them, with the bytes pushed. Then what a reconnect costs the receiver: the same transactions
// again, all known, ignored by hash. In-process nodes on loopback, neither sealing, so nothing
// leaves the pools.
//
//   node --import tsx bench/tx-sync.ts [--txs N]
import { parseArgs } from 'node:util';
import { createLegacyTx } from '@ethereumjs/tx';
import { startTestNode, testKey, type TestNode } from '../test/helpers/node.ts';
import { undialledGenesis } from '../test/helpers/blocks.ts';
import { makeTxCommon } from '../src/tx/common.ts';
import { CoreChainDoor } from '../src/core/core-chain-door.ts';
import { TX_PUSH_BYTES, TX_PUSH_COUNT } from '../src/p2p/wire.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

const PER_SENDER = 16;

const { values } = parseArgs({ options: { txs: { type: 'string', default: String(TX_PUSH_COUNT) } } });
const count = Number(values.txs);
const senders = Math.ceil(count / PER_SENDER);
const genesis = undialledGenesis(senders);

const follower = (nodeKey: string, bootnodes: string[] = []) =>
  startTestNode({ nodeKey, genesis, config: { p2p: { addr: '127.0.0.1', bootnodes, maxPeers: 10 }, p2pPort: 0, txpool: { globalSlots: count } } });

async function pendingCount(node: TestNode): Promise<number> {
  return Number((await node.rpc('txpool_status')).pending);
}

async function until(probe: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 30_000;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out: B holds ${JSON.stringify(await b?.rpc('txpool_status'))}, A has ${a.network!.peerCount()} peers`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const a = await follower('a1'.repeat(32));
let b: TestNode | undefined;
try {
  const common = makeTxCommon(300n);
  const raws: string[] = [];
  for (let i = 0; i < count; i++) {
    const tx = createLegacyTx({ to: hexToBytes('0x' + '5'.repeat(40)), value: 1n, nonce: i % PER_SENDER, gasLimit: 21000, gasPrice: 0n }, { common });
    raws.push(bytesToHex(tx.sign(hexToBytes(testKey(Math.floor(i / PER_SENDER)))).serialize()));
  }
  for (let i = 0; i < raws.length; i += 500) {
    await fetch(a.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(raws.slice(i, i + 500).map((raw, k) => ({ jsonrpc: '2.0', id: k, method: 'eth_sendRawTransaction', params: [raw] }))) });
  }
  if ((await pendingCount(a)) !== count) throw new Error(`A pooled ${await pendingCount(a)} of ${count}`);

  const door = new CoreChainDoor(a.core);
  let t = performance.now();
  const pushed = door.pendingTransactions(TX_PUSH_COUNT, TX_PUSH_BYTES);
  const gatherMs = performance.now() - t;
  const bytes = pushed.reduce((n, raw) => n + raw.length + (raw.length < 128 ? 1 : 2), 0);

  const aAddr = a.network!.nodeInfo().multiaddrs[0]!;
  console.log(`A: ${count} pending from ${senders} senders; pushed: ${pushed.length} transactions, ${bytes} bytes in frames (${(bytes / pushed.length).toFixed(0)} a transaction); gathered in ${gatherMs.toFixed(1)} ms`);
  b = await follower('b2'.repeat(32), [aAddr]);
  t = performance.now();
  await a.rpc('admin_addPeer', [b.network!.nodeInfo().multiaddrs[0]]);
  await until(async () => (await pendingCount(b!)) > 0);
  const firstMs = performance.now() - t;
  await until(async () => (await pendingCount(b!)) >= pushed.length);
  console.log(`new peer: from B listening, ${firstMs.toFixed(0)} ms to the first pushed transaction in B's pool (dial, handshake, the push across), ${(performance.now() - t).toFixed(0)} ms to all ${pushed.length}`);
  // a reconnect pushes what the receiver holds already: each is ignored by its hash
  const bDoor = new CoreChainDoor(b.core);
  t = performance.now();
  for (const raw of pushed) await bDoor.receiveTransaction(raw);
  console.log(`receiving ${pushed.length} known transactions: ${(performance.now() - t).toFixed(0)} ms`);
} finally {
  await b?.stop();
  await a.stop();
}
