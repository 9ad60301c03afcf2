// The soak run's chart (bench/soak.ts), hand-written SVG like bench/chart.ts: three panels over the
// same time axis — memory (RSS, V8 heap), p99 latency per kind of request (log scale), and requests
// answered and errors per sample — with a dashed line at every restart.
//
//   node --import tsx bench/soak-chart.ts bench/results/soak.csv docs/soak.svg [subtitle]   re-renders from a CSV
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface SoakSample {
  /** seconds since the run began */
  readonly t: number;
  readonly rssMiB: number;
  /** the anonymous part of RSS: the process's own memory (the rest maps files, mostly LMDB's) */
  readonly anonMiB: number;
  readonly heapMiB: number;
  /** V8's heap as committed (used plus free pages and the young generation's reserve): RSS beyond it and external is native memory */
  readonly heapTotalMiB: number;
  /** V8's external memory: Buffers and typed arrays */
  readonly externalMiB: number;
  /** per kind of request: answers in the sample, p50 and p99 in ms, errors */
  readonly kinds: Readonly<Record<string, { n: number; p50: number; p99: number; errors: number }>>;
  /** 'TERM' or 'KILL' when the node was restarted during this sample */
  readonly restart: string;
}

const COLORS = ['#1c7ed6', '#2f9e44', '#f08c00', '#7048e8', '#e64980', '#0c8599', '#495057'];
const W = 900;
const LEFT = 70;
const RIGHT = 170;
const PANEL_H = 170;
const GAP = 48;
const TOP = 70;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toPrecision(2));

export function renderSoakChart(samples: readonly SoakSample[], subtitle: string): string {
  const kinds = samples.length ? Object.keys(samples[0]!.kinds) : [];
  const tMax = Math.max(60, ...samples.map((s) => s.t));
  const restarts = samples.filter((s) => s.restart).length;
  const title = `chain-node soak: ${Math.round(tMax / 60)} min of mixed load, ${restarts} restart${restarts === 1 ? '' : 's'}`;
  const plotW = W - LEFT - RIGHT;
  const x = (t: number) => LEFT + (t / tMax) * plotW;
  const H = TOP + 3 * PANEL_H + 2 * GAP + 40;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" font-size="11">`);
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="16" y="24" font-size="15" font-weight="600" fill="#212529">${esc(title)}</text>`);
  out.push(`<text x="16" y="44" fill="#495057">${esc(subtitle)}</text>`);

  /** one panel: axes, grid, series as polylines, legend on the right */
  const panel = (i: number, label: string, series: { name: string; values: number[]; color: string; marks?: boolean }[], log: boolean) => {
    const y0 = TOP + i * (PANEL_H + GAP);
    series = series.filter((s) => s.marks || s.values.some(Number.isFinite)); // a column an older CSV lacks
    const all = series.filter((s) => !s.marks).flatMap((s) => s.values).filter((v) => Number.isFinite(v) && (!log || v > 0));
    let lo = log ? Math.min(...all, 1) : 0;
    let hi = Math.max(...all, log ? 10 : 1);
    if (log) {
      lo = 10 ** Math.floor(Math.log10(lo));
      hi = 10 ** Math.ceil(Math.log10(hi));
    } else hi = niceCeil(hi);
    const y = (v: number) => y0 + PANEL_H - (log ? (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : v / hi) * PANEL_H;
    out.push(`<text x="${LEFT}" y="${y0 - 8}" font-weight="600" fill="#212529">${esc(label)}</text>`);
    out.push(`<rect x="${LEFT}" y="${y0}" width="${plotW}" height="${PANEL_H}" fill="none" stroke="#ced4da"/>`);
    const ticks = log ? decades(lo, hi) : [0, hi / 4, hi / 2, (3 * hi) / 4, hi];
    for (const v of ticks) {
      out.push(`<line x1="${LEFT}" x2="${LEFT + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#f1f3f5"/>`);
      out.push(`<text x="${LEFT - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" fill="#868e96">${fmt(v)}</text>`);
    }
    for (const s of samples) {
      if (!s.restart) continue;
      out.push(`<line x1="${x(s.t).toFixed(1)}" x2="${x(s.t).toFixed(1)}" y1="${y0}" y2="${y0 + PANEL_H}" stroke="#adb5bd" stroke-dasharray="3,3"/>`);
      if (i === 0) out.push(`<text x="${(x(s.t) + 3).toFixed(1)}" y="${y0 + 11}" fill="#868e96" font-size="10">SIG${s.restart}</text>`);
    }
    series.forEach((s, k) => {
      if (s.marks) {
        // counts too small for the panel's scale: a mark at the bottom, labelled
        s.values.forEach((v, j) => {
          if (!(v > 0)) return;
          const mx = x(samples[j]!.t);
          out.push(`<path d="M${(mx - 4).toFixed(1)},${y0 + PANEL_H} L${mx.toFixed(1)},${y0 + PANEL_H - 8} L${(mx + 4).toFixed(1)},${y0 + PANEL_H} Z" fill="${s.color}"/>`);
          out.push(`<text x="${mx.toFixed(1)}" y="${y0 + PANEL_H - 11}" text-anchor="middle" fill="${s.color}" font-size="10">${v}</text>`);
        });
      } else {
        // a sample without a value (no answer of that kind in it) breaks the line; a lone point is a dot
        let run: string[] = [];
        const flush = () => {
          if (run.length > 1) out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="1.5" points="${run.join(' ')}"/>`);
          else if (run.length === 1) out.push(`<circle cx="${run[0]!.split(',')[0]}" cy="${run[0]!.split(',')[1]}" r="2" fill="${s.color}"/>`);
          run = [];
        };
        s.values.forEach((v, j) => (Number.isFinite(v) ? run.push(`${x(samples[j]!.t).toFixed(1)},${y(v).toFixed(1)}`) : flush()));
        flush();
      }
      const ly = y0 + 12 + k * 16;
      out.push(`<rect x="${LEFT + plotW + 12}" y="${ly - 9}" width="10" height="10" fill="${s.color}"/>`);
      out.push(`<text x="${LEFT + plotW + 27}" y="${ly}" fill="#212529">${esc(s.name)}</text>`);
    });
  };

  panel(0, 'memory, MiB', [
    { name: 'RSS', values: samples.map((s) => s.rssMiB), color: COLORS[0]! },
    { name: 'RSS, anonymous', values: samples.map((s) => s.anonMiB), color: COLORS[2]! },
    { name: 'V8 heap used', values: samples.map((s) => s.heapMiB), color: COLORS[1]! },
    { name: 'V8 external', values: samples.map((s) => s.externalMiB), color: COLORS[3]! },
  ], false);
  panel(1, 'p99 latency per sample, ms (log scale)', kinds.map((k, i) => ({ name: k, values: samples.map((s) => (s.kinds[k]!.n > 0 ? s.kinds[k]!.p99 : NaN)), color: COLORS[i % COLORS.length]! })), true);
  const every = samples.length > 1 ? samples[1]!.t - samples[0]!.t : 10;
  panel(2, `answers per second, and errors per sample (every ${every} s)`, [
    { name: 'answers/s', values: samples.map((s) => Object.values(s.kinds).reduce((n, k) => n + k.n, 0) / every), color: COLORS[0]! },
    { name: 'errors (count)', values: samples.map((s) => Object.values(s.kinds).reduce((n, k) => n + k.errors, 0)), color: '#e03131', marks: true },
  ], false);
  const axisY = TOP + 3 * PANEL_H + 2 * GAP + 14;
  for (let m = 0; m <= tMax / 60; m += tMax > 1800 ? 10 : 5) {
    out.push(`<text x="${x(m * 60).toFixed(1)}" y="${axisY}" text-anchor="middle" fill="#868e96">${m} min</text>`);
  }
  out.push(`<text x="${LEFT}" y="${axisY + 18}" fill="#868e96">dashed: a restart of the node (SIGTERM or SIGKILL, alternating). RSS, anonymous: the process's own memory; the rest of RSS is mapped files, mostly LMDB's.</text>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function decades(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let v = lo; v <= hi * 1.0001; v *= 10) out.push(v);
  return out;
}

/** CSV text (soak.ts writes it) → samples. */
export function parseSoakCsv(text: string): SoakSample[] {
  const [head, ...lines] = text.trim().split('\n');
  const cols = head!.split(',');
  const kinds = [...new Set(cols.filter((c) => c.endsWith('_n')).map((c) => c.slice(0, -2)))];
  return lines.map((line) => {
    const v = line.split(',');
    const at = (c: string) => v[cols.indexOf(c)]!;
    return {
      t: Number(at('t_s')),
      rssMiB: Number(at('rss_mib')),
      anonMiB: Number(at('anon_mib')),
      heapMiB: Number(at('heap_mib')),
      heapTotalMiB: cols.includes('heap_total_mib') ? Number(at('heap_total_mib')) : NaN,
      externalMiB: cols.includes('external_mib') ? Number(at('external_mib')) : NaN,
      restart: at('restart'),
      kinds: Object.fromEntries(kinds.map((k) => [k, { n: Number(at(`${k}_n`)), p50: Number(at(`${k}_p50_ms`)), p99: Number(at(`${k}_p99_ms`)), errors: Number(at(`${k}_errors`)) }])),
    };
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [src, dst] = [process.argv[2] ?? 'bench/results/soak.csv', process.argv[3] ?? 'bench/results/soak.svg'];
  const samples = parseSoakCsv(readFileSync(src, 'utf8'));
  writeFileSync(dst, renderSoakChart(samples, process.argv[4] ?? `${src}: ${samples.length} samples`));
  process.stdout.write(`wrote ${dst}\n`);
}
