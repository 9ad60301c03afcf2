// eth_/chain_createAccessList by geth's algorithm (internal/ethapi AccessList): run the message as
// a transaction declaring the list found so far, collect what it accessed, and repeat until the
// list stops changing (declaring a slot can change the path a contract takes, as gas-dependent code
// does). Sender, recipient (or the created contract) and precompiles are warm in any transaction:
// they are left out unless a slot of theirs was accessed, as geth does.
import type { AccessListBytes } from '@ethereumjs/tx';
import { gasAfterRefund, type AccessMap, type AccessTrace, type CallContext, type CallRequest, type CallRunner } from '../exec/call.ts';
import type { AccessListEntry } from '../../generated/types.ts';
import { bytesToHex, hexToBytes } from '../util/hex.ts';
import { serverError } from './errors.ts';

const unprefixed = (hex: string) => hex.slice(2).toLowerCase();

/** The caller's access list (the call object's `accessList`, 32-byte keys by its schema) as the journal keys it. */
export function declaredAccessList(list: AccessListEntry[] | null | undefined): AccessMap {
  const out: AccessMap = new Map();
  for (const entry of list ?? []) {
    const slots = out.get(unprefixed(entry.address)) ?? new Set<string>();
    for (const key of entry.storageKeys) slots.add(unprefixed(key));
    out.set(unprefixed(entry.address), slots);
  }
  return out;
}

/** What was accessed, less the addresses every transaction has warm anyway when none of their slots were. */
function withoutAlwaysWarm(accessed: AccessMap, alwaysWarm: ReadonlySet<string>): AccessMap {
  const out: AccessMap = new Map();
  for (const [address, slots] of accessed) if (slots.size > 0 || !alwaysWarm.has(address)) out.set(address, slots);
  return out;
}

function sameList(a: AccessMap, b: AccessMap): boolean {
  if (a.size !== b.size) return false;
  for (const [address, slots] of a) {
    const other = b.get(address);
    if (!other || other.size !== slots.size) return false;
    for (const slot of slots) if (!other.has(slot)) return false;
  }
  return true;
}

const sorted = (values: Iterable<string>) => [...values].sort();

/** In the answer: addresses and their slots in ascending order, so the same call always lists the same way. */
export function accessListEntries(list: AccessMap): AccessListEntry[] {
  return sorted(list.keys()).map((address) => ({ address: `0x${address}`, storageKeys: sorted(list.get(address)!).map((slot) => `0x${slot}`) }));
}

export function accessListBytes(list: AccessMap): AccessListBytes {
  return sorted(list.keys()).map((address) => [hexToBytes(address), sorted(list.get(address)!).map(hexToBytes)]);
}

export interface AccessListFound {
  list: AccessMap;
  /** gas the transaction carrying the list would use (intrinsic with the list, execution, refund, EIP-7623's floor) */
  gasUsed: bigint;
  trace: AccessTrace;
}

/** The stable access list of the message, run with `gasLimit` gas (intrinsic gas included), by `deadline`. */
export async function findAccessList(calls: CallRunner, req: CallRequest, ctx: CallContext, gasLimit: bigint, declared: AccessMap, deadline: number): Promise<AccessListFound> {
  const alwaysWarm = new Set([...calls.precompileAddresses(), unprefixed(bytesToHex(req.from ?? new Uint8Array(20)))]);
  if (req.to) alwaysWarm.add(unprefixed(bytesToHex(req.to)));
  let list = withoutAlwaysWarm(declared, alwaysWarm);
  for (;;) {
    const { intrinsic, minimum } = calls.txGas(req, accessListBytes(list));
    if (gasLimit < minimum) throw serverError(`intrinsic gas too low: have ${gasLimit}, want ${minimum}`);
    const trace = await calls.traceAccesses(req, ctx, gasLimit - intrinsic, list, deadline);
    if (trace.created) alwaysWarm.add(unprefixed(bytesToHex(trace.created)));
    const found = withoutAlwaysWarm(trace.accessed, alwaysWarm);
    if (sameList(found, list)) {
      const used = gasAfterRefund(intrinsic + trace.outcome.executionGasUsed, trace.gasRefund);
      return { list, gasUsed: used > minimum ? used : minimum, trace };
    }
    list = found;
  }
}
