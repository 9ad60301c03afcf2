// Real signed transactions for tests of the pool on its own (src/txpool), and the small account
// state the pool reads (nonce and balance per sender, as the head would hold them).
import { makeTxCommon } from '../../src/tx/common.ts';
import { createLegacyTx } from '@ethereumjs/tx';
import { decodePooledTx, type PooledTx } from '../../src/tx/pooled-tx.ts';
import type { PoolAccount, PoolAccountState, TxPool } from '../../src/txpool/pool.ts';
import { addressOf, signHash } from '../../src/crypto/secp256k1.ts';
import { bytesToHex } from '../../src/util/hex.ts';

export const common = makeTxCommon(300n);
const TO = new Uint8Array(20).fill(0x77);

export function poolKey(i: number): Uint8Array {
  const k = new Uint8Array(32);
  k[28] = 0x5e;
  k.set([(i >> 16) & 0xff, (i >> 8) & 0xff, i & 0xff], 29);
  return k;
}

const addresses = new Map<number, string>();
export function poolAddress(i: number): string {
  let a = addresses.get(i);
  if (!a) addresses.set(i, (a = bytesToHex(addressOf(poolKey(i)))));
  return a;
}

export interface TxSpec {
  price?: bigint;
  value?: bigint;
  gas?: bigint;
}

const cache = new Map<string, PooledTx>();

/**
 * A signed transfer from test sender `i`, decoded as admission would (sender recovered once). The
 * same arguments give the same object (signing is the slow part of the random tests).
 */
export function ptx(i: number, nonce: number | bigint, spec: TxSpec = {}): PooledTx {
  const price = spec.price ?? 1n;
  const value = spec.value ?? 1n;
  const gas = spec.gas ?? 21000n;
  const id = `${i}/${nonce}/${price}/${value}/${gas}`;
  let t = cache.get(id);
  if (!t) {
    // signed with the native secp256k1 (what the node's own crypto uses), much faster than tx.sign()
    const unsigned = createLegacyTx({ nonce: BigInt(nonce), gasPrice: price, gasLimit: gas, to: TO, value }, { common });
    const { rs, recid } = signHash(unsigned.getHashedMessageToSign(), poolKey(i));
    const raw = unsigned.addSignature(BigInt(recid), rs.slice(0, 32), rs.slice(32), true).serialize();
    cache.set(id, (t = decodePooledTx(raw, common)));
  }
  return t;
}

/** Head state of the test: every sender starts at nonce 0 with a large balance. */
export class TestAccounts implements PoolAccountState {
  readonly map = new Map<string, PoolAccount>();
  constructor(readonly defaultBalance = 10n ** 24n) {}

  get(address: string): PoolAccount {
    let a = this.map.get(address);
    if (!a) this.map.set(address, (a = { nonce: 0n, balance: this.defaultBalance }));
    return a;
  }

  async account(address: string): Promise<PoolAccount> {
    return { ...this.get(address) };
  }
}

/** Nonces per sender of the pool's pending and queued listings (numbers, for assertions). */
export function nonces(pool: TxPool): { pending: Record<string, number[]>; queued: Record<string, number[]> } {
  const { pending, queued } = pool.listing();
  const f = (m: Map<string, PooledTx[]>) => Object.fromEntries([...m].map(([s, txs]) => [s, txs.map((t) => Number(t.nonce))]));
  return { pending: f(pending), queued: f(queued) };
}

/** Mines: includes every pending transaction (optionally only the first `perSender` of each sender). */
export async function mine(pool: TxPool, accounts: TestAccounts, perSender = Infinity): Promise<PooledTx[]> {
  const taken = new Map<string, number>();
  const included: PooledTx[] = [];
  for (const t of pool.executable()) {
    const n = taken.get(t.senderHex) ?? 0;
    if (n >= perSender) continue;
    taken.set(t.senderHex, n + 1);
    const a = accounts.get(t.senderHex);
    a.nonce = t.nonce + 1n;
    a.balance -= t.cost;
    included.push(t);
  }
  await pool.onBlock(included, []);
  return included;
}
