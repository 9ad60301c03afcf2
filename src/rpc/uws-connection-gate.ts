// The connection cap on the uWebSockets.js transport. uWS 20.30 tells JavaScript nothing when it
// accepts or closes an HTTP connection, so this counts the process's open descriptors instead (each
// connection is one; with serving threads every thread reads the same process-wide count) and says
// when they are over the cap, or close to the open-files limit by any other means. The server then
// stops listening (`onChange`), so no connection is accepted past the cap and uSockets never meets
// EMFILE at accept, where its accept loop spins (100 % of a core, measured with 400 connections
// under `ulimit -n 256`); WebSocket handshakes on connections already open get 503. Idle
// connections are cut by uWS's ~10 s idle timeout; once the count is back under 90 % of the cap and
// clear of the limit's reserve the server listens again (S21). Closing answered connections instead
// (S7's first way) left idle ones holding the descriptors and cut the clients that were working.
import { CapWarnings } from './connection-cap.ts';
import { openFileCounter, openFileLimit } from './open-files.ts';
import type { Logger } from './types.ts';

export interface ConnectionGate {
  /** Over the cap (or near the open-files limit): not listening, WebSocket handshakes refused. */
  readonly over: boolean;
  stop(): void;
}

/** Starts watching (every 100 ms where counting is cheap, else every second); undefined without /proc. */
export function startConnectionGate(maxConnections: number, log: Logger, onChange: (over: boolean) => void = () => {}): ConnectionGate | undefined {
  const counter = openFileCounter();
  if (counter === undefined) {
    log.debug('rpc: open descriptors cannot be counted here: --http.maxconns is not enforced');
    return undefined;
  }
  const limit = openFileLimit();
  // descriptors kept free for the database, logs and threads whatever the cap says
  const reserve = limit === undefined ? 0 : Math.max(16, Math.floor(limit * 0.05));
  // what the process held before any connection: the connections are the rest
  const baseline = counter.count();
  const warnings = new CapWarnings(log);
  // back under this (and clear of the reserve twice over) before listening again: no flapping at the cap
  const resumeBelow = Math.max(1, Math.floor(maxConnections * 0.9));
  const gate = { over: false, stop: () => clearInterval(timer) };
  const timer = setInterval(() => {
    const files = counter.count();
    const open = files - baseline;
    const nearLimit = limit !== undefined && files >= limit - reserve;
    const over = gate.over ? open >= resumeBelow || (limit !== undefined && files >= limit - 2 * reserve) : open >= maxConnections || nearLimit;
    if (over && !gate.over) {
      warnings.note((n) =>
        nearLimit
          ? `rpc: ${files} of ${limit} open files in use: not accepting connections until they fall (${n} time(s) since the last line)`
          : `rpc: ~${open} connections open, --http.maxconns is ${maxConnections}: not accepting connections until they fall (${n} time(s) since the last line)`,
      );
    }
    if (over !== gate.over) {
      gate.over = over;
      onChange(over);
    }
  }, counter.cheap ? 100 : 1000);
  timer.unref();
  return gate;
}
