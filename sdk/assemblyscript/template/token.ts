// A token as a Venachain wasm contract in AssemblyScript: the deployer gets the whole supply;
// balances are kept by address ("0x…" lowercase) in the contract's state.
//
//   npm run build:contract -- sdk/assemblyscript/template/token.ts --out build
import { Storage, StorageValue, caller, normalizeAddress, require } from "@chain-node/wasm-contract";

const INITIAL_SUPPLY: u64 = 1_000_000;

const balances = new Storage<string, u64>("balance:");
const supply = new StorageValue<u64>("totalSupply");

/** Logged by every move of tokens: topic keccak256("Transfer"), data RLP([from, to, amount]). */
// @ts-ignore: decorator
@event declare function Transfer(from: string, to: string, amount: u64): void;

/** Runs once, at the deploy. */
export function init(): void {
  const owner = caller();
  supply.set(INITIAL_SUPPLY);
  balances.set(owner, INITIAL_SUPPLY);
  Transfer("0x0000000000000000000000000000000000000000", owner, INITIAL_SUPPLY);
}

// @ts-ignore: decorator
@constant export function name(): string {
  return "Template Token";
}

// @ts-ignore: decorator
@constant export function symbol(): string {
  return "TTK";
}

// @ts-ignore: decorator
@constant export function totalSupply(): u64 {
  return supply.get(0);
}

// @ts-ignore: decorator
@constant export function balanceOf(owner: string): u64 {
  return balances.get(normalizeAddress(owner), 0);
}

/** Moves `amount` from the caller to `to`; a balance too low fails the call (status 0, nothing changed). */
export function transfer(to: string, amount: u64): bool {
  const from = caller();
  const have = balances.get(from, 0);
  require(have >= amount, "transfer: balance too low");
  const dest = normalizeAddress(to);
  balances.set(from, have - amount);
  balances.set(dest, balances.get(dest, 0) + amount);
  Transfer(from, dest, amount);
  return true;
}
