// Micro-benchmark of pool admission (src/txpool), in this process, no RPC and no state trie:
//   1. the pool alone: pre-decoded transactions (senders recovered beforehand) into TxPool.add
//   2. the pool alone, full at geth's default limits: every admission evicts or is refused
//   3. with signature recovery: decoding + sender recovery (decodePooledTx) + TxPool.add
//
//   node --import tsx bench/pool.ts [--quick]
//
// `poolBench()` returns the rows for `npm run bench`.
import { createLegacyTx } from '@ethereumjs/tx';
import { makeTxCommon } from '../src/tx/common.ts';
import { signHash } from '../src/crypto/secp256k1.ts';
import { decodePooledTx, type PooledTx } from '../src/tx/pooled-tx.ts';
import { TxPool, PoolError, type PoolAccountState } from '../src/txpool/pool.ts';
import { DEFAULT_TXPOOL_CONFIG } from '../src/txpool/config.ts';

export interface BenchRow {
  name: string;
  value: string;
  extra: string;
}

const common = makeTxCommon(300n);
const TO = new Uint8Array(20).fill(0x77);

function key(i: number): Uint8Array {
  const k = new Uint8Array(32);
  k[27] = 0xbe;
  k.set([(i >> 24) & 0xff, (i >> 16) & 0xff, (i >> 8) & 0xff, i & 0xff], 28);
  return k;
}

/** `senders` × `perSender` signed transfers, interleaved by nonce (how many clients would send). */
function signTransfers(senders: number, perSender: number, price: (s: number, n: number) => bigint, firstKey = 0): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let n = 0; n < perSender; n++) {
    for (let s = 0; s < senders; s++) {
      const tx = createLegacyTx({ nonce: BigInt(n), gasPrice: price(s, n), gasLimit: 21000n, to: TO, value: 1n }, { common });
      const { rs, recid } = signHash(tx.getHashedMessageToSign(), key(firstKey + s));
      out.push(tx.addSignature(BigInt(recid), rs.slice(0, 32), rs.slice(32), true).serialize());
    }
  }
  return out;
}

/** Every account at nonce 0 with plenty of balance (the node reads these from the head state). */
const freshAccounts: PoolAccountState = { account: async () => ({ nonce: 0n, balance: 10n ** 30n }) };

const NO_LIMITS = { globalSlots: 1e9, globalQueue: 1e9, accountQueue: 1e9, accountSlots: 1e9 };

async function timeAdds(pool: TxPool, txs: PooledTx[]): Promise<{ seconds: number; refused: number }> {
  let refused = 0;
  const t0 = performance.now();
  for (const t of txs) {
    try {
      await pool.add(t);
    } catch (e) {
      if (!(e instanceof PoolError)) throw e;
      refused++;
    }
  }
  return { seconds: (performance.now() - t0) / 1000, refused };
}

const rate = (n: number, s: number) => `${Math.round(n / s).toLocaleString('en-US')} tx/s`;

export async function poolBench(quick = false): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const senders = quick ? 100 : 200;
  const perSender = quick ? 50 : 100;
  const raws = signTransfers(senders, perSender, () => 1n);
  const decoded = raws.map((r) => decodePooledTx(r, common));

  // warm-up, then the measured run on a fresh pool
  await timeAdds(new TxPool(freshAccounts, NO_LIMITS, { expiryTimer: false }), decoded.slice(0, 2000));
  const alone = new TxPool(freshAccounts, NO_LIMITS, { expiryTimer: false });
  const a = await timeAdds(alone, decoded);
  if (alone.pendingCount !== decoded.length) throw new Error(`pool alone: ${alone.pendingCount} pending of ${decoded.length}`);
  rows.push({
    name: `pool alone: ${decoded.length.toLocaleString('en-US')} transfers, ${senders} senders, senders recovered beforehand`,
    value: rate(decoded.length, a.seconds),
    extra: `${((a.seconds * 1e6) / decoded.length).toFixed(1)} µs/tx`,
  });

  // full pool at the default limits (4096 + 1024): 320 senders × 16 fill it, then newcomers at
  // random prices each evict the cheapest remote transaction or are refused as underpriced
  const cap = DEFAULT_TXPOOL_CONFIG.globalSlots + DEFAULT_TXPOOL_CONFIG.globalQueue;
  const fillSenders = cap / DEFAULT_TXPOOL_CONFIG.accountSlots;
  const fill = signTransfers(fillSenders, DEFAULT_TXPOOL_CONFIG.accountSlots, (s, n) => BigInt(1 + ((s * 7 + n * 13) % 100))).map((r) => decodePooledTx(r, common));
  let seed = 42;
  const churnCount = quick ? 5000 : 20000;
  const churn = signTransfers(
    churnCount,
    1,
    () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return BigInt(1 + (seed % 200));
    },
    fillSenders,
  ).map((r) => decodePooledTx(r, common));
  const full = new TxPool(freshAccounts, {}, { expiryTimer: false });
  await timeAdds(full, fill);
  if (full.size !== cap) throw new Error(`fill: ${full.size} of ${cap}`);
  const c = await timeAdds(full, churn);
  rows.push({
    name: `pool alone, full at the default limits (${cap.toLocaleString('en-US')}): ${churnCount.toLocaleString('en-US')} newcomers evict the cheapest or are refused`,
    value: rate(churnCount, c.seconds),
    extra: `${c.refused.toLocaleString('en-US')} refused as underpriced, pool size ${full.size}`,
  });

  // with signature recovery: what admission costs before the state checks
  const withRecovery = new TxPool(freshAccounts, NO_LIMITS, { expiryTimer: false });
  const t0 = performance.now();
  for (const r of raws) await withRecovery.add(decodePooledTx(r, common));
  const s = (performance.now() - t0) / 1000;
  rows.push({
    name: `pool with decoding + sender recovery: ${raws.length.toLocaleString('en-US')} transfers`,
    value: rate(raws.length, s),
    extra: `${((s * 1e6) / raws.length).toFixed(1)} µs/tx`,
  });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await poolBench(process.argv.includes('--quick'));
  for (const r of rows) console.log(`${r.name}: ${r.value}${r.extra ? ` (${r.extra})` : ''}`);
}
