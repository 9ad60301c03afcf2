// State overrides (geth's third eth_call parameter, eth_simulateV1's stateOverrides): accounts a
// call sees with another balance, nonce, code or storage, and precompiles moved to other addresses.
// They are written into the call's own state checkpoint, so the call's revert removes them with
// everything else it did; the moved precompiles are put back by the function `apply` returns.
import { Account, Address } from '@ethereumjs/util';
import type { EVM } from '@ethereumjs/evm';
import type { CachedMerkleStateManager } from '../state/state-manager.ts';

export interface AccountOverride {
  address: Uint8Array;
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** the whole storage: slots not listed read zero */
  state?: readonly (readonly [Uint8Array, Uint8Array])[];
  /** slots to set, the others kept */
  stateDiff?: readonly (readonly [Uint8Array, Uint8Array])[];
  /** where this address's precompile moves to (before `code` is set here) */
  movePrecompileTo?: Uint8Array;
}

/** Checked by the API (src/api/state-override-param.ts): one entry per address, never both state and stateDiff. */
export type StateOverrides = readonly AccountOverride[];

const unprefixed = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

/**
 * Writes the overrides into `state` (inside the caller's checkpoint) and moves the precompiles in
 * `evm`'s table, as geth's StateOverride.Apply: an overridden precompile's address stops being a
 * precompile, so code given to it runs. Returns the function that puts the precompile table back.
 */
export async function applyStateOverrides(overrides: StateOverrides, state: CachedMerkleStateManager, evm: EVM): Promise<() => void> {
  const precompiles = evm.precompiles;
  const saved = new Map(precompiles);
  const restore = () => {
    precompiles.clear();
    for (const [address, fn] of saved) precompiles.set(address, fn);
  };
  try {
    for (const o of overrides) {
      const key = unprefixed(o.address);
      const precompile = saved.get(key);
      if (precompile !== undefined) {
        precompiles.delete(key);
        if (o.movePrecompileTo) precompiles.set(unprefixed(o.movePrecompileTo), precompile);
      }
      const address = new Address(o.address);
      if (o.balance !== undefined || o.nonce !== undefined) {
        const account = (await state.getAccount(address)) ?? new Account();
        if (o.balance !== undefined) account.balance = o.balance;
        if (o.nonce !== undefined) account.nonce = o.nonce;
        await state.putAccount(address, account);
      }
      if (o.code !== undefined) await state.putCode(address, o.code);
      if (o.state !== undefined || o.stateDiff !== undefined) {
        // putStorage needs the account to exist
        if ((await state.getAccount(address)) === undefined) await state.putAccount(address, new Account());
        if (o.state !== undefined) await state.clearStorage(address);
        for (const [slot, value] of o.state ?? o.stateDiff!) await state.putStorage(address, slot, value);
      }
    }
  } catch (e) {
    restore();
    throw e;
  }
  return restore;
}
