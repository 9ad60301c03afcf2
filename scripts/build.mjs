// Bundles the node with esbuild into dist/chain-node.cjs, run by the launcher dist/chain-node.mjs
// (scripts/bundle-launcher.mjs) through a V8 code cache. One file loads far faster than the
// TypeScript sources through tsx (A1), and the cache skips compiling it (A14).
// Native modules and the USB stack stay external; so does uWebSockets.js, whose binary
// src/rpc/uws-load.ts requires by its path inside node_modules at run time. The node's bundle is one
// self-calling function the launcher compiles as read (SELF_WRAPPED below), and every bundle gets
// the dependency edits of scripts/bundle-patches.mjs (A22).
//
//   node scripts/build.mjs [--outdir dist] [--no-warm] [--if-stale]
//
// The build ends by starting the bundled node once on a throw-away dev chain, so that the code
// cache exists before the first real start (--no-warm skips that; the node then writes it itself).
// --if-stale (npm start) does nothing when the outdir holds a build of the same inputs: every file
// esbuild read, with the size and modification time it had, this script, the launcher template and
// the dependency edits.
// A build takes ~2 s here; npm start's restart went from ~3.4 s to its first answer to well under one.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { bundlePatches } from './bundle-patches.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({ options: { outdir: { type: 'string', default: 'dist' }, 'no-warm': { type: 'boolean', default: false }, 'if-stale': { type: 'boolean', default: false } } });
const outdir = resolve(root, opts.outdir);
const bundle = join(outdir, 'chain-node.cjs');
const OUTPUTS = ['chain-node.cjs', 'rpc-thread.cjs', 'recovery-thread.cjs', 'precompile-thread.cjs', 'wasm-thread.cjs', 'chain-node.mjs'];
/** what a build was made from (written last, so an interrupted build is never taken as current) */
const inputsFile = join(outdir, 'build-inputs.json');
/** this script, the launcher template, the dependency edits and esbuild's version: a change to any of them changes every output */
const recipe = createHash('sha256')
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .update(readFileSync(join(root, 'scripts', 'bundle-launcher.mjs')))
  .update(readFileSync(join(root, 'scripts', 'bundle-patches.mjs')))
  .update(JSON.parse(readFileSync(createRequire(import.meta.url).resolve('esbuild/package.json'), 'utf8')).version)
  .digest('hex');

if (opts['if-stale'] && isCurrent()) process.exit(0);
// loaded only to build: an up-to-date check stays a few stats
const { build } = await import('esbuild');

// dependency edits that make every start cheaper (scripts/bundle-patches.mjs)
const patches = bundlePatches();
// "use strict" first, so the bundle keeps the semantics it had as ES modules however it is loaded
const BANNER = '"use strict";var __bundleUrl = require("node:url").pathToFileURL(__filename).href;';
// The node's bundle is one function expression in CommonJS's wrapper signature, so that the launcher
// compiles the file as it is read — one string, not the file spliced into a wrapper, which V8 then
// copies into one (~5 ms a start here). require() of the file (the launcher with
// --enable-source-maps) calls that function with the module's own arguments; as a script, where
// `arguments` is not defined, the file's value is the function itself.
const SELF_WRAPPED = ['(typeof arguments === "object" ? (f) => f.apply(exports, arguments) : (f) => f)(function (exports, require, module, __filename, __dirname) {' + BANNER, '\n});'];
// the node, and the modules of its worker threads (src/util/module-worker.ts starts them from next
// to the bundle): RPC serving threads, sender-recovery threads, precompile threads and wasm threads; the same
// settings for all
const bundleOptions = (entry, outfile, banner = BANNER, footer = '') => ({
  absWorkingDir: root,
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  // CommonJS, because only a script (not an ES module) can be compiled with a V8 code cache on Node 20
  format: 'cjs',
  target: 'node20',
  sourcemap: 'linked',
  // no comments, hence pure ASCII (strings are escaped anyway): read as a one-byte string, 40% smaller.
  // Names stay, so stack traces stay readable (the source map has the lines).
  minifyWhitespace: true,
  minifySyntax: true,
  external: ['lmdb', 'secp256k1', 'keccak', '@ledgerhq/*', 'node-hid', 'usb', '@trufflesuite/uws-js-unofficial'],
  // the sources are ES modules: import.meta.url is the bundle's own URL
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: banner },
  footer: { js: footer },
  logLevel: 'warning',
  metafile: true,
  plugins: [patches.plugin],
});
rmSync(inputsFile, { force: true });
const started = Date.now();
const results = await Promise.all([
  build(bundleOptions('src/cli.ts', bundle, ...SELF_WRAPPED)),
  build(bundleOptions('src/rpc/rpc-thread.ts', join(outdir, 'rpc-thread.cjs'))),
  build(bundleOptions('src/tx/recovery-thread.ts', join(outdir, 'recovery-thread.cjs'))),
  build(bundleOptions('src/exec/precompile-thread.ts', join(outdir, 'precompile-thread.cjs'))),
  build(bundleOptions('src/exec/wasm/wasm-thread.ts', join(outdir, 'wasm-thread.cjs'))),
]);

// the launcher reads the bundle as one-byte text (esbuild escapes every other character by default)
if (readFileSync(bundle).some((byte) => byte > 0x7f)) throw new Error(`build: ${bundle} is not pure ASCII`);
if (patches.unapplied().length) throw new Error(`build: no bundle loaded ${patches.unapplied().join(', ')}; review scripts/bundle-patches.mjs`);

// the launcher names its code cache after the bundle's content; caches of earlier builds go, and so
// does the source map of the ES-module bundle builds before A14 wrote
const bundleId = createHash('sha256').update(readFileSync(bundle)).digest('hex').slice(0, 16);
for (const f of readdirSync(outdir)) {
  if (f.endsWith('.v8cache') || f.endsWith('.v8cache.tmp') || f === 'chain-node.mjs.map') rmSync(join(outdir, f), { force: true });
}
const launcher = readFileSync(join(root, 'scripts', 'bundle-launcher.mjs'), 'utf8');
if (!launcher.includes("'__BUNDLE_ID__'")) throw new Error('scripts/bundle-launcher.mjs lost its BUNDLE_ID placeholder');
writeFileSync(join(outdir, 'chain-node.mjs'), launcher.replace("'__BUNDLE_ID__'", `'${bundleId}'`));
const inputs = {};
for (const r of results) {
  for (const path of Object.keys(r.metafile.inputs)) {
    // a file changed while esbuild ran may be in the bundle as it was before: recorded as unknown,
    // so the next --if-stale builds again (50 ms for the file system's coarse clock)
    const now = stamp(join(root, path));
    inputs[path] = now !== null && now[1] < started - 50 ? now : null;
  }
}
writeFileSync(inputsFile, JSON.stringify({ recipe, inputs }));

if (!opts['no-warm']) await warmCodeCache();

/** Starts the bundled node on a temporary dev chain until it has written its code cache, then stops it. */
async function warmCodeCache() {
  const datadir = mkdtempSync(join(tmpdir(), 'chain-node-build-'));
  const child = spawn(process.execPath, [join(outdir, 'chain-node.mjs'), '--datadir', datadir, '--http.port', '0', '--p2p.port', '0', '--verbosity', '1'], { stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', r));
  const deadline = Date.now() + 20_000;
  const hasCache = () => readdirSync(outdir).some((f) => f.endsWith('.v8cache'));
  try {
    while (!hasCache() && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (!hasCache()) process.stderr.write('build: the code cache was not written (the node writes it on its first start)\n');
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(datadir, { recursive: true, force: true });
  }
}

/** size and modification time of a file, or null when it is gone */
function stamp(path) {
  try {
    const st = statSync(path);
    return [st.size, st.mtimeMs];
  } catch {
    return null;
  }
}

/** The outdir holds every output of a build whose recipe and inputs are what they are now. */
function isCurrent() {
  let made;
  try {
    made = JSON.parse(readFileSync(inputsFile, 'utf8'));
  } catch {
    return false;
  }
  if (made.recipe !== recipe || !OUTPUTS.every((f) => existsSync(join(outdir, f)))) return false;
  for (const [path, was] of Object.entries(made.inputs)) {
    const now = stamp(join(root, path));
    if (now === null || was === null || now[0] !== was[0] || now[1] !== was[1]) return false;
  }
  return true;
}
