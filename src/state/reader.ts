// Read-only state at any block's state root (archive). The view of the head is kept and reused
// until the head moves, so repeated reads of hot accounts hit its caches.
import { Address, type Account } from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';
import type { OverlayTrieDB } from './trie-db.ts';
import { newStateManager, type CachedMerkleStateManager } from './state-manager.ts';
import { padLeft } from '../util/hex.ts';

/** Accounts a view remembers; past this the memo starts over (a view lives until the head moves). */
const ACCOUNT_MEMO = 65_536;

/** Most accounts a new head view takes over from the previous one; beyond this it starts empty. */
const CARRIED_ACCOUNTS = 8_192;

/**
 * Reads a view sends to its state manager before it takes a new one at the same root. The
 * manager's @ethereumjs caches keep every account, code and slot it ever read (the account cache
 * in an unbounded ordered map, plus a checkpoint-diff entry per read that only a flush clears),
 * and the head view lives until the head moves: on a chain whose head stands still, reads of new
 * addresses grew the heap without end (~180 B a read). A new manager starts with empty caches;
 * the hot accounts are in the view's own memo, so only hot code and slots are read again.
 */
export const MANAGER_READS = 16_384;

export class StateView {
  /** Accounts read at this root: state under a root never changes, so hot reads skip the trie and RLP. */
  private readonly accounts: Map<string, Account | undefined>;
  private manager: CachedMerkleStateManager;
  /** reads sent to `manager` (MANAGER_READS) */
  private managerReads = 0;

  constructor(readonly root: Uint8Array, private readonly newManager: () => CachedMerkleStateManager, known?: Map<string, Account | undefined>) {
    this.accounts = known ?? new Map();
    this.manager = newManager();
  }

  /** Entries this view holds in memory: its account memo and its manager's caches (tests bound it). */
  heldEntries(): number {
    return this.accounts.size + this.manager.cachedEntries();
  }

  /** The state manager for one more read: a fresh one every MANAGER_READS reads. */
  private reader(): CachedMerkleStateManager {
    if (++this.managerReads > MANAGER_READS) {
      this.managerReads = 1;
      this.manager = this.newManager();
    }
    return this.manager;
  }

  /**
   * The memo of a view at a child root: what this view knows, with the accounts the block wrote
   * replaced by their new values (every other account is unchanged by the block). A copy: requests
   * still reading through this view may add to its memo.
   */
  carriedTo(changed: ReadonlyMap<string, Account | undefined>): Map<string, Account | undefined> | undefined {
    if (this.accounts.size + changed.size > CARRIED_ACCOUNTS) return undefined;
    const next = new Map(this.accounts);
    for (const [hex, account] of changed) next.set(hex.slice(2), account);
    return next;
  }

  async getAccount(address: Uint8Array): Promise<Account | undefined> {
    const key = Buffer.from(address.buffer, address.byteOffset, address.byteLength).toString('hex');
    if (this.accounts.has(key)) return this.accounts.get(key);
    const account = await this.reader().getAccount(new Address(address));
    if (this.accounts.size >= ACCOUNT_MEMO) this.accounts.clear();
    this.accounts.set(key, account);
    return account;
  }

  async getCode(address: Uint8Array): Promise<Uint8Array> {
    return this.reader().getCode(new Address(address));
  }

  /** 32-byte slot value (left-padded). */
  async getStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    return padLeft(await this.reader().getStorage(new Address(address), padLeft(slot, 32)), 32);
  }
}

export class StateReader {
  private headView: StateView | undefined;

  constructor(private readonly trieDb: OverlayTrieDB, private readonly common: Common) {}

  at(root: Uint8Array): StateView {
    const hv = this.headView;
    if (hv && Buffer.compare(hv.root, root) === 0) return hv;
    return new StateView(root, () => newStateManager(this.trieDb, this.common, root));
  }

  /**
   * The view at the new head; replaces the previous head view. `changed` (the accounts the block
   * on top of the previous head wrote, by 0x-hex address) lets the new view keep what the previous
   * one had read: admission reads the same senders block after block.
   */
  setHead(root: Uint8Array, changed?: ReadonlyMap<string, Account | undefined>): void {
    const known = changed && this.headView?.carriedTo(changed);
    this.headView = new StateView(root, () => newStateManager(this.trieDb, this.common, root), known);
  }
}
