// Decodes Solidity revert data: Error(string) and Panic(uint256).
import { bytesToBigInt } from '../util/hex.ts';

const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';

export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const selector = Buffer.from(data.subarray(0, 4)).toString('hex');
  if (selector === ERROR_SELECTOR && data.length >= 68) {
    const len = Number(bytesToBigInt(data.subarray(36, 68)));
    if (68 + len > data.length) return undefined;
    return Buffer.from(data.subarray(68, 68 + len)).toString('utf8');
  }
  if (selector === PANIC_SELECTOR && data.length >= 36) {
    return `panic: 0x${bytesToBigInt(data.subarray(4, 36)).toString(16)}`;
  }
  return undefined;
}
