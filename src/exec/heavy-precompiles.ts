// Precompiles whose work grows with their input, run on a thread when a call is expensive. One
// precompile call is one synchronous function, which neither the execution watch's yields nor its
// deadline can interrupt: measured in-process, bn254 pairing (0x08) at 1.3–2.4 Mgas/s held the
// event loop 10–23 s for 30M gas, BLS12-381 pairing (0x0f) 1.9–3.3 Mgas/s, G1/G2 MSM (0x0c, 0x0e)
// ~1.3 Mgas/s, and modexp (0x05) with a small modulus is quadratic in its exponent's length (each
// bit shifts the whole exponent): 16 KiB 0.7M gas 233 ms, 64 KiB 2.8M gas 2.7 s, so minutes at
// 30M gas. They are pure functions of (input, gas limit), so a call above THREAD_ABOVE_GAS runs
// @ethereumjs's own implementation on the EVM's precompile thread (precompile-thread.ts) while the
// event loop serves requests; past the EVM's deadline or budget the thread is ended and the call
// halts with EXECUTION_TIMEOUT. Cheaper calls run inline, as before: the hop (~50–110 µs a call,
// measured) is nothing against the work above the threshold, but would be felt below it.
import type { Common } from '@ethereumjs/common';
import { EVMError, getActivePrecompiles, type CustomPrecompile, type ExecResult, type PrecompileFunc, type PrecompileInput } from '@ethereumjs/evm';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../util/module-worker.ts';
import { EXECUTION_TIMEOUT, type ExecutionWatch } from './execution-watch.ts';
import { READY, type PrecompileAnswer, type PrecompileRequest } from './precompile-protocol.ts';

/** modexp, bn254 pairing, BLS12-381 G1 MSM, G2 MSM and pairing (unprefixed, as @ethereumjs keys them) */
const HEAVY = ['05', '08', '0c', '0e', '0f'].map((a) => a.padStart(40, '0'));

/** Calls that may cost more go to the thread: ~40–75 ms of work at the slowest rates above. */
export const THREAD_ABOVE_GAS = 100_000n;

/** Why a call in progress ended when its EVM stopped the thread (the node is closing). */
const CLOSED = new Error('precompile thread closed');

function timedOut(gasLimit: bigint): ExecResult {
  return { returnValue: new Uint8Array(0), executionGasUsed: gasLimit, exceptionError: new EVMError(EXECUTION_TIMEOUT as never) };
}

interface Thread {
  worker: Worker;
  /** settled by the thread's READY message, or rejected when it stops before */
  ready: Promise<true>;
  fail(e: Error): void;
}

/** One EVM's precompile thread, started by the first call that needs it. */
export class PrecompileThread {
  private thread: Thread | undefined;
  private closed = false;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(a: PrecompileAnswer): void; reject(e: Error): void }>();

  /**
   * The precompile at `address` on the thread, as @ethereumjs would run it with `opts`; halts with
   * EXECUTION_TIMEOUT when `watch` reports its deadline passed first. A thread that stops by
   * itself leaves the call to `inline`, so a result never depends on where it ran.
   */
  async run(address: string, opts: PrecompileInput, inline: PrecompileFunc, watch: ExecutionWatch | undefined): Promise<ExecResult> {
    const thread = this.started();
    const wait = <T>(p: Promise<T>) => (watch ? watch.waitFor(p) : p);
    let a: PrecompileAnswer | undefined;
    try {
      // a thread still loading its modules (~1.1 s from the sources, ~70 ms from the bundle,
      // measured) is left to load: ending it would only make the next call wait for another
      if ((await wait(thread.ready)) === undefined) return timedOut(opts.gasLimit);
      // a copy of the input's bytes alone, moved: a view would clone all of the buffer behind it
      const data = opts.data.slice();
      const request: PrecompileRequest = { id: this.nextId++, address, data, gasLimit: opts.gasLimit, hardfork: opts.common.hardfork(), eips: opts.common.eips() };
      const answer = new Promise<PrecompileAnswer>((resolve, reject) => this.pending.set(request.id, { resolve, reject }));
      thread.worker.postMessage(request, [data.buffer]);
      a = await wait(answer);
    } catch (e) {
      return e === CLOSED ? timedOut(opts.gasLimit) : inline(opts);
    }
    if (a === undefined) {
      // ending the thread is the only way to stop a synchronous call in progress; its successor
      // starts loading at once, so that the next call finds it ready sooner
      await this.end();
      if (!this.closed) this.started();
      return timedOut(opts.gasLimit);
    }
    return { returnValue: a.returnValue, executionGasUsed: a.gasUsed, ...(a.error === undefined ? {} : { exceptionError: new EVMError(a.error as never) }) };
  }

  private started(): Thread {
    if (this.thread) return this.thread;
    const worker = startModuleWorker(new URL('./precompile-thread.ts', import.meta.url));
    worker.unref(); // an idle thread never keeps the process alive
    let loaded!: (v: true) => void;
    let fail!: (e: Error) => void;
    const ready = new Promise<true>((resolve, reject) => ((loaded = resolve), (fail = reject)));
    ready.catch(() => {}); // a thread that stops unused is no failure of anyone's
    const thread: Thread = { worker, ready, fail };
    worker.on('message', (a: PrecompileAnswer) => {
      if (a.id === READY) return loaded(true);
      this.pending.get(a.id)?.resolve(a);
      this.pending.delete(a.id);
    });
    const lost = (why: string) => {
      if (this.thread === thread) this.abandon(new Error(`precompile thread stopped: ${why}`));
    };
    worker.on('error', (e) => lost(e.message));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    return (this.thread = thread);
  }

  /** Forgets the thread, failing what waits for it with `why`; returns its worker. */
  private abandon(why: Error): Worker | undefined {
    const thread = this.thread;
    this.thread = undefined;
    thread?.fail(why);
    for (const p of this.pending.values()) p.reject(why);
    this.pending.clear();
    return thread?.worker;
  }

  private async end(): Promise<void> {
    await this.abandon(CLOSED)?.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.end();
  }
}

interface WithThread {
  precompileThread: PrecompileThread;
  executionWatch?: ExecutionWatch;
}

/**
 * `common`'s active heavy precompiles, each as a custom precompile (EVMOpts.customPrecompiles) of
 * an EVM carrying a `precompileThread`: a call whose gas may pass THREAD_ABOVE_GAS goes to it.
 */
export function heavyPrecompiles(common: Common): CustomPrecompile[] {
  const active = getActivePrecompiles(common);
  return HEAVY.flatMap((address) => {
    const inline = active.get(address);
    return inline ? [{ address: `0x${address}` as const, function: offloaded(address, inline) }] : [];
  });
}

function offloaded(address: string, inline: PrecompileFunc): PrecompileFunc {
  return async (opts) => {
    if (opts.gasLimit <= THREAD_ABOVE_GAS) return inline(opts);
    // The precompile's own gas rule and input checks, by the precompile itself with at most
    // THREAD_ABOVE_GAS: each checks its gas before any work, so a call above it returns out of gas
    // at once; one within it (or failing a check) is answered here. Every failure costs the whole
    // limit, as inline.
    const probe = await inline({ ...opts, gasLimit: THREAD_ABOVE_GAS });
    if (probe.exceptionError === undefined) return probe;
    if (probe.exceptionError.error !== EVMError.errorMessages.OUT_OF_GAS) return { ...probe, executionGasUsed: opts.gasLimit };
    const evm = opts._EVM as unknown as WithThread;
    return evm.precompileThread.run(address, opts, inline, evm.executionWatch);
  };
}
