// The joiner's side of a state sync (N16): blocks to the pivot stored without execution (seals,
// links and roots checked, senders recovered here), then the pivot's state from proven ranges,
// written with the batched trie writes. Progress lives in the meta and is committed in the same
// LMDB transaction as the data it describes, so a SIGKILL loses at most the answers in flight.
import { RLP } from '@ethereumjs/rlp';
import { verifyMerkleRangeProof } from '@ethereumjs/mpt';
import { KECCAK256_NULL, KECCAK256_RLP, generateAddress, bigIntToBytes as utilBigIntToBytes } from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';
import type { Chain } from '../chain/chain.ts';
import type { Store } from '../store/lmdb-store.ts';
import type { BlockRecord, LogRecord, StoredReceipt } from '../chain/types.ts';
import { decodeBlock, type WireBlock } from '../chain/block-codec.ts';
import type { Header } from '../chain/header.ts';
import { orderedTrieRoot } from '../chain/ordered-trie.ts';
import { CODE_KEY_PREFIX, OverlayTrieDB } from '../state/trie-db.ts';
import { applyTrieWrites } from '../state/trie-batch.ts';
import { checkLink, checkSealsByParentSet, sealSigners, SetChangeError } from '../consensus/block-verify.ts';
import type { SignatureRecovery } from '../tx/signature-recovery.ts';
import { pooledFromFacts } from '../tx/pooled-tx.ts';
import { effectiveGasPrice } from '../exec/executor.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { bytesToHex, equalBytes, hexToBytes } from '../util/hex.ts';
import type { RangeAnswer, SnapDoor, SnapStatus, SnapVerdict, StateTask } from './chain-door.ts';

/** The account key space in this many slices, asked of different peers at once. */
export const SLICES = 16;

interface Progress {
  pivot: number;
  stored: number;
  pulled: number;
  /** the account trie built so far */
  accountRoot: string;
  /** per slice: the next key to ask for, null once done */
  slices: (string | null)[];
}

/** A storage trie to fetch: meta `snap.st.<account>` */
interface StorageTask {
  root: string;
  next: string;
  partial: string;
}

const ST = 'snap.st.';
const CODE = 'snap.code.';

export interface SnapJoinOptions {
  store: Store;
  chain: Chain;
  common: Common;
  recovery: SignatureRecovery;
  /** runs the head's move as the chain's one writer (no import runs meanwhile) */
  writer(write: () => Promise<void>): Promise<void>;
  /** the head moved to the pivot: the core's readers and executor follow */
  adopted(): Promise<void>;
}

export class SnapJoin implements SnapDoor {
  /** its own overlay: nothing else writes through it while the state is fetched */
  private readonly db: OverlayTrieDB;
  private progress: Progress | undefined;
  private readonly leased = new Set<string>();
  /** the last block verified (its write may still be under way) */
  private tip: { hash: Uint8Array; header: Header } | undefined;
  /** the blocks' writes, in order */
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly o: SnapJoinOptions) {
    this.db = new OverlayTrieDB(o.store.trie);
    this.progress = o.store.meta.get('snap') as Progress | undefined;
  }

  status(): SnapStatus | undefined {
    const p = this.progress;
    return p && { pivot: BigInt(p.pivot), stored: BigInt(p.stored), pulled: p.pulled };
  }

  async begin(pivot: bigint): Promise<void> {
    await this.writing;
    const slices = Array.from({ length: SLICES }, (_, i) => bytesToHex(sliceStart(i)));
    this.progress = { pivot: Number(pivot), stored: Number(this.o.chain.headNumber), pulled: 0, accountRoot: bytesToHex(KECCAK256_RLP), slices };
    this.tip = undefined;
    const snapshot = { ...this.progress };
    await this.o.store.meta.put('snap', snapshot);
  }

  async movePivot(pivot: bigint): Promise<void> {
    const p = this.progress;
    if (!p || p.stored >= p.pivot) return;
    const to = Math.max(Number(pivot), p.stored);
    if (to >= p.pivot) return;
    p.pivot = to;
    const snapshot = { ...p };
    // after the blocks' writes under way, whose snapshots name the old pivot
    this.writing = this.writing.then(() => this.o.store.meta.put('snap', snapshot).then(() => undefined));
    await this.writing;
  }

  async storeBlocks(encoded: readonly Uint8Array[], receiptLists: readonly Uint8Array[]): Promise<{ stored: number; refused?: string }> {
    const p = this.progress;
    if (!p) return { stored: 0, refused: 'no state sync under way' };
    const { chain, recovery, common } = this.o;
    const blocks: WireBlock[] = [];
    let refused: string | undefined;
    for (const bytes of encoded) {
      try {
        blocks.push(decodeBlock(bytes));
      } catch (e) {
        refused = (e as Error).message;
        break;
      }
    }
    // every block's signatures at once, on the recovery threads
    const work = blocks.map((b) => Promise.all([sealSigners(b.header, b.hash, recovery), recovery.decodeTxs(b.txs, common.chainId())]).catch((e: Error) => e));
    let parent = this.tip ?? { hash: chain.storedHashAt(BigInt(p.stored))!, header: chain.headerByHash(chain.storedHashAt(BigInt(p.stored))!)! };
    const out: { block: BlockRecord; receipts: StoredReceipt[]; creators: [Uint8Array, Uint8Array][] }[] = [];
    const now = BigInt(Math.floor(Date.now() / 1000));
    for (let i = 0; i < blocks.length; i++) {
      const { header, hash, txs } = blocks[i]!;
      const at = `block #${header.number} ${bytesToHex(hash)}`;
      try {
        if (header.number !== parent.header.number + 1n || !equalBytes(header.parentHash, parent.hash)) throw new Error(`is not the child of #${parent.header.number} ${bytesToHex(parent.hash)}`);
        if (header.number > BigInt(p.pivot)) throw new Error(`is past the pivot #${p.pivot}`);
        const recovered = await work[i]!;
        if (recovered instanceof Error) throw recovered;
        const [signers, facts] = recovered;
        checkSealsByParentSet(header, signers, parent.header.extraData);
        checkLink(header, parent, now);
        if (!equalBytes(orderedTrieRoot(txs), header.transactionsRoot)) throw new Error('its transactions do not hash to its transactionsRoot');
        const ptxs = facts.map((f, j) => {
          if (typeof f === 'string') throw new Error(`transaction ${j}: ${f}`);
          return pooledFromFacts(txs[j]!, f, common);
        });
        const receiptValues = decodeList(receiptLists[i], `receipts of ${at}`);
        if (receiptValues.length !== txs.length) throw new Error(`${receiptValues.length} receipts for ${txs.length} transactions`);
        if (!equalBytes(orderedTrieRoot(receiptValues), header.receiptsRoot)) throw new Error('its receipts do not hash to its receiptsRoot');
        const bloom = new Uint8Array(256);
        const receipts: StoredReceipt[] = [];
        const creators: [Uint8Array, Uint8Array][] = [];
        let cumulative = 0n;
        for (let j = 0; j < receiptValues.length; j++) {
          const r = decodeReceipt(receiptValues[j]!);
          for (let k = 0; k < 256; k++) bloom[k]! |= r.bloom[k]!;
          const ptx = ptxs[j]!;
          const created = ptx.to === undefined ? generateAddress(ptx.sender, utilBigIntToBytes(ptx.nonce)) : null;
          if (created && r.status === 1) creators.push([created, ptx.sender]);
          receipts.push({ status: r.status, gasUsed: r.cumulativeGasUsed - cumulative, cumulativeGasUsed: r.cumulativeGasUsed, logs: r.logs, contractAddress: created, from: ptx.sender, to: ptx.to?.bytes ?? null, type: r.type, effectiveGasPrice: effectiveGasPrice(ptx) });
          cumulative = r.cumulativeGasUsed;
        }
        if (!equalBytes(bloom, header.logsBloom)) throw new Error("its receipts' blooms do not make its logsBloom");
        if (cumulative !== header.gasUsed) throw new Error(`its receipts use ${cumulative} gas, its gasUsed is ${header.gasUsed}`);
        if (header.gasUsed > header.gasLimit) throw new Error(`gasUsed ${header.gasUsed} is above its gasLimit ${header.gasLimit}`);
        out.push({ block: { hash, header, txs, senders: ptxs.map((t) => t.sender), txHashes: ptxs.map((t) => t.hash) }, receipts, creators });
        parent = { hash, header };
      } catch (e) {
        if (e instanceof SetChangeError) {
          // the headers cannot vouch for it: the pivot moves before it and the full sync executes through it
          p.pivot = Number(parent.header.number);
          break;
        }
        refused = `${at} ${(e as Error).message}`;
        break;
      }
    }
    if (out.length > 0 || p.pivot === Number(parent.header.number)) {
      p.stored = Number(parent.header.number);
      this.tip = parent;
      const snapshot = { ...p };
      // written while the next blocks are verified: one write waits at most (the memory they hold)
      const before = this.writing;
      this.writing = before.then(() => chain.storeAhead(out, () => void this.o.store.meta.put('snap', snapshot)));
      await (p.stored >= p.pivot ? this.writing : before);
    }
    return refused === undefined ? { stored: out.length } : { stored: out.length, refused };
  }

  /** The pivot's state root, once its header is stored. */
  private pivotRoot(): Uint8Array | undefined {
    const p = this.progress;
    if (!p || p.stored < p.pivot) return undefined;
    return this.o.chain.headerByHash(this.o.chain.storedHashAt(BigInt(p.pivot))!)!.stateRoot;
  }

  nextTask(): StateTask | undefined {
    const root = this.pivotRoot();
    const p = this.progress;
    if (!root || !p) return undefined;
    for (let i = 0; i < SLICES; i++) {
      const id = `a${i}`;
      if (p.slices[i] === null || this.leased.has(id)) continue;
      this.leased.add(id);
      return { kind: 'accounts', id, root, origin: hexToBytes(p.slices[i]!), limit: sliceLimit(i) };
    }
    for (const { key, value } of this.o.store.meta.getRange({ start: ST, end: ST + '~' })) {
      const id = key as string;
      if (this.leased.has(id)) continue;
      this.leased.add(id);
      return { kind: 'storage', id, root, account: hexToBytes('0x' + id.slice(ST.length)), origin: hexToBytes((value as StorageTask).next) };
    }
    const hashes: Uint8Array[] = [];
    for (const key of this.o.store.meta.getKeys({ start: CODE, end: CODE + '~' })) {
      if (this.leased.has(key as string)) continue;
      hashes.push(hexToBytes('0x' + (key as string).slice(CODE.length)));
      if (hashes.length === 64) break;
    }
    if (hashes.length === 0) return undefined;
    for (const h of hashes) this.leased.add(CODE + bytesToHex(h).slice(2));
    return { kind: 'codes', id: CODE + bytesToHex(hashes[0]!).slice(2), hashes };
  }

  release(task: StateTask): void {
    if (task.kind === 'codes') for (const h of task.hashes) this.leased.delete(CODE + bytesToHex(h).slice(2));
    else this.leased.delete(task.id);
  }

  async putRange(task: StateTask & { kind: 'accounts' | 'storage' }, answer: RangeAnswer): Promise<SnapVerdict> {
    try {
      return await this.putRangeLeased(task, answer);
    } finally {
      this.release(task);
    }
  }

  private async putRangeLeased(task: StateTask & { kind: 'accounts' | 'storage' }, answer: RangeAnswer): Promise<SnapVerdict> {
    const p = this.progress!;
    const st = task.kind === 'storage' ? (this.o.store.meta.get(task.id) as StorageTask | undefined) : undefined;
    if (task.kind === 'storage' && !st) return { ok: true, stored: 0 };
    const root = task.kind === 'accounts' ? task.root : hexToBytes(st!.root);
    const { keys, values, proof } = answer;
    if (keys.length === 0 && proof.length === 0) return { ok: false, reason: `${task.kind} range at root ${bytesToHex(root)}: an empty answer for a root the peer's head covers` };
    if (keys.length !== values.length) return { ok: false, reason: `${task.kind} range: ${keys.length} keys for ${values.length} values` };
    if (keys.some((k) => k.length !== 32)) return { ok: false, reason: `${task.kind} range: a key is not 32 bytes` };
    if (keys.length > 0 && Buffer.compare(keys[0]!, task.origin) < 0) return { ok: false, reason: `${task.kind} range starts before the key asked for` };
    let more: boolean;
    try {
      more = await verifyMerkleRangeProof(root, task.origin, keys.at(-1) ?? null, keys, values, proof);
    } catch (e) {
      return { ok: false, reason: `${task.kind} range at root ${bytesToHex(root)} does not verify: ${(e as Error).message}` };
    }
    const last = keys.at(-1);
    const limit = task.kind === 'accounts' ? task.limit : undefined;
    const done = !more || last === undefined || (limit !== undefined && Buffer.compare(last, limit) >= 0);
    const writes = keys.map((key, i) => ({ key, value: values[i]! }));
    const puts: [string, unknown][] = [];
    const removes: string[] = [];
    if (task.kind === 'accounts') {
      for (let i = 0; i < values.length; i++) {
        let fields: Uint8Array[];
        try {
          fields = RLP.decode(values[i]!) as Uint8Array[];
          if (!Array.isArray(fields) || fields.length !== 4) throw new Error('not 4 fields');
        } catch (e) {
          return { ok: false, reason: `accounts range: an account is not RLP([nonce, balance, storageRoot, codeHash]): ${(e as Error).message}` };
        }
        const [, , storageRoot, codeHash] = fields as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
        if (!equalBytes(storageRoot, KECCAK256_RLP) && !this.has(bytesToHex(storageRoot).slice(2))) puts.push([ST + bytesToHex(keys[i]!).slice(2), { root: bytesToHex(storageRoot), next: bytesToHex(new Uint8Array(32)), partial: bytesToHex(KECCAK256_RLP) } satisfies StorageTask]);
        if (!equalBytes(codeHash, KECCAK256_NULL) && !this.has(CODE_KEY_PREFIX + bytesToHex(codeHash).slice(2))) puts.push([CODE + bytesToHex(codeHash).slice(2), 1]);
      }
      const slice = Number(task.id.slice(1));
      p.accountRoot = bytesToHex(applyTrieWrites(this.db.nodes, hexToBytes(p.accountRoot), writes));
      p.slices[slice] = done ? null : bytesToHex(increment(last!));
    } else {
      const partial = applyTrieWrites(this.db.nodes, hexToBytes(st!.partial), writes);
      if (done) {
        if (!equalBytes(partial, root)) return { ok: false, reason: `storage of ${bytesToHex(task.account)}: the ranges make root ${bytesToHex(partial)}, not ${bytesToHex(root)}` };
        removes.push(task.id);
      } else puts.push([task.id, { ...st!, next: bytesToHex(increment(last!)), partial: bytesToHex(partial) } satisfies StorageTask]);
    }
    p.pulled += keys.length;
    await this.commit(puts, removes);
    return { ok: true, stored: keys.length };
  }

  async putCodes(task: StateTask & { kind: 'codes' }, codes: readonly Uint8Array[]): Promise<SnapVerdict> {
    try {
      if (codes.length === 0) return { ok: false, reason: `codes: none of the ${task.hashes.length} asked for` };
      const asked = new Set(task.hashes.map((h) => bytesToHex(h)));
      for (const code of codes) {
        const hash = bytesToHex(keccak256(code));
        if (!asked.has(hash)) return { ok: false, reason: `codes: a code hashes to ${hash}, which was not asked for` };
        void this.db.put(CODE_KEY_PREFIX + hash.slice(2), code);
      }
      this.progress!.pulled += codes.length;
      await this.commit([], codes.map((c) => CODE + bytesToHex(keccak256(c)).slice(2)));
      return { ok: true, stored: codes.length };
    } finally {
      this.release(task);
    }
  }

  stateComplete(): boolean {
    const p = this.progress;
    if (!p || p.stored < p.pivot || p.slices.some((s) => s !== null)) return false;
    const meta = this.o.store.meta;
    for (const _ of meta.getKeys({ start: 'snap.', end: 'snap.~' })) return false;
    return true;
  }

  async finish(): Promise<void> {
    const p = this.progress!;
    const root = this.pivotRoot()!;
    if (!this.stateComplete()) throw new Error('the state sync is not complete');
    if (!equalBytes(hexToBytes(p.accountRoot), root)) throw new Error(`the stored accounts make root ${p.accountRoot}, the pivot's is ${bytesToHex(root)}`);
    const pivotHash = this.o.chain.storedHashAt(BigInt(p.pivot))!;
    await this.o.writer(async () => {
      await this.o.chain.adoptHead(pivotHash, () => void this.o.store.meta.remove('snap'));
      this.progress = undefined;
      await this.o.adopted();
    });
  }

  /** Trie nodes written since the last commit, with the meta changes, in one transaction. */
  private async commit(puts: [string, unknown][], removes: string[]): Promise<void> {
    const g = this.db.seal();
    const snapshot = { ...this.progress!, slices: [...this.progress!.slices] };
    const { store } = this.o;
    await store.env.transaction(() => {
      this.db.write(g);
      store.meta.put('snap', snapshot);
      for (const [k, v] of puts) store.meta.put(k, v);
      for (const k of removes) store.meta.remove(k);
    });
    this.db.committed(g);
  }

  private has(key: string): boolean {
    try {
      return this.db.getSync(key) !== undefined;
    } catch {
      return false;
    }
  }
}

function sliceStart(i: number): Uint8Array {
  const k = new Uint8Array(32);
  k[0] = i * (256 / SLICES);
  return k;
}

function sliceLimit(i: number): Uint8Array {
  const k = new Uint8Array(32).fill(0xff);
  k[0] = (i + 1) * (256 / SLICES) - 1;
  return k;
}

/** The key after `key` (32 bytes, big-endian; the last key has none: it stays itself). */
function increment(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key);
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i]! < 255) {
      out[i]!++;
      return out;
    }
    out[i] = 0;
  }
  return key;
}

function decodeList(bytes: Uint8Array | undefined, what: string): Uint8Array[] {
  if (bytes === undefined) throw new Error(`${what} are missing`);
  let items: unknown;
  try {
    items = RLP.decode(bytes);
  } catch (e) {
    throw new Error(`${what} are not RLP: ${(e as Error).message}`);
  }
  if (!Array.isArray(items) || !items.every((i) => i instanceof Uint8Array)) throw new Error(`${what} must be a list of byte strings`);
  return items as Uint8Array[];
}

/** A receipt as its receipts trie holds it: [type ‖] RLP([status, cumulativeGasUsed, bloom, logs]). */
function decodeReceipt(value: Uint8Array): { type: number; status: 0 | 1; cumulativeGasUsed: bigint; bloom: Uint8Array; logs: LogRecord[] } {
  const type = value[0]! < 0x80 ? value[0]! : 0;
  const fields = RLP.decode(type === 0 ? value : value.subarray(1)) as unknown[];
  if (!Array.isArray(fields) || fields.length !== 4) throw new Error('a receipt is not RLP([status, cumulativeGasUsed, bloom, logs])');
  const [status, gas, bloom, logs] = fields as [Uint8Array, Uint8Array, Uint8Array, LogRecord[]];
  if (!(bloom instanceof Uint8Array) || bloom.length !== 256) throw new Error("a receipt's bloom is not 256 bytes");
  if (!Array.isArray(logs)) throw new Error("a receipt's logs are not a list");
  return { type, status: status.length === 0 ? 0 : 1, cumulativeGasUsed: BigInt('0x' + (Buffer.from(gas).toString('hex') || '0')), bloom, logs };
}
