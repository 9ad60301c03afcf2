// JSON with exact integers. Some results are plain JSON integers that can exceed 2^53 (D6:
// a balance in wei in eth_getAccountBaseInfo); JSON.parse would round them. Node 20 has no
// JSON.parse source access, so such numbers are turned into marked strings before parsing and
// revived as bigint. Outgoing bigints are written as JSON integers the same way round.

/** Marks a number we carried through JSON as a string; NUL never starts a real hex or text value. */
const MARK = '\u0000bigint:';
const MARKED = /"\\u0000bigint:(-?\d+)"/g;
/**
 * A number token of 16+ digits (after `:`, `,`, `[`, `-` or whitespace — not inside a hex string):
 * the only text that can hold an integer beyond Number.MAX_SAFE_INTEGER. Anything else parses
 * with plain JSON.parse.
 */
const LONG_INTEGER = /[:,[\s-]\d{16}/;

/** JSON.parse, except integers beyond Number.MAX_SAFE_INTEGER become exact bigints. */
export function parseJson(text: string): unknown {
  if (!LONG_INTEGER.test(text)) return JSON.parse(text);
  const marked = markUnsafeIntegers(text);
  if (marked === text) return JSON.parse(text);
  return JSON.parse(marked, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(MARK) ? BigInt(value.slice(MARK.length)) : value,
  );
}

/** JSON.stringify, except bigints are written as JSON integers (not rejected). */
export function stringifyJson(value: unknown): string {
  let sawBigint = false;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'bigint') return v;
    sawBigint = true;
    return MARK + v.toString();
  });
  return sawBigint ? text.replace(MARKED, '$1') : text;
}

/** Rewrites unsafe integer literals outside strings as marked strings. */
function markUnsafeIntegers(text: string): string {
  let out = '';
  let from = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string, escapes included.
      i++;
      while (i < n && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c /* \ */ ? 2 : 1;
      i++;
      continue;
    }
    if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      i++;
      while (i < n && /[0-9.eE+-]/.test(text[i]!)) i++;
      const token = text.slice(start, i);
      if (/^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token))) {
        out += text.slice(from, start) + JSON.stringify(MARK + token);
        from = i;
      }
      continue;
    }
    i++;
  }
  return from === 0 ? text : out + text.slice(from);
}
