// geth-style durations ("3h", "1h30m", "90s", "500ms"; a bare number is seconds), shared by the
// flags and by RPC options such as a tracer's timeout.
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The duration in milliseconds, or undefined when `v` is not a positive duration. */
export function parseDurationMs(v: string): number | undefined {
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const parts = [...v.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  const total = parts.reduce((ms, [, n, unit]) => ms + Number(n) * DURATION_UNITS[unit!]!, 0);
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== v || total <= 0) return undefined;
  return Math.round(total);
}
