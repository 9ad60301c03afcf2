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

export class StateView {
  /** Accounts read at this root: state under a root never changes, so hot reads skip the trie and RLP. */
  private readonly accounts: Map<string, Account | undefined>;

  constructor(readonly root: Uint8Array, readonly manager: CachedMerkleStateManager, known?: Map<string, Account | undefined>) {
    this.accounts = known ?? new Map();
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
    const account = await this.manager.getAccount(new Address(address));
    if (this.accounts.size >= ACCOUNT_MEMO) this.accounts.clear();
    this.accounts.set(key, account);
    return account;
  }

  async getCode(address: Uint8Array): Promise<Uint8Array> {
    return this.manager.getCode(new Address(address));
  }

  /** 32-byte slot value (left-padded). */
  async getStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    return padLeft(await this.manager.getStorage(new Address(address), padLeft(slot, 32)), 32);
  }
}

export class StateReader {
  private headView: StateView | undefined;

  constructor(private readonly trieDb: OverlayTrieDB, private readonly common: Common) {}

  at(root: Uint8Array): StateView {
    const hv = this.headView;
    if (hv && Buffer.compare(hv.root, root) === 0) return hv;
    return new StateView(root, newStateManager(this.trieDb, this.common, root));
  }

  /**
   * The view at the new head; replaces the previous head view. `changed` (the accounts the block
   * on top of the previous head wrote, by 0x-hex address) lets the new view keep what the previous
   * one had read: admission reads the same senders block after block.
   */
  setHead(root: Uint8Array, changed?: ReadonlyMap<string, Account | undefined>): void {
    const known = changed && this.headView?.carriedTo(changed);
    this.headView = new StateView(root, newStateManager(this.trieDb, this.common, root), known);
  }
}
