// chain-node launcher: scripts/build.mjs copies it to dist/chain-node.mjs (with BUNDLE_ID filled in).
// It runs the CommonJS bundle dist/chain-node.cjs through a V8 code cache, so that a start skips
// parsing and compiling 1.4 MB of JavaScript (~50 ms of the ~220 ms to the first answer, measured;
// A14). Node 20 has no compile cache for modules (module.enableCompileCache
// came in Node 22), hence vm.Script with cachedData, the way v8-compile-cache does it.
//
// The cache is written by the node itself, once, ~1 s after a start that found none (or one V8
// rejected), so it holds the functions start-up compiled; the build makes the first one. Its name
// carries the bundle's content hash, the V8 version, the architecture and any V8/Node flags, because
// V8 checks only the source's length (a rebuilt bundle of equal length would otherwise run stale
// bytecode). Every failure (no cache, a read-only install, a rejected cache) only means a slower start.
import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

/** sha-256 prefix of dist/chain-node.cjs, filled in by scripts/build.mjs */
const BUNDLE_ID = '__BUNDLE_ID__';
/** after this long the start-up code has been compiled; the cache is written then (off the start path) */
const WRITE_CACHE_AFTER_MS = 1000;

const bundle = fileURLToPath(new URL('./chain-node.cjs', import.meta.url));
if (!existsSync(bundle)) {
  process.stderr.write(`chain-node: ${bundle} is missing; build it with npm run build\n`);
  process.exit(1);
}
if (process.sourceMapsEnabled) {
  // --enable-source-maps: Node maps the stack traces of required files, not those of vm scripts
  // (required, the bundle calls itself: scripts/build.mjs, SELF_WRAPPED)
  createRequire(import.meta.url)(bundle);
} else {
  runWithCodeCache();
}

function runWithCodeCache() {
  const cacheTag = `${BUNDLE_ID}-${process.arch}-v8-${process.versions.v8}${flagsTag()}`.replace(/[^\w.-]/g, '_');
  const cacheFile = `${bundle}.${cacheTag}.v8cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // no cache yet: compiled from source, and the cache is written below
  }
  // The file is one function in CommonJS's wrapper signature (scripts/build.mjs, SELF_WRAPPED) and pure
  // ASCII, so it is compiled as read, as a one-byte string: no wrapper spliced on, no UTF-8 decoding.
  const script = new vm.Script(readFileSync(bundle, 'latin1'), {
    filename: bundle,
    cachedData,
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cachedData === undefined || script.cachedDataRejected) setTimeout(() => writeCache(script, cacheFile), WRITE_CACHE_AFTER_MS).unref();
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
}

function writeCache(script, cacheFile) {
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, cacheFile); // atomic: a node starting meanwhile reads the old file or the new one
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing was written (e.g. a read-only install): every start compiles from source
    }
  }
}

/** V8 rejects a cache made under other flags: runs with flags (e.g. --max-old-space-size) keep their own. */
function flagsTag() {
  const flags = process.execArgv.join(' ');
  if (!flags) return '';
  let h = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < flags.length; i++) h = Math.imul(h ^ flags.charCodeAt(i), 0x01000193) >>> 0;
  return `-flags-${h.toString(16)}`;
}
