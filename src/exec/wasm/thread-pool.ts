// The wasm threads of this process (./wasm-thread.ts), started when first needed and kept warm.
// A run takes a free thread for itself and gives it back when it ends; a run that meets another
// wasm contract while its own thread is blocked on the main thread (an inner call) takes a second
// one, and concurrent runs (a block's transactions and eth_calls interleave) take separate ones.
// How deep wasm frames may nest is the engine's rule, not the pool's: the pool starts what is asked.
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../util/module-worker.ts';
import type { ThreadSetup } from './wasm-thread.ts';
import type { HostAnswer, RunRequest, ThreadMessage } from './thread-protocol.ts';
import type { CompiledContract } from './module-cache.ts';

/** Free threads kept warm; more are ended when given back (each is ~10–15 MB; ~40 ms to start from the bundle, ~0.5 s from the sources). */
const KEEP_IDLE = 4;
/** Modules a thread keeps (each was posted to it once; the compiled code itself is shared). */
const MODULES_PER_THREAD = 128;

export class WasmThread {
  private readonly worker: Worker;
  private readonly replies: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  /** module hashes this thread holds, oldest first */
  private readonly modules = new Set<string>();
  /** messages not taken yet, and the taker waiting for the next one */
  private readonly inbox: ThreadMessage[] = [];
  private waiting: ((m: ThreadMessage) => void) | undefined;
  private stopped: Error | undefined;
  private onStop: ((e: Error) => void) | undefined;
  readonly ready: Promise<void>;

  constructor() {
    this.worker = startModuleWorker(new URL('./wasm-thread.ts', import.meta.url));
    const { port1, port2 } = new MessageChannel();
    this.replies = port1;
    const setup: ThreadSetup = { type: 'setup', replies: port2, signal: this.flag.buffer as SharedArrayBuffer };
    this.worker.postMessage(setup, [port2]);
    this.worker.on('message', (m: ThreadMessage) => {
      const take = this.waiting;
      this.waiting = undefined;
      if (take) take(m);
      else this.inbox.push(m);
    });
    const lost = (why: string) => {
      this.stopped ??= new Error(`wasm thread stopped: ${why}`);
      this.onStop?.(this.stopped);
    };
    this.worker.on('error', (e) => lost(e.message));
    this.worker.on('exit', (code) => lost(`exit code ${code}`));
    this.ready = this.next().then((m) => {
      if (m.type !== 'ready') throw new Error(`wasm thread: ${m.type} before ready`);
    });
  }

  /** The thread's next message; rejects when the thread stops first. */
  next(): Promise<ThreadMessage> {
    const queued = this.inbox.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.stopped) return Promise.reject(this.stopped);
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.onStop = reject;
    });
  }

  /** Starts a run of `compiled` (posting the module when this thread does not hold it yet). */
  start(request: Omit<RunRequest, 'compiled' | 'forget'>, compiled: CompiledContract): void {
    const run: RunRequest = { ...request };
    if (!this.modules.has(request.hash)) {
      run.compiled = { module: compiled.module, sigs: compiled.sigs };
      this.modules.add(request.hash);
      if (this.modules.size > MODULES_PER_THREAD) {
        const oldest = this.modules.values().next().value!;
        this.modules.delete(oldest);
        run.forget = [oldest];
      }
    }
    this.worker.postMessage(run);
  }

  /** Answers the request the thread is blocked on and wakes it. */
  reply(value: unknown): void {
    const answer: HostAnswer = { value };
    this.replies.postMessage(answer);
    Atomics.store(this.flag, 0, 1);
    Atomics.notify(this.flag, 0);
  }

  get healthy(): boolean {
    return this.stopped === undefined;
  }

  /** Ends the thread, whatever it is doing (a run past its deadline: the only way to stop wasm that runs). */
  async end(): Promise<void> {
    this.stopped ??= new Error('wasm thread ended');
    this.replies.close();
    await this.worker.terminate();
  }

  hold(): void {
    this.worker.ref();
  }

  /** An idle thread never keeps the process alive. */
  release(): void {
    this.worker.unref();
  }
}

const idle: WasmThread[] = [];

/** A free thread, ready to run. */
export async function takeThread(): Promise<WasmThread> {
  let thread = idle.pop();
  while (thread !== undefined && !thread.healthy) thread = idle.pop();
  thread ??= new WasmThread();
  thread.hold();
  try {
    await thread.ready;
  } catch (e) {
    await thread.end();
    throw e;
  }
  return thread;
}

/** A thread whose run ended normally: kept for the next run, or ended when enough are kept. */
export function giveBack(thread: WasmThread): void {
  thread.release();
  if (thread.healthy && idle.length < KEEP_IDLE) idle.push(thread);
  else void thread.end();
}
