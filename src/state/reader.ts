// Read-only state at any block's state root (archive). The view of the head is kept and reused
// until the head moves, so repeated reads of hot accounts hit its caches.
import { Address, type Account } from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';
import type { OverlayTrieDB } from './trie-db.ts';
import { newStateManager, type CachedMerkleStateManager } from './state-manager.ts';
import { padLeft } from '../util/hex.ts';

/** Accounts a view remembers; past this the memo starts over (a view lives until the head moves). */
const ACCOUNT_MEMO = 65_536;

export class StateView {
  /** Accounts read at this root: state under a root never changes, so hot reads skip the trie and RLP. */
  private readonly accounts = new Map<string, Account | undefined>();

  constructor(readonly root: Uint8Array, readonly manager: CachedMerkleStateManager) {}

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

  /** The view at the new head; replaces the previous head view. */
  setHead(root: Uint8Array): void {
    this.headView = new StateView(root, newStateManager(this.trieDb, this.common, root));
  }
}
