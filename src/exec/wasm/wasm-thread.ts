// A wasm thread (./thread-pool.ts starts them): runs one message at a time, each exactly once.
// Its host functions answer what the thread knows; for what only the main thread can read, and for
// inner calls, they post a request and block on Atomics.wait until the main thread has put the
// answer on the reply port and notified — the answer is then taken off the port synchronously
// (receiveMessageOnPort needs no event loop). Compiled modules arrive once per thread, by hash.
import { parentPort, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { RunContext, type MainLink } from './run-context.ts';
import { execute } from './run.ts';
import type { HostAnswer, RunRequest, ThreadMessage } from './thread-protocol.ts';
import type { ModuleSignatures } from './signatures.ts';

/** The first message: the port answers come on, and the flag the main thread raises when one is there. */
export interface ThreadSetup {
  type: 'setup';
  replies: MessagePort;
  signal: SharedArrayBuffer;
}

const main = parentPort!;
const modules = new Map<string, { module: WebAssembly.Module; sigs: ModuleSignatures }>();
let link: MainLink | undefined;

function post(m: ThreadMessage): void {
  main.postMessage(m);
}

function mainLink({ replies, signal }: ThreadSetup): MainLink {
  const flag = new Int32Array(signal);
  return {
    request(request) {
      Atomics.store(flag, 0, 0);
      post({ type: 'request', request });
      for (;;) {
        Atomics.wait(flag, 0, 0);
        const got = receiveMessageOnPort(replies);
        if (got !== undefined) return (got.message as HostAnswer).value;
        // raised before the reply was visible on the port: look again shortly
        Atomics.wait(flag, 0, 1, 1);
      }
    },
    print(line) {
      post({ type: 'print', line });
    },
  };
}

main.on('message', (m: ThreadSetup | RunRequest) => {
  if (m.type === 'setup') {
    link = mainLink(m);
    return;
  }
  for (const hash of m.forget ?? []) modules.delete(hash);
  if (m.compiled !== undefined) modules.set(m.hash, m.compiled);
  const compiled = modules.get(m.hash)!;
  const ctx = new RunContext(m.message, m.tx, link!);
  try {
    const outcome = execute(compiled.module, compiled.sigs, ctx, m.plan);
    const gasLeft = ctx.gasRemaining();
    post({ type: 'done', outcome, gasLeft, ...ctx.handOver() });
  } catch (e) {
    post({ type: 'crashed', error: (e as Error).stack ?? String(e) });
  }
});
post({ type: 'ready' });
