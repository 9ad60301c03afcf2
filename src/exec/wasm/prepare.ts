// PLACEHOLDER until wasm-prep's prepare.ts lands (same names and signature): validates the module
// with V8 only and adds no metering, so instruction gas is not charged and an endless loop does
// not end. The real module replaces this file when wasm-prep is merged.
export const GAS_GLOBAL = '__gas_left';
export const TRAP_GLOBAL = '__trap';

export interface PrepareLimits {
  maxMemoryPages: number;
  maxCallDepth: number;
}

/** A module the chain refuses, with the reason (shown to the user). */
export class WasmModuleError extends Error {}

export function prepareModule(wasm: Uint8Array, limits: PrepareLimits): Uint8Array {
  void limits;
  if (!WebAssembly.validate(wasm)) throw new WasmModuleError('not a valid wasm module');
  return wasm;
}
