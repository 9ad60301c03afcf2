/** a module the chain refuses, with the reason (shown to the user) */
export class WasmModuleError extends Error {}
