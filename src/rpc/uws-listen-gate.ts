// The connection cap on the uWebSockets.js transport. uWS 20.30 tells JavaScript nothing when it
// accepts or closes an HTTP connection, and at the open-files limit its accept loop spins: accept()
// fails with EMFILE, the listening socket stays readable, the loop wakes again at once (measured:
// 100 % of a core with 400 connections under `ulimit -n 256`, and new connections unanswered).
// So this counts the process's open descriptors instead (each connection is one) and stops
// listening while they are over the cap, or close to the limit by any other means: new connections
// are refused by the kernel at once, and there is nothing to spin on. Below 90 % of the cap it
// listens again. With serving threads each thread's gate reads the same process-wide count.
import { CapWarnings } from './connection-cap.ts';
import { openFileCounter, openFileLimit } from './open-files.ts';
import type { Logger } from './types.ts';

export interface ListenGateOptions {
  readonly maxConnections: number;
  readonly log: Logger;
  /** Closes the listening socket. */
  pause(): void;
  /** Listens again; false when the port could not be bound (tried again on the next check). */
  resume(): Promise<boolean>;
}

export interface ListenGate {
  stop(): void;
}

/** Starts watching (every 100 ms where counting is cheap, else every second); undefined without /proc. */
export function startListenGate(o: ListenGateOptions): ListenGate | undefined {
  const counter = openFileCounter();
  if (counter === undefined) {
    o.log.debug('rpc: open descriptors cannot be counted here: --http.maxconns is not enforced');
    return undefined;
  }
  const limit = openFileLimit();
  // descriptors kept free for the database, logs and threads whatever the cap says
  const reserve = limit === undefined ? 0 : Math.max(16, Math.floor(limit * 0.05));
  const resumeAt = Math.floor(o.maxConnections * 0.9);
  // what the process held before any connection: the connections are the rest
  const baseline = counter.count();
  const warnings = new CapWarnings(o.log);
  let paused = false;
  let resuming = false;
  let stopped = false;

  const check = (): void => {
    if (resuming) return;
    const files = counter.count();
    const open = files - baseline;
    const nearLimit = limit !== undefined && files >= limit - reserve;
    if (!paused) {
      if (open < o.maxConnections && !nearLimit) return;
      paused = true;
      o.pause();
      warnings.note((n) =>
        nearLimit
          ? `rpc: ${files} of ${limit} open files in use: not accepting connections until fewer are (${n} pause(s) since the last line)`
          : `rpc: ~${open} connections open, --http.maxconns is ${o.maxConnections}: not accepting new ones until fewer than ${resumeAt} are (${n} pause(s) since the last line)`,
      );
      return;
    }
    if (open >= resumeAt || (limit !== undefined && files >= limit - 2 * reserve)) return;
    resuming = true;
    o.resume().then((listening) => {
      resuming = false;
      if (stopped) return;
      if (listening) {
        paused = false;
        o.log.info(`rpc: ~${open} connections open: accepting connections again`);
      } else o.log.error('rpc: could not listen again after pausing for --http.maxconns (port taken?); retrying');
    });
  };
  const timer = setInterval(check, counter.cheap ? 100 : 1000);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
