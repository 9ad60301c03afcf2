// State managers over the trie DB: one live manager the block executor writes through, and cheap
// read views at any historical root (archive queries, eth_call at a block).
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, CODEHASH_PREFIX, MerkleStateManager } from '@ethereumjs/statemanager';
import type { Common } from '@ethereumjs/common';
import { Account, Address, concatBytes, createAccountFromRLP, unprefixedHexToBytes } from '@ethereumjs/util';
import { RLP } from '@ethereumjs/rlp';
import { OverlayTrieDB } from './trie-db.ts';
import { applyTrieWrites, type TrieWrite } from './trie-batch.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { memoizeReads } from './read-memo.ts';
import { leavesFrom } from './trie-range.ts';
import { equalBytes } from '../util/hex.ts';

/**
 * A storage cache key that stands for a slot known only by its trie key (keccak256 of the slot, as
 * copyStorage finds it): this byte, then the 32-byte hash. 33 bytes, so never a slot's own key.
 */
const HASHED_SLOT = 0x68;

/** the first and last 32-byte trie keys: every leaf of a state or storage trie lies between */
const FIRST_KEY = new Uint8Array(32);
const LAST_KEY = new Uint8Array(32).fill(0xff);

/** copyStorage was asked to copy more slots than its limit allows. */
export class SlotLimitError extends Error {}

/**
 * @ethereumjs/statemanager 10.1.3 writes every SSTORE through to the storage trie even when a
 * storage cache is configured (`cache.put(...) ?? writeTrie(...)`: put returns undefined). With the
 * cache present the write belongs in the cache only; flush() moves it to the trie once per block.
 * Roots are unchanged (measured: same state roots with and without this override).
 */
export class CachedMerkleStateManager extends MerkleStateManager {
  /** a storage trie's root was changed directly (clearStorage) since the outermost checkpoint */
  private storageTriesTouched = false;
  /** whether to record written accounts: only the block executor drains them (read views would grow) */
  trackWritten = false;
  /** accounts written since the last takeWritten(), by lowercase hex address */
  private written = new Map<string, Address>();

  /**
   * The account each RLP in the account cache decodes to, by that RLP: the cache keeps accounts
   * serialized and decodes one on every get, and a block of transfers got each of its accounts
   * twice (the transfers, then the pool's view) and put it once: the decoding was 3 % of a sync's
   * event loop (profiled, N17). Filled at put and at the first get; an entry goes with its RLP.
   */
  private readonly decoded = new WeakMap<Uint8Array, Account>();

  override async getAccount(address: Address): Promise<Account | undefined> {
    const elem = this._caches?.account?.get(address);
    if (elem === undefined) return super.getAccount(address);
    const rlp = elem.accountRLP;
    if (rlp === undefined) return undefined;
    let account = this.decoded.get(rlp);
    if (account === undefined) this.decoded.set(rlp, (account = createAccountFromRLP(rlp)));
    // a copy: callers change the account they get (its byte fields are replaced, never written into)
    return copyAccount(account);
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (this.trackWritten) this.written.set(address.toString(), address);
    await super.putAccount(address, account);
    const rlp = account && this._caches?.account?.get(address)?.accountRLP;
    if (rlp !== undefined) this.decoded.set(rlp, copyAccount(account!));
  }

  override async deleteAccount(address: Address): Promise<void> {
    if (this.trackWritten) this.written.set(address.toString(), address);
    return super.deleteAccount(address);
  }

  /**
   * The accounts written (nonce, balance, code or storage root) since the last call: what a block
   * changed, so that the pool re-reads only those instead of every sender's account through the
   * trie. A superset after reverted frames, never less.
   */
  takeWritten(): Map<string, Address> {
    const w = this.written;
    this.written = new Map();
    return w;
  }

  /** Whether the state is exactly the one at `root`: no checkpoint open, every write flushed into the trie. */
  isAt(root: Uint8Array): boolean {
    return this._checkpointCount === 0 && equalBytes(this._trie.root(), root);
  }

  /** Entries in the account, code and storage caches (storage counted by account). */
  cachedEntries(): number {
    const caches = this._caches;
    return (caches?.account?.size() ?? 0) + (caches?.code?.size() ?? 0) + (caches?.storage?.size() ?? 0);
  }

  /** accounts (unprefixed hex) whose cache may hold slots by trie key (copyStorage) */
  private readonly hashedSlots = new Set<string>();

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const storage = this._caches?.storage;
    if (this.hashedSlots.size > 0 && storage !== undefined && this.hashedSlots.has(address.toString().slice(2)) && storage.get(address, key) === undefined) {
      const copied = storage.get(address, concatBytes(Uint8Array.of(HASHED_SLOT), keccak256(key)));
      if (copied !== undefined) return RLP.decode(copied) as Uint8Array;
    }
    return super.getStorage(address, key);
  }

  /**
   * Writes every non-zero slot of `src` into `dest`, as the state holds them now (written slots
   * of the running transaction included); `dest`'s other slots stay. The state keeps slots by
   * their hash only, so a slot never written or read here is copied by its trie key: the cache
   * holds it under HASHED_SLOT + hash, getStorage answers it, flush writes it. A slot `dest`
   * also holds in its cache by its own key takes the copy under that key, so one key never has
   * two cached values, except a later write by its own key, which flush applies last. Undone by
   * revert like any write. Answers the number of slots; SlotLimitError past `limit`.
   */
  async copyStorage(src: Address, dest: Address, limit: number): Promise<number> {
    const storage = this._caches?.storage;
    if (storage === undefined) throw new Error('copyStorage needs the storage cache');
    const account = await this.getAccount(src);
    if (account === undefined) return 0;
    const db = this._trie.database().db;
    if (!(db instanceof OverlayTrieDB)) throw new Error('copyStorage needs the node trie DB');
    const cached = [...(storage.dump(src) ?? new Map<string, Uint8Array | undefined>())];
    // by trie key (hex): the stored slots, then the cache's by hash, then the cache's by own key
    const slots = new Map<string, { value: Uint8Array; key?: Uint8Array }>();
    const zeros = cached.filter(([, v]) => isZero(v)).length;
    // one more than may be kept, so a trie with too many shows it
    const most = limit + zeros + 1;
    const stored = leavesFrom((hash) => db.nodes.get(hash), account.storageRoot, FIRST_KEY, LAST_KEY, most + 1, Infinity);
    if (stored.keys.length > most) throw new SlotLimitError(`more than ${limit} slots`);
    stored.keys.forEach((k, i) => slots.set(Buffer.from(k).toString('hex'), { value: stored.values[i]! }));
    for (const hashed of [true, false]) {
      for (const [keyHex, value] of cached) {
        if ((keyHex.length === 66) !== hashed) continue;
        const key = Buffer.from(keyHex, 'hex');
        const trieKey = hashed ? keyHex.slice(2) : Buffer.from(keccak256(key)).toString('hex');
        if (isZero(value)) slots.delete(trieKey);
        else slots.set(trieKey, { value: value!, key: hashed ? undefined : key });
      }
    }
    if (slots.size > limit) throw new SlotLimitError(`${slots.size} slots, more than ${limit}`);
    const destOwn = new Map<string, Uint8Array>();
    for (const [keyHex] of storage.dump(dest) ?? []) if (keyHex.length === 64) destOwn.set(Buffer.from(keccak256(Buffer.from(keyHex, 'hex'))).toString('hex'), Buffer.from(keyHex, 'hex'));
    for (const [trieKey, { value, key }] of slots) {
      const own = key ?? destOwn.get(trieKey);
      if (own !== undefined) {
        storage.put(dest, own, value);
      } else {
        this.hashedSlots.add(dest.toString().slice(2));
        storage.put(dest, concatBytes(Uint8Array.of(HASHED_SLOT), Buffer.from(trieKey, 'hex')), value);
      }
    }
    return slots.size;
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const storage = this._caches?.storage;
    if (storage === undefined) return super.putStorage(address, key, value);
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long');
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes');
    const account = await this.getAccount(address);
    if (!account) throw new Error('putStorage() called on non-existing account');
    let i = 0;
    while (i < value.length && value[i] === 0) i++;
    storage.put(address, key, RLP.encode(value.subarray(i)));
  }

  /**
   * Moves the cached writes into the tries, as the base flush does (code, then storage slots, which
   * change accounts, then accounts), but each trie takes its writes in one batch
   * (src/state/trie-batch.ts) instead of one mpt put each: one walk, each changed node encoded,
   * hashed and stored once, no intermediate roots stored (N8). The base's path stays
   * for a trie with checkpoints open (its puts must be revertible) or a DB that is not ours.
   */
  override async flush(): Promise<void> {
    const caches = this._caches;
    const trie = this._trie;
    const db = trie.database().db;
    if (caches === undefined || !(trie instanceof AddressKeyMemoTrie) || !(db instanceof OverlayTrieDB) || trie.hasCheckpoints() || this._prefixStorageTrieKeys) {
      // the base flush would hash a slot copied by trie key again
      if (this.hashedSlots.size > 0) throw new Error('slots copied by trie key need the batched flush');
      return super.flush();
    }
    for (const [addressHex, { code }] of caches.code?.flush() ?? []) {
      if (code === undefined) continue;
      const codeHash = keccak256(code);
      await this._getCodeDB().put(this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash, code);
      const address = new Address(unprefixedHexToBytes(addressHex));
      if ((await this.getAccount(address)) === undefined) await this.putAccount(address, new Account());
      await this.modifyAccountFields(address, { codeHash });
    }
    const slots = new Map<string, TrieWrite[]>();
    const flushed = caches.storage?.flush() ?? [];
    // slots copied by trie key first: a write by the slot's own key is the later one (copyStorage)
    for (const hashed of [true, false]) {
      for (const [addressHex, keyHex, value] of flushed) {
        if ((keyHex.length === 66) !== hashed) continue;
        let writes = slots.get(addressHex);
        if (writes === undefined) slots.set(addressHex, (writes = []));
        // the cache holds RLP(value without leading zeros): RLP("") = 0x80, a zero, deletes the slot
        const stored = isZero(value) ? undefined : value;
        writes.push({ key: hashed ? unprefixedHexToBytes(keyHex.slice(2)) : keccak256(unprefixedHexToBytes(keyHex)), value: stored });
      }
    }
    for (const [addressHex, writes] of slots) {
      const address = new Address(unprefixedHexToBytes(addressHex));
      const account = await this.getAccount(address);
      if (account === undefined) continue;
      const storageTrie = this._getStorageTrie(address, account);
      storageTrie.root(applyTrieWrites(db.nodes, storageTrie.root(), writes));
      account.storageRoot = storageTrie.root();
      await this.putAccount(address, account);
    }
    const accounts: TrieWrite[] = [];
    for (const [addressHex, { accountRLP }] of caches.account?.flush() ?? []) accounts.push({ key: trie.appliedKey(unprefixedHexToBytes(addressHex)), value: accountRLP });
    if (accounts.length > 0) trie.root(applyTrieWrites(db.nodes, trie.root(), accounts));
  }

  override async clearStorage(address: Address): Promise<void> {
    this.storageTriesTouched = true;
    return super.clearStorage(address);
  }

  /**
   * The base revert also drops every storage trie object, so the next call rebuilds them and reads
   * their nodes again (measured: most of an eth_call's cost). With caches on, writes never reach
   * the tries before flush(), so after a revert the tries are still exactly the pre-checkpoint
   * ones — unless clearStorage re-rooted one, in which case the base behaviour runs.
   */
  override async revert(): Promise<void> {
    if (this._caches === undefined || this.storageTriesTouched) {
      await super.revert();
    } else {
      await this._trie.revert();
      this._caches.revert();
      this._checkpointCount--;
      if (this._checkpointCount === 0) {
        await this.flush();
        this.originalStorageCache.clear();
      }
    }
    if (this._checkpointCount === 0) this.storageTriesTouched = false;
  }

  override async commit(): Promise<void> {
    await super.commit();
    if (this._checkpointCount === 0) this.storageTriesTouched = false;
  }
}

/**
 * The state manager of the call runner: every read of the account trie and of each storage trie
 * is memoized per root (src/state/read-memo.ts), because each call's reads are forgotten by
 * @ethereumjs's caches when the call's checkpoint is reverted.
 */
export class ReadMemoStateManager extends CachedMerkleStateManager {
  constructor(opts: ConstructorParameters<typeof CachedMerkleStateManager>[0]) {
    super(opts);
    memoizeReads(this._trie);
  }

  protected override _getStorageTrie(...args: Parameters<MerkleStateManager['_getStorageTrie']>): MerklePatriciaTrie {
    return memoizeReads(super._getStorageTrie(...args));
  }
}

/** RLP("") (0x80) or nothing: a zero slot, which the trie does not hold */
function isZero(value: Uint8Array | undefined): boolean {
  return value === undefined || (value.length === 1 && value[0] === 0x80);
}

function copyAccount(a: Account): Account {
  return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash);
}

/** Addresses whose trie key (keccak256 of the address) is remembered; past this the memo starts over. */
const KEY_MEMO = 16_384;
const addressKeys = new Map<string, Uint8Array>();

/**
 * A trie that remembers the keys it hashed for 20-byte inputs (addresses: the account trie's keys).
 * Every block writes back the same senders, recipient and coinbase, and each write and read hashed
 * the address again (~3 % of a block import, profiled). Storage tries (32-byte slot keys, made by
 * @ethereumjs as plain tries) hash as before. mpt only reads the key it gets back.
 */
class AddressKeyMemoTrie extends MerklePatriciaTrie {
  override appliedKey(key: Uint8Array): Uint8Array {
    if (key.length !== 20) return super.appliedKey(key);
    const memo = Buffer.from(key.buffer, key.byteOffset, 20).toString('latin1');
    let applied = addressKeys.get(memo);
    if (applied === undefined) {
      if (addressKeys.size >= KEY_MEMO) addressKeys.clear();
      addressKeys.set(memo, (applied = super.appliedKey(key)));
    }
    return applied;
  }
}

export function newTrie(db: OverlayTrieDB, common: Common, root?: Uint8Array): MerklePatriciaTrie {
  const trie = new AddressKeyMemoTrie({
    db,
    useKeyHashing: true,
    useRootPersistence: false,
    useNodePruning: false,
    valueEncoding: 'view',
    common,
  });
  if (root) trie.root(root);
  return trie;
}

export function newStateManager(db: OverlayTrieDB, common: Common, root?: Uint8Array, kind = CachedMerkleStateManager): CachedMerkleStateManager {
  return new kind({
    trie: newTrie(db, common, root),
    common,
    caches: new Caches(),
  });
}
