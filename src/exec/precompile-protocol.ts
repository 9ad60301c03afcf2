// Messages between an EVM and its precompile thread (heavy-precompiles.ts, precompile-thread.ts):
// one precompile call each way. The thread builds its EVM from the rule set named here, so its
// precompile reads the same parameters (gas prices, activated EIPs) as the calling EVM's.

/** The id of the thread's first message, sent once its modules are loaded (no request has it). */
export const READY = 0;

export interface PrecompileRequest {
  id: number;
  /** unprefixed lowercase hex, 40 digits, as @ethereumjs keys its precompiles */
  address: string;
  data: Uint8Array;
  gasLimit: bigint;
  hardfork: string;
  eips: number[];
}

/** `error`: the EVMError's message when the call failed (its gas is then the whole limit, as inline) */
export interface PrecompileAnswer {
  id: number;
  returnValue: Uint8Array;
  gasUsed: bigint;
  error?: string;
}
