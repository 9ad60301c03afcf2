// A hand-written SVG bar chart of a bench report: one group of bars per compared workload, each bar
// the node's figure relative to the best in that row (longer is better, for rates and times alike),
// labelled with the measured number. No chart library: the numbers go straight into rects.
//
//   node --import tsx bench/chart.ts [bench/results/latest.json] [out.svg]   re-renders from saved results
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatValue, type Report } from './report.ts';

const COLORS: Record<string, string> = { 'chain-node': '#2f9e44', anvil: '#495057', hardhat: '#f08c00', ganache: '#1c7ed6' };
const FALLBACK = ['#7048e8', '#e64980', '#0c8599'];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function renderChart(rep: Report): string {
  // rows measured on two or more nodes, at least one with a number (a stalled node shows its text)
  const rows = rep.rows.filter((r) => r.compare !== false && Object.keys(r.cells).length >= 2 && Object.values(r.cells).some((c) => c.value !== undefined && c.value > 0));
  const cols = rep.columns;
  const color = (id: string, i: number) => COLORS[id] ?? FALLBACK[i % FALLBACK.length]!;
  const W = 900;
  const LABEL_W = 230;
  const BAR_X = LABEL_W + 10;
  const BAR_W = 440;
  const BAR_H = 13;
  const GAP = 3;
  const GROUP_GAP = 16;
  const TOP = 112;
  const groupH = cols.length * (BAR_H + GAP) - GAP;
  const H = TOP + rows.length * (groupH + GROUP_GAP) + 20;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="16" y="26" font-size="16" font-weight="600" fill="#212529">${esc(cols.map((c) => c.label).join(' vs '))}</text>`);
  out.push(`<text x="16" y="46" fill="#495057">Each bar: the node's figure relative to the best in its row, so longer is better for rates and times alike.</text>`);
  out.push(`<text x="16" y="64" fill="#495057">${esc(`${rep.date} · ${rep.machine} · ${rep.loadGenerator}`)}</text>`);
  let lx = 16;
  cols.forEach((c, i) => {
    out.push(`<rect x="${lx}" y="78" width="12" height="12" fill="${color(c.id, i)}"/>`);
    out.push(`<text x="${lx + 17}" y="88" fill="#212529">${esc(c.label)}</text>`);
    lx += 30 + c.label.length * 6.6;
  });
  rows.forEach((r, g) => {
    const y0 = TOP + g * (groupH + GROUP_GAP);
    const values = Object.values(r.cells).map((c) => c.value).filter((v): v is number => v !== undefined && v > 0);
    const best = r.better === 'higher' ? Math.max(...values) : Math.min(...values);
    out.push(`<text x="${LABEL_W}" y="${y0 + groupH / 2 - 2}" text-anchor="end" fill="#212529" font-weight="600">${esc(r.short)}</text>`);
    out.push(`<text x="${LABEL_W}" y="${y0 + groupH / 2 + 13}" text-anchor="end" fill="#868e96">${esc(`${r.unit}, ${r.better} is better`)}</text>`);
    cols.forEach((c, i) => {
      const y = y0 + i * (BAR_H + GAP);
      const cell = r.cells[c.id];
      if (!cell || cell.value === undefined || !(cell.value > 0)) {
        out.push(`<text x="${BAR_X}" y="${y + BAR_H - 2}" fill="#868e96" font-style="italic">${esc(cell?.text ?? '—')}</text>`);
        return;
      }
      const score = r.better === 'higher' ? cell.value / best : best / cell.value;
      const w = Math.max(1, Math.round(score * BAR_W));
      out.push(`<rect x="${BAR_X}" y="${y}" width="${w}" height="${BAR_H}" fill="${color(c.id, i)}"><title>${esc(`${c.label}: ${formatValue(cell.value, r.unit)}`)}</title></rect>`);
      out.push(`<text x="${BAR_X + w + 5}" y="${y + BAR_H - 2}" fill="#343a40">${esc(formatValue(cell.value, r.unit) + (cell.text ? ` (${cell.text})` : ''))}</text>`);
    });
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const src = process.argv[2] ?? fileURLToPath(new URL('results/latest.json', import.meta.url));
  const dst = process.argv[3] ?? src.replace(/\.json$/, '.svg');
  writeFileSync(dst, renderChart(JSON.parse(readFileSync(src, 'utf8')) as Report));
  process.stdout.write(`wrote ${dst}\n`);
}
