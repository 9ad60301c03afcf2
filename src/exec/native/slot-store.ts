// Byte values of any length under text keys, kept in an account's 32-byte storage slots, so a
// native contract's state is ordinary storage: in the state root, at every block, reverted with a
// failed transaction. Venachain's system contracts keep values of any length under raw keys; the
// state trie holds 32-byte words, hence this layout (Solidity's for `bytes`):
//   slot keccak256(key)              = length + 1 (0: no value)
//   slot keccak256(keccak256(key))+i = the value's i-th 32-byte chunk
import { keccak256 } from '../../crypto/keccak.ts';
import { bigIntToBytes, bytesToBigInt, padLeft } from '../../util/hex.ts';

/** An account's storage, as native contracts and the node-side readers of their state see it. */
export interface Slots {
  get(slot: Uint8Array): Promise<Uint8Array>;
  /** a zero word deletes the slot; read-only stores throw */
  put(slot: Uint8Array, value: Uint8Array): Promise<void>;
}

const WORD = 32;
const utf8 = new TextEncoder();

function word(n: bigint): Uint8Array {
  return padLeft(bigIntToBytes(n), WORD);
}

function chunkSlot(base: Uint8Array, i: number): Uint8Array {
  return word((bytesToBigInt(keccak256(base)) + BigInt(i)) & ((1n << 256n) - 1n));
}

/** Byte values under text keys, over one account's slots. */
export class SlotStore {
  constructor(readonly slots: Slots) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    const base = keccak256(utf8.encode(key));
    const header = bytesToBigInt(await this.slots.get(base));
    if (header === 0n) return undefined;
    const length = Number(header - 1n);
    const out = new Uint8Array(Math.ceil(length / WORD) * WORD);
    for (let i = 0; i * WORD < length; i++) out.set(padLeft(await this.slots.get(chunkSlot(base, i)), WORD), i * WORD);
    return out.subarray(0, length);
  }

  /** Writes `value` under `key`; undefined removes it. Chunks a shorter value no longer covers are cleared. */
  async put(key: string, value: Uint8Array | undefined): Promise<void> {
    const base = keccak256(utf8.encode(key));
    const header = bytesToBigInt(await this.slots.get(base));
    const oldChunks = header === 0n ? 0 : Math.ceil(Number(header - 1n) / WORD);
    const newChunks = value === undefined ? 0 : Math.ceil(value.length / WORD);
    await this.slots.put(base, word(value === undefined ? 0n : BigInt(value.length) + 1n));
    for (let i = 0; i < Math.max(oldChunks, newChunks); i++) {
      const chunk = new Uint8Array(WORD);
      if (i < newChunks) chunk.set(value!.subarray(i * WORD, (i + 1) * WORD));
      await this.slots.put(chunkSlot(base, i), chunk);
    }
  }

  async getText(key: string): Promise<string | undefined> {
    const v = await this.get(key);
    return v === undefined ? undefined : new TextDecoder().decode(v);
  }

  async putText(key: string, text: string | undefined): Promise<void> {
    return this.put(key, text === undefined ? undefined : utf8.encode(text));
  }

  /** A JSON value written by putJson (the contracts' own state: never user text parsed unchecked). */
  async getJson<T>(key: string): Promise<T | undefined> {
    const t = await this.getText(key);
    return t === undefined ? undefined : (JSON.parse(t) as T);
  }

  async putJson(key: string, value: unknown): Promise<void> {
    return this.putText(key, value === undefined ? undefined : JSON.stringify(value));
  }
}

/** Slots in memory (hex slot → 32-byte word): a genesis' storage being built. */
export class MemorySlots implements Slots {
  readonly words = new Map<string, Uint8Array>();
  async get(slot: Uint8Array): Promise<Uint8Array> {
    return this.words.get(Buffer.from(slot).toString('hex')) ?? new Uint8Array(WORD);
  }
  async put(slot: Uint8Array, value: Uint8Array): Promise<void> {
    const key = Buffer.from(slot).toString('hex');
    if (value.every((b) => b === 0)) this.words.delete(key);
    else this.words.set(key, padLeft(value, WORD));
  }
  /** genesis alloc storage: { "0x<slot>": "0x<word>" } */
  toAlloc(): Record<string, string> {
    return Object.fromEntries([...this.words].map(([k, v]) => ['0x' + k, '0x' + Buffer.from(v).toString('hex')]));
  }
}

/** Read-only slots of an account at some state root (node-side readers: validator set, parameters). */
export class ViewSlots implements Slots {
  constructor(
    private readonly view: { getStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> },
    private readonly address: Uint8Array,
  ) {}
  get(slot: Uint8Array): Promise<Uint8Array> {
    return this.view.getStorage(this.address, slot);
  }
  put(): Promise<void> {
    throw new Error('read-only state');
  }
}

/**
 * An ordered list of texts under `key` in a SlotStore: its length under `key`, item i under
 * `key#i`. Appending writes two values whatever the list's length; one JSON array under `key`
 * would rewrite every 32-byte chunk of it, so each append cost grew with the list (500 users
 * added one by one: 21 ms per transaction for the first 50, 365 ms for the last 50).
 */
export class TextList {
  constructor(
    private readonly store: SlotStore,
    private readonly key: string,
  ) {}

  async length(): Promise<number> {
    return (await this.store.getJson<number>(this.key)) ?? 0;
  }

  async all(): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0, n = await this.length(); i < n; i++) out.push((await this.store.getText(`${this.key}#${i}`))!);
    return out;
  }

  async push(item: string): Promise<void> {
    const n = await this.length();
    await this.store.putText(`${this.key}#${n}`, item);
    await this.store.putJson(this.key, n + 1);
  }

  /** Removes the first `item`, keeping the others in order (the items after it move down one). */
  async remove(item: string): Promise<void> {
    const items = await this.all();
    const at = items.indexOf(item);
    if (at < 0) return;
    for (let i = at; i < items.length - 1; i++) await this.store.putText(`${this.key}#${i}`, items[i + 1]);
    await this.store.putText(`${this.key}#${items.length - 1}`, undefined);
    await this.store.putJson(this.key, items.length === 1 ? undefined : items.length - 1);
  }
}
