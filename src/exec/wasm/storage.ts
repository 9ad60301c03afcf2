// A wasm contract's state: arbitrary byte keys to byte values (setState/getState), kept in the
// contract account's ordinary storage exactly as Solidity keeps a `mapping(bytes => bytes)` at
// slot 0. Venachain keeps them outside the account trie (its StateDB maps address+key to a value
// hash); here they are slots like any contract's, so the state root covers them and
// eth_getStorageAt / eth_getProof read them with the rule every Solidity tool knows:
//   the value's slot  p = keccak256(key ‖ uint256(0))
//   shorter than 32 bytes: slot p = data left-aligned, last byte 2·length
//   32 bytes or more:      slot p = 2·length + 1, data in slots keccak256(p) + i
//   empty:                 slot p = 0 (no value)
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Address } from '@ethereumjs/util';
import type { StateManagerInterface } from '@ethereumjs/common';
import { bytesToBigInt, concatBytes, padLeft } from '../../util/hex.ts';
import { beBytes } from '../../codec/venachain-call.ts';

/** The slot holding the value of `key` (or its length). */
export function valueSlot(key: Uint8Array): Uint8Array {
  return keccak_256(concatBytes(key, new Uint8Array(32)));
}

function dataSlot(head: Uint8Array, i: number): Uint8Array {
  return beBytes(bytesToBigInt(keccak_256(head)) + BigInt(i), 32);
}

type Storage = Pick<StateManagerInterface, 'getStorage' | 'putStorage'>;

async function slot(sm: Storage, address: Address, at: Uint8Array): Promise<Uint8Array> {
  return padLeft(await sm.getStorage(address, at), 32);
}

/** The long value's length from its head slot, or undefined when the value is short (or empty). */
function longLength(head: Uint8Array): number | undefined {
  return (head[31]! & 1) === 1 ? Number((bytesToBigInt(head) - 1n) / 2n) : undefined;
}

/** The value of `key` (empty when never set). */
export async function readValue(sm: Storage, address: Address, key: Uint8Array): Promise<Uint8Array> {
  const p = valueSlot(key);
  const head = await slot(sm, address, p);
  const long = longLength(head);
  if (long === undefined) return head.slice(0, head[31]! / 2);
  const out = new Uint8Array(long);
  for (let i = 0; i * 32 < long; i++) out.set((await slot(sm, address, dataSlot(p, i))).subarray(0, Math.min(32, long - i * 32)), i * 32);
  return out;
}

/** Sets the value of `key`; the slots a longer old value used beyond the new one are cleared. */
export async function writeValue(sm: Storage, address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
  const p = valueSlot(key);
  const oldLong = longLength(await slot(sm, address, p)) ?? 0;
  const zero = new Uint8Array(32);
  let used = 0;
  if (value.length < 32) {
    const head = new Uint8Array(32);
    head.set(value);
    head[31] = value.length * 2;
    await sm.putStorage(address, p, value.length === 0 ? zero : head);
  } else {
    await sm.putStorage(address, p, beBytes(BigInt(value.length) * 2n + 1n, 32));
    used = Math.ceil(value.length / 32);
    for (let i = 0; i < used; i++) {
      const chunk = new Uint8Array(32);
      chunk.set(value.subarray(i * 32, i * 32 + 32));
      await sm.putStorage(address, dataSlot(p, i), chunk);
    }
  }
  for (let i = used; i < Math.ceil(oldLong / 32); i++) await sm.putStorage(address, dataSlot(p, i), zero);
}
