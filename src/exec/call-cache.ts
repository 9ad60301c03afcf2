// Results of read-only calls, keyed by everything a call's outcome depends on: the state root, the
// block context and the message. A call is a pure function of those, so an entry never goes stale.
// Only what runs on @ethereumjs is kept: the view interpreter (A17) answers a view in about the time
// its key takes to build, so the messages @ethereumjs has to run are the ones worth remembering.
import type { CallOutcome, CallRequest, CallContext } from './call.ts';

const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex') : '');

export function callKey(req: CallRequest, ctx: CallContext, gasLimit: bigint): string {
  return `${hex(ctx.stateRoot)}|${ctx.number}|${ctx.timestamp}|${hex(ctx.coinbase)}|${ctx.gasLimit}|${hex(req.from)}|${hex(req.to)}|${hex(req.data)}|${req.value ?? 0n}|${req.gasPrice ?? 0n}|${gasLimit}`;
}

/** A small LRU (Map keeps insertion order; a hit moves the entry to the end). */
export class CallCache {
  private readonly entries = new Map<string, CallOutcome>();

  constructor(private readonly capacity = 4096) {}

  get(key: string): CallOutcome | undefined {
    const v = this.entries.get(key);
    if (v !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }

  set(key: string, value: CallOutcome): void {
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
