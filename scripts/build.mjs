// Bundles the node with esbuild into dist/chain-node.cjs, run by the launcher dist/chain-node.mjs
// (scripts/bundle-launcher.mjs) through a V8 code cache. One file loads far faster than the
// TypeScript sources through tsx (docs/architecture.md A1), and the cache skips compiling it (A14).
// Native modules and the USB stack stay external; so does uWebSockets.js, whose binary
// src/rpc/uws-load.ts requires by its path inside node_modules at run time.
//
//   node scripts/build.mjs [--outdir dist] [--no-warm]
//
// The build ends by starting the bundled node once on a throw-away dev chain, so that the code
// cache exists before the first real start (--no-warm skips that; the node then writes it itself).
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({ options: { outdir: { type: 'string', default: 'dist' }, 'no-warm': { type: 'boolean', default: false } } });
const outdir = resolve(root, opts.outdir);
const bundle = join(outdir, 'chain-node.cjs');

// the node, and the modules of its worker threads (src/util/module-worker.ts starts them from next
// to the bundle): RPC serving threads and sender-recovery threads; the same settings for all
const bundleOptions = (entry, outfile) => ({
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
  // "use strict" first, so the bundle keeps the semantics it had as ES modules however it is loaded
  banner: { js: '"use strict";var __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: 'warning',
});
await Promise.all([
  build(bundleOptions('src/cli.ts', bundle)),
  build(bundleOptions('src/rpc/rpc-thread.ts', join(outdir, 'rpc-thread.cjs'))),
  build(bundleOptions('src/crypto/recovery-thread.ts', join(outdir, 'recovery-thread.cjs'))),
]);

// the launcher names its code cache after the bundle's content; caches of earlier builds go, and so
// does the source map of the ES-module bundle builds before A14 wrote
const bundleId = createHash('sha256').update(readFileSync(bundle)).digest('hex').slice(0, 16);
for (const f of readdirSync(outdir)) {
  if (f.endsWith('.v8cache') || f.endsWith('.v8cache.tmp') || f === 'chain-node.mjs.map') rmSync(join(outdir, f), { force: true });
}
const launcher = readFileSync(join(root, 'scripts', 'bundle-launcher.mjs'), 'utf8');
if (!launcher.includes("'__BUNDLE_ID__'")) throw new Error('scripts/bundle-launcher.mjs lost its BUNDLE_ID placeholder');
writeFileSync(join(outdir, 'chain-node.mjs'), launcher.replace("'__BUNDLE_ID__'", `'${bundleId}'`));

if (!opts['no-warm']) await warmCodeCache();

/** Starts the bundled node on a temporary dev chain until it has written its code cache, then stops it. */
async function warmCodeCache() {
  const datadir = mkdtempSync(join(tmpdir(), 'chain-node-build-'));
  const child = spawn(process.execPath, [join(outdir, 'chain-node.mjs'), '--datadir', datadir, '--http.port', '0', '--verbosity', '1'], { stdio: 'ignore' });
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
