// The close hooks of one WebSocket connection (ConnectionContext.onClose): run once when it closes;
// one registered after the close (a subscribe racing a disconnect) runs at once. A hook that throws
// is logged and the others still run. Used by ws-session.ts and, for a serving thread's sockets, by
// server-threads.ts.
import type { Logger } from './types.ts';

export class CloseHooks {
  private hooks: (() => void)[] | undefined = [];

  constructor(private readonly log: Logger) {}

  /** False once the hooks have run. */
  get open(): boolean {
    return this.hooks !== undefined;
  }

  add(fn: () => void): void {
    if (this.hooks === undefined) this.run(fn);
    else this.hooks.push(fn);
  }

  /** The connection closed: every hook runs, once. */
  close(): void {
    const list = this.hooks;
    this.hooks = undefined;
    if (list) for (const fn of list) this.run(fn);
  }

  private run(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.log.error(`rpc: ws close hook failed: ${e instanceof Error ? e.stack : String(e)}`);
    }
  }
}
