// A raw WebSocket JSON-RPC client for subscription tests: calls by id, and every notification
// kept in arrival order after checking it against openrpc.json's SubscriptionNotification schema.
import { readFileSync } from 'node:fs';
import { WebSocket } from 'ws';
import { createAjv, componentKey, formatAjvError } from '../../codegen/schema-ajv.ts';

const doc = JSON.parse(readFileSync(new URL('../../openrpc.json', import.meta.url), 'utf8'));
const validate = createAjv(doc, { standalone: false, allErrors: true }).getSchema(componentKey('SubscriptionNotification'))!;

/** Problems of a message against SubscriptionNotification ('' when it conforms). */
export function notificationProblem(msg: unknown): string {
  return validate(msg) ? '' : (validate.errors ?? []).map(formatAjvError).join('; ');
}

export class WsRpc {
  /** notifications received so far (id-less messages), oldest first */
  readonly notes: any[] = [];
  /** notifications that did not match the schema (tests assert this stays empty) */
  readonly invalid: string[] = [];
  private readonly pending = new Map<number, (msg: any) => void>();
  private waiters: (() => void)[] = [];
  private id = 0;

  private constructor(readonly ws: WebSocket) {
    ws.on('close', (code, reason) => {
      for (const done of this.pending.values()) done({ error: { code: -1, message: `connection closed (${code} ${reason})` } });
      this.pending.clear();
    });
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.id !== undefined) {
        msg.notesBefore = this.notes.length; // where the answer arrived among the notifications
        this.pending.get(msg.id)?.(msg);
        this.pending.delete(msg.id);
        return;
      }
      const problem = notificationProblem(msg);
      if (problem) this.invalid.push(`notification does not match SubscriptionNotification: ${problem}: ${JSON.stringify(msg).slice(0, 300)}`);
      this.notes.push(msg);
      const w = this.waiters;
      this.waiters = [];
      for (const fn of w) fn();
    });
  }

  static open(url: string): Promise<WsRpc> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(new WsRpc(ws)));
      ws.once('error', reject);
    });
  }

  /** The whole response object, and how many notifications had arrived before it (`notesBefore`). */
  raw(method: string, params: unknown[] = []): Promise<{ result?: any; error?: { code: number; message: string }; notesBefore: number }> {
    const id = ++this.id;
    if (this.ws.readyState !== WebSocket.OPEN) return Promise.resolve({ error: { code: -1, message: 'connection closed' }, notesBefore: this.notes.length });
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  async call(method: string, params: unknown[] = []): Promise<any> {
    const r = await this.raw(method, params);
    if (r.error) throw Object.assign(new Error(`${method}: ${r.error.message}`), r.error);
    return r.result;
  }

  /** Results of the notifications for one subscription or filter id received so far. */
  results(id: string): any[] {
    return this.notes.filter((n) => n.params.subscription === id).map((n) => n.params.result);
  }

  /** Waits until `count` notifications for `id` arrived; returns their results. */
  async waitFor(id: string, count: number, timeoutMs = 5000): Promise<any[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.results(id).length < count) {
      if (this.invalid.length > 0) throw new Error(this.invalid[0]);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`only ${this.results(id).length} of ${count} notifications for ${id} arrived`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.results(id);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}
