// Plain value transfers applied to the state directly instead of through @ethereumjs's runTx.
// Most of what a node ingests is "pay this account": no code runs, so the journal, warm sets, call
// frame and message objects of runTx are pure overhead (measured: runTx was most of a transfer's
// ~150 µs of block execution). This path makes the same state changes runTx makes for such a
// transaction, and only when runTx would succeed: anything unusual (a contract or precompile as
// recipient, data, an access list, a sender with code, a wrong nonce, too little balance) is
// left to runTx, which also produces the right error. test/exec-value-transfer.test.ts runs the
// same transactions through both paths and compares state roots and receipts.
import { Account, type Address, KECCAK256_NULL } from '@ethereumjs/util';
import type { CachedMerkleStateManager } from '../state/state-manager.ts';
import type { PooledTx } from '../txpool/pooled-tx.ts';

/** intrinsic gas of a transaction without data, access list or creation: all a transfer uses */
export const TRANSFER_GAS = 21_000n;

/** A transfer's logs bloom: it emits nothing. */
export const EMPTY_BLOOM = new Uint8Array(256);

/**
 * Applies `ptx` if it is a plain value transfer runTx would execute successfully; false (state
 * untouched) when it is not one, and runTx must run it. `price` is what each gas unit costs the
 * sender; with base fee 0 all of it is the block producer's tip.
 */
export async function applyValueTransfer(state: CachedMerkleStateManager, ptx: PooledTx, coinbase: Address, price: bigint): Promise<boolean> {
  const tx = ptx.tx;
  if (tx.type > 2 || tx.to === undefined || tx.data.length !== 0 || tx.gasLimit < TRANSFER_GAS) return false;
  if (tx.type !== 0 && (tx as unknown as { accessList: unknown[] }).accessList.length !== 0) return false;
  const to = tx.to;
  if (inPrecompileRange(to.bytes)) return false;
  const senderAddress = tx.getSenderAddress();
  const sender = await state.getAccount(senderAddress);
  // runTx's checks: nonce, EIP-3607 (no code at the sender; 7702-delegated senders go to runTx),
  // balance for gas limit × fee cap + value (ptx.cost)
  if (sender === undefined || sender.nonce !== tx.nonce || !isCodeless(sender) || sender.balance < ptx.cost) return false;
  const recipient = await state.getAccount(to);
  if (recipient !== undefined && !isCodeless(recipient)) return false;

  const value = tx.value;
  const fee = TRANSFER_GAS * price;
  sender.nonce += 1n;
  sender.balance -= fee + value;
  await state.putAccount(senderAddress, sender);
  // read again after the sender's write: the recipient or the coinbase may be the sender itself
  await credit(state, to, value);
  await credit(state, coinbase, fee);
  return true;
}

/**
 * Adds to a balance the way a transaction touches an account: under EIP-161 a touched account that
 * ends up empty (no nonce, balance or code) is removed, or not created (a 0-value transfer to a
 * fresh address, a 0 fee to the coinbase).
 */
async function credit(state: CachedMerkleStateManager, address: Address, amount: bigint): Promise<void> {
  const existing = await state.getAccount(address);
  const account = existing ?? new Account();
  account.balance += amount;
  if (!account.isEmpty()) await state.putAccount(address, account);
  else if (existing !== undefined) await state.deleteAccount(address);
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
