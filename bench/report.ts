// The bench's results: one model (rows × nodes), rendered as the markdown table that the terminal,
// bench/results/*.md and docs/performance.md show. The SVG chart (chart.ts) reads the same model.

export type Better = 'higher' | 'lower';

export interface Cell {
  value?: number;
  /** shown instead of (or next to) the number: "stalled after 1,200 of 10,000", "partial", "n/a" */
  text?: string;
}

export interface Row {
  label: string;
  /** the chart's label */
  short: string;
  unit: string;
  better: Better;
  cells: Record<string, Cell>;
  /** false: a reference row (e.g. the bare node:http baseline), no ratio, no bar */
  compare?: boolean;
  /** server CPU per request (µs) per node, for the rate rows */
  cpuUs?: Record<string, number>;
}

export interface Report {
  date: string;
  command: string;
  machine: string;
  loadGenerator: string;
  columns: { id: string; label: string }[];
  rows: Row[];
  notes: string[];
}

export const OURS = 'chain-node';

export function formatValue(v: number, unit: string): string {
  const digits = unit === 'ms' && v < 10 ? 1 : 0;
  return `${v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${unit}`;
}

function cellText(c: Cell | undefined, unit: string): string {
  if (!c) return '—';
  if (c.value === undefined) return c.text ?? '—';
  return c.text ? `${formatValue(c.value, unit)} (${c.text})` : formatValue(c.value, unit);
}

/** The best peer's value: highest or lowest among the peers with a number. */
export function bestPeer(r: Row): { id: string; value: number } | undefined {
  let best: { id: string; value: number } | undefined;
  for (const [id, c] of Object.entries(r.cells)) {
    if (id === OURS || c.value === undefined || !(c.value > 0)) continue;
    if (!best || (r.better === 'higher' ? c.value > best.value : c.value < best.value)) best = { id, value: c.value };
  }
  return best;
}

/** ours ÷ best peer, and whether that puts us ahead (≥ 1 for rates, ≤ 1 for times and memory). */
export function ratio(r: Row): { ratio: number; ahead: boolean } | undefined {
  const ours = r.cells[OURS]?.value;
  const best = bestPeer(r);
  if (r.compare === false || ours === undefined || !best) return undefined;
  const q = ours / best.value;
  return { ratio: q, ahead: r.better === 'higher' ? q >= 1 : q <= 1 };
}

export function markdown(rep: Report): string {
  const side = rep.columns.length > 1;
  const head = [`| workload | ${rep.columns.map((c) => c.label).join(' | ')} |${side ? ' ours ÷ best peer |' : ''}`, `|---|${rep.columns.map(() => '--:').join('|')}|${side ? ':--|' : ''}`];
  const body = rep.rows.map((r) => {
    const q = side ? ratio(r) : undefined;
    const qText = q ? `${q.ratio.toFixed(2)}× ${q.ahead ? 'ahead' : '**behind**'}` : '';
    return `| ${r.label} | ${rep.columns.map((c) => cellText(r.cells[c.id], r.unit)).join(' | ')} |${side ? ` ${qText} |` : ''}`;
  });
  const cpuRows = rep.rows.filter((r) => r.cpuUs);
  const cpu = cpuRows.length
    ? [
        '',
        'Server CPU per request (user + system time of the server process ÷ requests answered, µs; lower is better):',
        '',
        `| workload | ${rep.columns.map((c) => c.label).join(' | ')} |`,
        `|---|${rep.columns.map(() => '--:').join('|')}|`,
        ...cpuRows.map((r) => `| ${r.label} | ${rep.columns.map((c) => (r.cpuUs![c.id] === undefined ? '—' : r.cpuUs![c.id]!.toFixed(1))).join(' | ')} |`),
      ]
    : [];
  return [
    `Measured ${rep.date} with \`${rep.command}\` on ${rep.machine}. Load generator: ${rep.loadGenerator}, the same for every node.`,
    '',
    ...head,
    ...body,
    ...cpu,
    '',
    ...rep.notes.map((n) => `- ${n}`),
    '',
  ].join('\n');
}
