// The cap on open HTTP/WebSocket connections (--http.maxconns): its default, and the warn lines a
// refusal leaves. Each transport enforces it its own way (node-server.ts: node:net's
// maxConnections; uws-server.ts: uws-listen-gate.ts).
import { openFileLimit } from './open-files.ts';
import type { Logger } from './types.ts';

/** Without a known open-files limit, and the most by default with one. */
const MAX_DEFAULT = 10_000;

/**
 * 80 % of the open-files limit, at most 10,000: connections then run out before descriptors do,
 * leaving the rest for the database, the log and the threads.
 */
export function defaultMaxConnections(limit = openFileLimit()): number {
  return limit === undefined ? MAX_DEFAULT : Math.max(1, Math.min(MAX_DEFAULT, Math.floor(limit * 0.8)));
}

/** A flood of refusals is one warn line every 10 s, with how many it stands for. */
const WARN_EVERY_MS = 10_000;

export class CapWarnings {
  private last = -Infinity;
  private since = 0;

  constructor(private readonly log: Logger) {}

  /** One more refusal; `line(n)` is logged when the last line is 10 s old (n: refusals since). */
  note(line: (n: number) => string): void {
    this.since++;
    const now = Date.now();
    if (now - this.last < WARN_EVERY_MS) return;
    this.log.warn(line(this.since));
    this.since = 0;
    this.last = now;
  }
}
