// npm run docs: openrpc.json → generated/docs/index.html, one static page that needs no network.
// The document is dereferenced (docs-react renders schemas, not `$ref`s) and embedded as JSON; the
// page script (entry.tsx with React, MUI and docs-react, and the param validators for "Try it") is
// bundled by esbuild and inlined, and a Content-Security-Policy forbids the page any request
// (scripts, styles, fonts, images) but the calls "Try it" makes to the node serving it.
//   --check   write nothing; exit 1 if the committed page differs from a fresh build
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { dereferenceDocument } from '@open-rpc/schema-utils-js';

const root = new URL('../../', import.meta.url);
export const DOCS_PAGE = fileURLToPath(new URL('generated/docs/index.html', root));
const ENTRY = fileURLToPath(new URL('docs/page/entry.tsx', root));
const DOCS_CSS = fileURLToPath(new URL('node_modules/@open-rpc/docs-react/dist/docs-react.css', root));

/**
 * Nothing may be fetched: inline script and styles only, images and fonts as data: URLs. The one
 * connection allowed is to the node serving the page ("Try it": HTTP and WebSocket; CSP 3's 'self'
 * covers ws: on the same host and port).
 */
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src 'self'";

/**
 * docs-react renders every Markdown code span through its syntax highlighter as a block; inside a
 * paragraph or list item it should read as inline code.
 */
const INLINE_CODE = ':is(p,li,td)>div:has(>code){display:inline!important;padding:1px 4px!important;margin:0!important;white-space:normal!important}';

/** The page for `doc` (the parsed openrpc.json). Deterministic: same input, same bytes. */
export async function buildDocsPage(doc: unknown): Promise<string> {
  // dereferenceDocument mutates what it is given.
  const resolved = await dereferenceDocument(structuredClone(doc) as Parameters<typeof dereferenceDocument>[0]);
  const info = (doc as { info: { title: string; version: string } }).info;
  const bundle = await build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    jsx: 'automatic',
    legalComments: 'none',
    charset: 'utf8',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const js = bundle.outputFiles[0]!.text;
  const css = readFileSync(DOCS_CSS, 'utf8');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(`${info.title} ${info.version}`)}</title>`,
    `<style>body{margin:0}${INLINE_CODE}${css}</style>`,
    '</head>',
    '<body>',
    '<noscript>This page needs JavaScript; the interface itself is openrpc.json (also served by rpc.discover).</noscript>',
    '<div id="root"></div>',
    `<script type="application/json" id="openrpc-document">${inlineSafe(JSON.stringify(resolved))}</script>`,
    `<script>${inlineSafe(js)}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Text placed inside <script> must not close it: `</script` and `<!--` are broken up. */
function inlineSafe(text: string): string {
  return text.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  const started = performance.now();
  const doc = JSON.parse(readFileSync(new URL('openrpc.json', root), 'utf8')) as unknown;
  const html = await buildDocsPage(doc);
  const shown = relative(process.cwd(), DOCS_PAGE);
  const current = existsSync(DOCS_PAGE) ? readFileSync(DOCS_PAGE, 'utf8') : undefined;
  const ms = Math.round(performance.now() - started);
  if (values.check) {
    if (current === html) {
      console.log(`docs: ${shown} is up to date (${ms} ms)`);
      return 0;
    }
    console.error(`docs: ${shown} is stale (run npm run docs)`);
    return 1;
  }
  mkdirSync(dirname(DOCS_PAGE), { recursive: true });
  if (current !== html) writeFileSync(DOCS_PAGE, html);
  console.log(`docs: ${shown} (${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB, ${current === html ? 'unchanged' : 'written'}) in ${ms} ms`);
  return 0;
}

// Run as a script (not when a test imports buildDocsPage). No top-level await: uvu loads tests as CJS.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().then((code) => (process.exitCode = code));
}
