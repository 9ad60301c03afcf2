// The failures of read-only execution (src/exec/call.ts, src/exec/simulate.ts), in a module of their
// own so that both can import them without importing each other.

export class CallError extends Error {}

/** The call's deadline (--rpc.evmtimeout) passed before it finished; the API names the timeout. */
export class CallTimeout extends CallError {}

/** A tracer's output passed its cap; execution was halted (the message says which cap). */
export class TraceTooLarge extends CallError {}
