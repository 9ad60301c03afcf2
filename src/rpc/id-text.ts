// The JSON text of numeric request ids, so that a response carries the id exactly as sent.
//
// JSON.parse turns an id into a double: 9007199254740993 comes back as …992, 1e400 as null (JSON
// has no Infinity), -0 as 0, 1.50 as 1.5. A client matching responses by id then never finds its
// answer. Node 20's JSON.parse gives no access to the source text, so the text is read from the
// body itself — only for numeric ids (string ids round-trip through JSON.stringify). The usual
// case, a small integer in the layout JSON.stringify gives the requests of viem, web3.js, ethers
// and our SDK, is confirmed at its fixed place; anything else walks the body's top level (nested
// values skipped, strings by indexOf). Both read text JSON.parse has already accepted. The one
// inexactness: a body with two id members, the first written plainly with the value of the last,
// gets the first's text (the same number).
import { idJson, type IdJson } from './response.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const LEADING_ID = '{"jsonrpc":"2.0","id":';
const TRAILING_JSONRPC = ',"jsonrpc":"2.0"}';

/** The text of the id of the single request in `body`, whose parsed value is the number `id`. */
export function numberIdText(body: string, id: number): IdJson {
  if (Number.isSafeInteger(id) && !Object.is(id, -0) && plainlyWritten(body, id)) return String(id);
  const start = skipSpace(body, 0);
  return (body.charCodeAt(start) === OPEN_BRACE ? idMember(body, start).text : undefined) ?? idJson(id);
}

/** For a batch body: each element's id text, undefined where an element has no id member. */
export function batchIdTexts(body: string): (IdJson | undefined)[] {
  const texts: (IdJson | undefined)[] = [];
  let i = skipSpace(body, 0);
  if (body.charCodeAt(i) !== OPEN_BRACKET) return texts;
  i = skipSpace(body, i + 1);
  if (body.charCodeAt(i) === CLOSE_BRACKET) return texts;
  for (;;) {
    if (body.charCodeAt(i) === OPEN_BRACE) {
      const m = idMember(body, i);
      texts.push(m.text);
      i = m.end;
    } else {
      texts.push(undefined);
      i = valueEnd(body, i);
    }
    i = skipSpace(body, i);
    if (body.charCodeAt(i) !== COMMA) return texts;
    i = skipSpace(body, i + 1);
  }
}

/** `{"jsonrpc":"2.0","id":<id>,…` (viem, web3.js, our SDK) or `…,"id":<id>,"jsonrpc":"2.0"}` (ethers), `id` in plain digits. */
function plainlyWritten(body: string, id: number): boolean {
  if (textAt(body, 0, LEADING_ID)) return integerEnd(body, LEADING_ID.length, id) > 0;
  const end = body.length - TRAILING_JSONRPC.length;
  if (!textAt(body, end, TRAILING_JSONRPC)) return false;
  const at = body.lastIndexOf(':', end);
  return textAt(body, at - 5, ',"id":') && integerEnd(body, at + 1, id) === end;
}

/** s.startsWith(t, i), without the regular-expression check that makes startsWith ~10× slower. */
function textAt(s: string, i: number, t: string): boolean {
  if (i < 0) return false;
  for (let k = 0; k < t.length; k++) if (s.charCodeAt(i + k) !== t.charCodeAt(k)) return false;
  return true;
}

/** Where the integer `id`, written plainly (no sign on 0, no fraction, no exponent), ends when it starts at `i`; -1 when it does not. */
function integerEnd(s: string, i: number, id: number): number {
  let negative = false;
  if (s.charCodeAt(i) === 0x2d) {
    negative = true;
    i++;
  }
  const start = i;
  let v = 0;
  for (let c = s.charCodeAt(i); c >= 0x30 && c <= 0x39; c = s.charCodeAt(++i)) v = v * 10 + (c - 0x30);
  const digits = i - start;
  if (digits === 0 || digits > 16 || (digits > 1 && s.charCodeAt(start) === 0x30) || isNumberChar(s.charCodeAt(i))) return -1;
  return (negative ? -v : v) === id && !(negative && v === 0) ? i : -1;
}

/** The text of the last "id" member (JSON.parse keeps the last) of the object at `i`, and where the object ends. */
function idMember(s: string, i: number): { text: IdJson | undefined; end: number } {
  let text: IdJson | undefined;
  i = skipSpace(s, i + 1);
  if (s.charCodeAt(i) === CLOSE_BRACE) return { text, end: i + 1 };
  for (;;) {
    const keyEnd = stringEnd(s, i);
    const isId = keyEnd - i === 4 ? textAt(s, i, '"id"') : s.slice(i, keyEnd).includes('\\') && JSON.parse(s.slice(i, keyEnd)) === 'id';
    const valueStart = skipSpace(s, skipSpace(s, keyEnd) + 1); // past the colon
    const end = valueEnd(s, valueStart);
    if (isId) text = s.slice(valueStart, end);
    i = skipSpace(s, end);
    if (s.charCodeAt(i) !== COMMA) return { text, end: i + 1 };
    i = skipSpace(s, i + 1);
  }
}

/** Index just past the value starting at `i`. */
function valueEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return stringEnd(s, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (;;) {
      const d = s.charCodeAt(i);
      if (d === QUOTE) {
        i = stringEnd(s, i);
        continue;
      }
      if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return i + 1;
      i++;
    }
  }
  // a number, true, false or null
  while (i < s.length && (isNumberChar(s.charCodeAt(i)) || (s.charCodeAt(i) >= 0x61 && s.charCodeAt(i) <= 0x7a))) i++;
  return i;
}

/** Index just past the string whose opening quote is at `i`. */
function stringEnd(s: string, i: number): number {
  let j = i + 1;
  for (;;) {
    j = s.indexOf('"', j);
    let escapes = 0;
    while (s.charCodeAt(j - 1 - escapes) === BACKSLASH) escapes++;
    if (escapes % 2 === 0) return j + 1;
    j++;
  }
}

function skipSpace(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** A character a JSON number can hold. */
function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d || c === 0x2b || c === 0x65 || c === 0x45;
}
