// Plain value transfers applied to the state directly instead of through @ethereumjs's runTx.
// Most of what a node ingests is "pay this account": no code runs, so the journal, warm sets, call
// frame and message objects of runTx are pure overhead (measured: runTx was most of a transfer's
// ~150 µs of block execution). This path makes the same state changes runTx makes for such a
// transaction, and only when runTx would succeed: anything unusual (a contract or precompile as
// recipient, a system contract, data, an access list, a sender with code, a wrong nonce, too little balance) is
// left to runTx, which also produces the right error. test/exec-value-transfer.test.ts runs the
// same transactions through both paths and compares state roots and receipts.
import { Account, Address, KECCAK256_NULL } from '@ethereumjs/util';
import type { CachedMerkleStateManager } from '../state/state-manager.ts';
import type { PooledTx } from '../tx/pooled-tx.ts';
import { bytesToHex } from '../util/hex.ts';
import { isSystemContract } from './native/system-state.ts';

/** intrinsic gas of a transaction without data, access list or creation: all a transfer uses */
export const TRANSFER_GAS = 21_000n;

/** A transfer's logs bloom: it emits nothing. */
export const EMPTY_BLOOM = new Uint8Array(256);

interface Held {
  address: Address;
  /** undefined: no such account (never created, or removed by EIP-161) */
  account: Account | undefined;
  changed: boolean;
}

/**
 * The direct path of one block. The accounts its transfers read and change are held here and
 * written to the state manager once, at flush(): @ethereumjs's account cache (de)serializes an
 * account on every get and put — five gets and three puts a transfer were most of its ~30 µs of
 * block execution (measured). flush() must run before anything else reads or writes the state
 * (runTx, the end of the block); the executor calls it there.
 */
export class DirectTransfers {
  private readonly held = new Map<string, Held>();
  private readonly coinbaseKey: string;

  /** `coinbase`: the block's producer, who earns the fees */
  constructor(
    private readonly state: CachedMerkleStateManager,
    private readonly coinbase: Address,
  ) {
    this.coinbaseKey = bytesToHex(coinbase.bytes);
  }

  /** `address` as an Address or its bytes: made an Address only when the account is not held yet */
  private async get(key: string, address: Address | Uint8Array): Promise<Held> {
    let h = this.held.get(key);
    if (h === undefined) {
      const a = address instanceof Address ? address : new Address(address);
      this.held.set(key, (h = { address: a, account: await this.state.getAccount(a), changed: false }));
    }
    return h;
  }

  /**
   * Applies `ptx` if it is a plain value transfer runTx would execute successfully; false (nothing
   * changed) when it is not one, and runTx must run it — after flush(). `price` is what each gas
   * unit costs the sender; with base fee 0 all of it is the block producer's tip.
   */
  async apply(ptx: PooledTx, price: bigint): Promise<boolean> {
    // read from the pooled transaction, not its @ethereumjs object: an imported block's transactions
    // have none until something needs it (pooledFromFacts)
    const to = ptx.to;
    if (!ptx.plain || to === undefined || ptx.gasLimit < TRANSFER_GAS) return false;
    if (inPrecompileRange(to.bytes) || isSystemContract(to.bytes)) return false;
    const from = await this.get(ptx.senderHex, ptx.sender);
    const sender = from.account;
    // runTx's checks: nonce, EIP-3607 (no code at the sender; 7702-delegated senders go to runTx),
    // balance for gas limit × fee cap + value (ptx.cost)
    if (sender === undefined || sender.nonce !== ptx.nonce || !isCodeless(sender) || sender.balance < ptx.cost) return false;
    const toKey = bytesToHex(to.bytes);
    const recipient = await this.get(toKey, to);
    if (recipient.account !== undefined && !isCodeless(recipient.account)) return false;

    const value = ptx.value;
    const fee = TRANSFER_GAS * price;
    sender.nonce += 1n;
    sender.balance -= fee + value;
    from.changed = true;
    // the recipient or the coinbase may be the sender itself: the same held account
    this.credit(recipient, value);
    this.credit(await this.get(this.coinbaseKey, this.coinbase), fee);
    return true;
  }

  /**
   * Adds to a balance the way a transaction touches an account: under EIP-161 a touched account that
   * ends up empty (no nonce, balance or code) is removed, or not created (a 0-value transfer to a
   * fresh address, a 0 fee to the coinbase).
   */
  private credit(h: Held, amount: bigint): void {
    const account = h.account ?? new Account();
    account.balance += amount;
    if (!account.isEmpty()) {
      h.account = account;
      h.changed = true;
    } else if (h.account !== undefined) {
      h.account = undefined;
      h.changed = true;
    }
  }

  /** Writes what the transfers changed to the state manager and forgets every held account. */
  async flush(): Promise<void> {
    for (const h of this.held.values()) {
      if (!h.changed) continue;
      if (h.account !== undefined) await this.state.putAccount(h.address, h.account);
      else await this.state.deleteAccount(h.address);
    }
    this.held.clear();
  }
}

function isCodeless(account: Account): boolean {
  const h = account.codeHash;
  for (let i = 0; i < 32; i++) if (h[i] !== KECCAK256_NULL[i]) return false;
  return true;
}

/**
 * Addresses 0x…0000 to 0x…ffff: precompiles live there (0x01–0x11 in Prague, 0x100 from Osaka on)
 * and run even for an empty call, charging gas; such a recipient goes to runTx.
 */
function inPrecompileRange(address: Uint8Array): boolean {
  for (let i = 0; i < 18; i++) if (address[i] !== 0) return false;
  return true;
}
