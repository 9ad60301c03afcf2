// Quantities on the wire are 0x-hex strings without leading zeros ("0x0", "0x1b4"); in code they
// are bigints. These two helpers convert and refuse anything that is not a quantity.
import { parseQuantity, quantity } from '../util/hex.ts';
import type { Quantity } from '../../generated/types.ts';

const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const MAX_UINT256 = (1n << 256n) - 1n;

/** 300n → "0x12c". Accepts a non-negative safe integer number or a bigint up to 2^256-1. */
export function toQuantity(value: bigint | number): Quantity {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new RangeError(`toQuantity: ${value} is not a safe integer (pass a bigint)`);
  const big = BigInt(value);
  if (big < 0n || big > MAX_UINT256) throw new RangeError(`toQuantity: ${value} is outside 0 … 2^256-1`);
  return quantity(big);
}

/** "0x12c" → 300n. Throws on anything but 0x-prefixed hex of 1 to 64 digits. */
export function fromQuantity(q: string): bigint {
  if (typeof q !== 'string' || !QUANTITY.test(q)) throw new TypeError(`fromQuantity: ${JSON.stringify(q)} is not a 0x-hex quantity`);
  return parseQuantity(q);
}
