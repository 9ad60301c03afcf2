// The StateOverrides parameter (eth_call / eth_estimateGas's third, eth_simulateV1's per block) →
// the core's StateOverrides, with geth's rules (internal/ethapi/override): `state` and `stateDiff`
// exclude each other, and only a precompile moves, to an address nothing else overrides.
import type { AccountOverride, StateOverrides } from '../exec/state-override.ts';
import type { StateOverrides as StateOverridesParam } from '../../generated/types.ts';
import { hexToBytes } from '../util/hex.ts';
import { INVALID_PARAMS, RpcError } from '../codec/jsonrpc-errors.ts';
import { invalidParams } from './errors.ts';

const MAX_NONCE = 2n ** 64n - 1n;

/** The codes of the two precompile-move mistakes; eth_simulateV1 gives them execution-apis' -38022 / -38023. */
export interface MoveErrorCodes {
  movedToItself: number;
  movedTwice: number;
}

/**
 * Reads `param` (named `name` in every error), given the addresses of the precompiles (unprefixed
 * lower-case hex, as CallRunner.precompileAddresses lists them). Undefined when nothing is overridden.
 */
export function toStateOverrides(
  param: StateOverridesParam | null | undefined,
  precompiles: readonly string[],
  name = 'stateOverrides',
  codes: MoveErrorCodes = { movedToItself: INVALID_PARAMS, movedTwice: INVALID_PARAMS },
): StateOverrides | undefined {
  if (param == null) return undefined;
  const isPrecompile = new Set(precompiles);
  const fail = (message: string, code = INVALID_PARAMS): never => {
    throw code === INVALID_PARAMS ? invalidParams(`${name}: ${message}`) : new RpcError(code, `${name}: ${message}`);
  };
  const seen = new Set<string>();
  const destinations = new Set<string>();
  const out: AccountOverride[] = [];
  for (const [key, o] of Object.entries(param)) {
    const address = key.toLowerCase();
    if (seen.has(address)) fail(`account ${address} is listed twice`);
    seen.add(address);
    if (o.state != null && o.stateDiff != null) fail(`account ${address} has both 'state' and 'stateDiff'`);
    const nonce = o.nonce != null ? BigInt(o.nonce) : undefined;
    if (nonce !== undefined && nonce > MAX_NONCE) fail(`account ${address}: nonce ${nonce} is above 2^64 - 1`);
    const move = o.movePrecompileToAddress?.toLowerCase();
    if (move != null) {
      if (!isPrecompile.has(address.slice(2))) fail(`account ${address} is not a precompile`);
      if (move === address) fail(`account ${address}: movePrecompileToAddress references itself`, codes.movedToItself);
      if (destinations.has(move)) fail(`account ${move} is the destination of two precompile moves`, codes.movedTwice);
      destinations.add(move);
    }
    const slots = (storage: Record<string, string> | null | undefined) =>
      storage == null ? undefined : Object.entries(storage).map(([slot, value]) => [hexToBytes(slot), hexToBytes(value)] as const);
    out.push({
      address: hexToBytes(address),
      balance: o.balance != null ? BigInt(o.balance) : undefined,
      nonce,
      code: o.code != null ? hexToBytes(o.code) : undefined,
      state: slots(o.state),
      stateDiff: slots(o.stateDiff),
      movePrecompileTo: move != null ? hexToBytes(move) : undefined,
    });
  }
  // geth: a moved precompile's new address must not be overridden itself
  for (const move of destinations) if (seen.has(move)) fail(`account ${move} is already overridden`, codes.movedTwice);
  return out.length > 0 ? out : undefined;
}
