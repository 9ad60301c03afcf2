// Headless Chromium driven over the DevTools protocol (CDP) with `ws` — no puppeteer/playwright.
// Opens one page, records every request it makes and everything it logs, and evaluates script in it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing (Debian: apt-get install chromium; .ci/run installs it)`;
}

export interface PageEvents {
  /** URLs the page asked for (documents, scripts, fetches, images…), in order. */
  readonly requests: string[];
  /** Requests the browser refused or that failed, with the reason (CSP blocks show up here). */
  readonly failures: string[];
  /** Console messages and browser log entries (CSP violations are logged here). */
  readonly logs: string[];
}

export interface Browser {
  /** Opens `url` in a new tab; resolves after the load event. */
  open(url: string): Promise<PageEvents>;
  /** Evaluates an expression in the page; returns its (JSON-serializable) value. */
  evaluate<T>(expression: string): Promise<T>;
  /** Types text into the focused element, as a user would. */
  type(text: string): Promise<void>;
  /** A PNG of the page laid out `width` CSS pixels wide (default: as it is), or of the first element matching `selector`. */
  screenshot(selector?: string, width?: number): Promise<Buffer>;
  close(): Promise<void>;
}

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--remote-debugging-port=0',
];

export async function launchChromium(timeoutMs = 20_000): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'chain-node-chromium-'));
  const child = spawn(CHROMIUM, [...FLAGS, `--user-data-dir=${profile}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let cleaned = false;
  const cleanUp = () => {
    if (cleaned) return;
    cleaned = true;
    child.kill('SIGKILL');
    // Chromium's helper processes may still be writing the profile for a moment after it exits.
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch {
      // a leftover temp dir is not worth failing a test over
    }
  };
  try {
    const endpoint = await devtoolsEndpoint(child, timeoutMs);
    const cdp = await Cdp.connect(endpoint);
    return browserOn(cdp, async () => {
      cdp.close();
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
      cleanUp();
    });
  } catch (e) {
    cleanUp();
    throw e;
  }
}

/** Chromium prints `DevTools listening on ws://…` on stderr once it accepts CDP connections. */
function devtoolsEndpoint(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`chromium did not start within ${timeoutMs} ms:\n${err.slice(-2000)}`)), timeoutMs);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`chromium exited (${code}) before listening:\n${err.slice(-2000)}`));
    });
  });
}

function browserOn(cdp: Cdp, close: () => Promise<void>): Browser {
  let session: string | undefined;
  const page = () => {
    if (!session) throw new Error('no page open');
    return session;
  };
  return {
    async open(url) {
      const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      session = sessionId;
      const events: PageEvents = { requests: [], failures: [], logs: [] };
      cdp.on(sessionId, (method, params: any) => {
        if (method === 'Network.requestWillBeSent') events.requests.push(params.request.url);
        else if (method === 'Network.loadingFailed') events.failures.push(`${params.errorText}${params.blockedReason ? ` (${params.blockedReason})` : ''}`);
        else if (method === 'Log.entryAdded') events.logs.push(`${params.entry.level}: ${params.entry.text}`);
        else if (method === 'Runtime.consoleAPICalled') events.logs.push(`${params.type}: ${params.args.map((a: any) => a.value ?? a.description).join(' ')}`);
        else if (method === 'Runtime.exceptionThrown') events.logs.push(`exception: ${params.exceptionDetails.exception?.description ?? params.exceptionDetails.text}`);
      });
      for (const domain of ['Page', 'Network', 'Log', 'Runtime']) await cdp.send(`${domain}.enable`, {}, sessionId);
      const loaded = cdp.once(sessionId, 'Page.loadEventFired');
      await cdp.send('Page.navigate', { url }, sessionId);
      await loaded;
      return events;
    },
    async evaluate<T>(expression: string): Promise<T> {
      const r = await cdp.send<{ result: { value?: T }; exceptionDetails?: { text: string; exception?: { description?: string } } }>(
        'Runtime.evaluate',
        { expression, returnByValue: true, awaitPromise: true },
        page(),
      );
      if (r.exceptionDetails) throw new Error(`page script failed: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      return r.result.value as T;
    },
    async type(text) {
      await cdp.send('Input.insertText', { text }, page());
    },
    async screenshot(selector, width) {
      if (width) await cdp.send('Emulation.setDeviceMetricsOverride', { width, height: 900, deviceScaleFactor: 1, mobile: false }, page());
      let clip: object | undefined;
      if (selector) {
        const box = await this.evaluate<{ x: number; y: number; width: number; height: number }>(`(() => {
          const e = document.querySelector(${JSON.stringify(selector)});
          e.scrollIntoView();
          const r = e.getBoundingClientRect();
          return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
        })()`);
        clip = { ...box, scale: 1 };
      }
      const { data } = await cdp.send<{ data: string }>('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true, ...(clip ? { clip } : {}) }, page());
      return Buffer.from(data, 'base64');
    },
    close,
  };
}

/** A minimal CDP connection: numbered commands, events by session. */
class Cdp {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  private readonly listeners: { session: string; fn: (method: string, params: unknown) => void }[] = [];

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => this.onMessage(JSON.parse(data.toString())));
    ws.on('close', () => {
      for (const p of this.pending.values()) p.reject(new Error('CDP connection closed'));
      this.pending.clear();
    });
  }

  static connect(url: string): Promise<Cdp> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
      ws.once('open', () => resolve(new Cdp(ws)));
      ws.once('error', reject);
    });
  }

  send<T = unknown>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    const id = ++this.next;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  on(session: string, fn: (method: string, params: unknown) => void): void {
    this.listeners.push({ session, fn });
  }

  once(session: string, event: string): Promise<unknown> {
    return new Promise((resolve) => {
      const entry = {
        session,
        fn: (method: string, params: unknown) => {
          if (method !== event) return;
          this.listeners.splice(this.listeners.indexOf(entry), 1);
          resolve(params);
        },
      };
      this.listeners.push(entry);
    });
  }

  close(): void {
    this.ws.close();
  }

  private onMessage(msg: { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: unknown; sessionId?: string }): void {
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`CDP: ${msg.error.message}`));
      else p.resolve(msg.result);
      return;
    }
    if (msg.method) for (const l of [...this.listeners]) if (l.session === msg.sessionId) l.fn(msg.method, msg.params);
  }
}
