// EIP-3860 bounds the data of a contract-creation transaction at 48 KiB of initcode. A wasm deploy's
// data is not initcode but the contract itself (RLP([txType, module, ABI])), which Venachain bounds
// only by its 512 KiB code limit (the pool's 128 KiB a transaction is the bound in practice). So
// transactions are decoded with @ethereumjs's check off (DECODE_OPTIONS) and checkInitCodeSize
// applies it to everything but wasm deploys; EngineEVM does the same for creations it runs.
import type { TypedTransaction } from '@ethereumjs/tx';
import { isWasmCode } from '../codec/wasm-abi.ts';

export const DECODE_OPTIONS = { allowUnlimitedInitCodeSize: true } as const;

/** Throws @ethereumjs's own error for an EVM creation whose data is over EIP-3860's limit. */
export function checkInitCodeSize(tx: TypedTransaction): void {
  if (tx.to !== undefined || !tx.common.isActivatedEIP(3860)) return;
  const max = Number(tx.common.param('maxInitCodeSize'));
  if (tx.data.length > max && !isWasmCode(tx.data)) throw new Error(`the initcode size of this transaction is too large: it is ${tx.data.length} while the max is ${max}`);
}
