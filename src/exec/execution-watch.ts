// Keeps one EVM's execution from holding the event loop and bounds how long it may run.
// @ethereumjs awaits every opcode, but awaiting a settled promise runs only microtasks: sockets,
// timers and other requests waited until a message ended (an endless loop at 1e9 gas held every
// request and the sealer for 45 s). Every STEPS_PER_LOOK interpreter steps the watch of the EVM
// running them looks at the clock: after YIELD_EVERY_MS it lets one macrotask turn pass, and past
// its deadline it halts the frame with EXECUTION_TIMEOUT — an exceptional halt like out of gas, so
// every frame unwinds through @ethereumjs's own journal reverts and no checkpoint is left open.
import { EVM, EVMError, Message } from '@ethereumjs/evm';
import { createZeroAddress } from '@ethereumjs/util';

/** How long execution holds the event loop before it lets I/O run (also between a block's transactions). */
export const YIELD_EVERY_MS = 2;
/** Interpreter steps between looks at the clock: ~0.2 ms of the fastest opcodes, one decrement each otherwise. */
const STEPS_PER_LOOK = 1024;

/** How often a wait for work done off the event loop looks at the clock (the deadline's precision there). */
const WAIT_LOOK_MS = 5;

/** The exceptional halt of a frame running when its watch's deadline passed. */
export const EXECUTION_TIMEOUT = 'execution timeout';

export class ExecutionWatch {
  /** steps left before the next look (the step hook's only work on most steps) */
  countdown = STEPS_PER_LOOK;
  /** whether the deadline passed while a limit applied (sticky until the next `limit`) */
  expired = false;
  private deadline = Infinity;
  /** a budget counts execution only: each yield moves the deadline on by the time it took */
  private budget = false;
  private lastYield = performance.now();
  /** time spent letting others run, ever (a block's build time leaves it out, as a budget does) */
  yieldedMs = 0;

  /**
   * Bounds what runs from now until `unlimit()`: by a wall-clock `deadline` (performance.now()
   * ms; eth_call's --rpc.evmtimeout), or by `budgetMs` of execution, the time spent letting
   * others run not counted (the proposer's --miner.txtimeout, so a busy node does not drop more).
   */
  limit(bound: { deadline: number } | { budgetMs: number }): void {
    this.expired = false;
    this.budget = 'budgetMs' in bound;
    this.deadline = 'budgetMs' in bound ? performance.now() + bound.budgetMs : bound.deadline;
  }

  unlimit(): void {
    this.deadline = Infinity;
  }

  /** Halts what it watches at the next step, as a passed deadline does (`expired` turns true). */
  halt(): void {
    this.deadline = -Infinity;
    this.countdown = 1;
  }

  /**
   * Lets I/O run when execution has held the event loop for YIELD_EVERY_MS; false once the
   * deadline has passed. Called every STEPS_PER_LOOK steps and by long precompiles between chunks.
   */
  async look(): Promise<boolean> {
    this.countdown = STEPS_PER_LOOK;
    let now = performance.now();
    if (now - this.lastYield >= YIELD_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      const resumed = performance.now();
      this.yieldedMs += resumed - now;
      if (this.budget) this.deadline += resumed - now;
      this.lastYield = now = resumed;
    }
    if (now <= this.deadline) return true;
    this.expired = true;
    this.countdown = 0; // every later step of every frame halts too, down to the message's top
    return false;
  }

  /**
   * Awaits work done off the event loop (a precompile thread); undefined once the deadline passed
   * first. In a budget the wait counts as execution: the work is this execution's.
   */
  async waitFor<T>(work: Promise<T>): Promise<T | undefined> {
    const done = work.then((value) => ({ value }));
    let timer: NodeJS.Timeout | undefined;
    try {
      for (;;) {
        const outcome = await Promise.race([done, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), WAIT_LOOK_MS)))]);
        if (outcome) return outcome.value;
        if (!(await this.look())) return undefined;
      }
    } finally {
      clearTimeout(timer);
    }
  }
}

interface Stepping {
  _evm: { executionWatch?: ExecutionWatch };
}
type RunStep = (this: Stepping, op: unknown) => Promise<void>;

let hooked: Promise<void> | undefined;

/**
 * Wraps the interpreter's runStep once per process so that each step of an EVM carrying an
 * `executionWatch` counts down to a look. @ethereumjs has no option for this and does not export
 * its Interpreter class, so the prototype is taken from an interpreter made for empty code.
 */
export function watchInterpreterSteps(evm: EVM): Promise<void> {
  return (hooked ??= (async () => {
    const proto = (await interpreterPrototype(evm)) as { runStep: RunStep };
    const runStep = proto.runStep;
    proto.runStep = function (this: Stepping, op: unknown): Promise<void> {
      const watch = this._evm.executionWatch;
      if (watch === undefined || --watch.countdown > 0) return runStep.call(this, op);
      return watch.look().then((inTime) => {
        if (!inTime) throw new EVMError(EXECUTION_TIMEOUT as never);
        return runStep.call(this, op);
      });
    };
  })());
}

/** An Interpreter's prototype: runInterpreter on a stand-in for `evm` that reads no state and runs nothing. */
async function interpreterPrototype(evm: EVM): Promise<object> {
  const standIn = Object.assign(Object.create(evm) as EVM, {
    stateManager: { getAccount: async () => undefined },
    _tx: { gasPrice: 0n },
  });
  const runInterpreter = (EVM.prototype as unknown as { runInterpreter: EVM['runCode'] }).runInterpreter;
  const result = await runInterpreter.call(standIn, new Message({ code: new Uint8Array(0), codeAddress: createZeroAddress(), gasLimit: 0n }) as never);
  return Object.getPrototypeOf(result.runState!.interpreter) as object;
}
