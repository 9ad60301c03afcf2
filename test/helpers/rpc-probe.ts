// An RPC latency probe in a process of its own (a test process that floods a node with a hand-made
// peer is itself busy, and would time its own event loop): it asks `url` for the latest block one
// request after another, a pause between, and prints each answer's time. A test reads the
// latencies of a window of time (baseline, flood) and compares their percentiles.
import { spawn } from 'node:child_process';

const SCRIPT = `
const [url, gap] = process.argv.slice(1);
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] });
(async () => {
  for (;;) {
    const t = Date.now();
    const start = performance.now();
    let ok = true;
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(20000) });
      ok = res.ok && (await res.json()).result !== undefined;
    } catch { ok = false; }
    process.stdout.write(JSON.stringify({ t, ms: performance.now() - start, ok }) + '\\n');
    await new Promise((r) => setTimeout(r, Number(gap)));
  }
})();
`;

export interface Sample {
  t: number;
  ms: number;
  ok: boolean;
}

export interface Probe {
  /** the answers asked for from `from` to `to` (epoch ms) */
  between(from: number, to: number): Sample[];
  stop(): Promise<void>;
}

export function startProbe(url: string, gapMs = 25): Probe {
  const child = spawn(process.execPath, ['-e', SCRIPT, url, String(gapMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const samples: Sample[] = [];
  let rest = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (rest + d.toString()).split('\n');
    rest = lines.pop()!;
    for (const l of lines) if (l) samples.push(JSON.parse(l) as Sample);
  });
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  return {
    between: (from, to) => samples.filter((s) => s.t >= from && s.t < to),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The q-quantile (0–1) of the samples' times, in ms. */
export function quantile(samples: readonly Sample[], q: number): number {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  return ms.length === 0 ? NaN : ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!;
}
