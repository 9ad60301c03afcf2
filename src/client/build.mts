// npm run build:sdk (and `npm pack` here, by prepack): the SDK package's dist/ from the generated
// client (generated/client/index.ts) and its runtime (src/client/): one ESM build (the ~40 param
// validators in a chunk of their own, loaded when `validate: true` asks for them), one CommonJS
// file, and the .d.ts of every module the entry's types reach. Its dependencies (@noble/hashes,
// @ethereumjs/rlp) are bundled in; `ws` stays an import, made only where the runtime has no
// WebSocket (Node 20). dist/ is build output, not committed.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Plugin } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const dist = join(here, 'dist');
const ENTRY = join(root, 'generated/client/index.ts');
/** Where the entry's declarations land: tsc keeps the repository's layout under dist/types. */
const TYPES_ENTRY = join(dist, 'types/generated/client/index.d.ts');

/**
 * The node's keccak (src/crypto/keccak.ts) loads a native addon through node:module; the SDK needs
 * none of it (only a system-state constant module imports it, for code the SDK never runs), and a
 * browser bundle cannot resolve node:module. The pure-JS @noble keccak stands in.
 */
const pureKeccak: Plugin = {
  name: 'pure-keccak',
  setup(b) {
    b.onResolve({ filter: /\/crypto\/keccak\.ts$/ }, () => ({ path: 'keccak', namespace: 'pure-keccak' }));
    b.onLoad({ filter: /.*/, namespace: 'pure-keccak' }, () => ({
      contents: "export { keccak_256 as keccak256 } from '@noble/hashes/sha3.js';",
      resolveDir: root,
    }));
  },
};

const common: BuildOptions = {
  entryPoints: { index: ENTRY },
  bundle: true,
  platform: 'neutral',
  mainFields: ['module', 'main'],
  target: 'es2022',
  external: ['ws'],
  plugins: [pureKeccak],
  legalComments: 'none',
  logLevel: 'warning',
};

async function buildSdk(): Promise<{ files: string[]; ms: number }> {
  const t0 = performance.now();
  rmSync(dist, { recursive: true, force: true });
  await Promise.all([
    build({ ...common, format: 'esm', splitting: true, outdir: join(dist, 'esm'), outExtension: { '.js': '.mjs' }, chunkNames: '[name]-[hash]' }),
    build({ ...common, format: 'cjs', outdir: join(dist, 'cjs'), outExtension: { '.js': '.cjs' } }),
  ]);
  emitDeclarations();
  const files = listFiles(dist).map((f) => relative(here, f));
  return { files, ms: Math.round(performance.now() - t0) };
}

/** tsc's declarations for the entry's module graph, made loadable from a package: `./x.ts` → `./x.js`, unreached files left out. */
function emitDeclarations(): void {
  const tmp = mkdtempSync(join(tmpdir(), 'sdk-types-'));
  try {
    const config = {
      extends: join(root, 'tsconfig.json'),
      compilerOptions: { noEmit: false, declaration: true, emitDeclarationOnly: true, outDir: join(tmp, 'out'), rootDir: root, lib: ['ES2023', 'DOM'], types: [] },
      files: [ENTRY],
      include: [],
    };
    writeFileSync(join(tmp, 'tsconfig.json'), JSON.stringify(config));
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(tmp, 'tsconfig.json')], { stdio: 'inherit' });
    const out = join(tmp, 'out');
    const entry = join(out, relative(join(dist, 'types'), TYPES_ENTRY));
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8').replace(/(from\s+'\.{1,2}\/[^']*)\.ts'/g, "$1.js'");
      const target = join(dist, 'types', relative(out, file));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text);
      for (const [, spec] of text.matchAll(/from\s+'(\.{1,2}\/[^']*)\.js'/g)) visit(resolve(dirname(file), spec + '.d.ts'));
    };
    visit(entry);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

buildSdk().then(({ files, ms }) => console.log(`sdk: ${files.length} files in ${relative(process.cwd(), dist) || '.'} in ${ms} ms`));
