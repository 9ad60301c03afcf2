// npm run codegen: openrpc.json → generated/. Exits 1 with one line per problem on a spec error.
//   --in <file>   document to read (default: openrpc.json at the repo root)
//   --out <dir>   directory to write (default: generated/)
//   --check       write nothing; exit 1 if a generated file is missing or stale
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { generate } from './generate.ts';
import { CodegenError, readDocument } from './load.ts';
import { buildDocsPage } from '../docs/page/build.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

async function main(): Promise<number> {
  const started = performance.now();
  const { values } = parseArgs({
    options: { in: { type: 'string' }, out: { type: 'string' }, check: { type: 'boolean', default: false } },
  });
  const input = resolve(values.in ?? join(root, 'openrpc.json'));
  const outDir = resolve(values.out ?? join(root, 'generated'));
  let result;
  try {
    result = generate(readDocument(input));
  } catch (e) {
    if (!(e instanceof CodegenError)) throw e;
    for (const p of e.problems) console.error(`codegen: ${p}`);
    console.error(`codegen: ${e.problems.length} problem(s) in ${relative(process.cwd(), input) || input}; nothing written`);
    return 1;
  }
  const stale: string[] = [];
  let written = 0;
  mkdirSync(outDir, { recursive: true });
  const put = (name: string, text: string): void => {
    const path = join(outDir, name);
    const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (current === text) return;
    if (values.check) {
      stale.push(relative(process.cwd(), path));
    } else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      written++;
    }
  };
  for (const [name, text] of Object.entries(result.files)) put(name, text);
  // The docs page is built from the same document: an esbuild bundle, ~0.5–1 s, cheap enough for
  // generated/ to stay complete under the one freshness check (npm test). It bundles generated
  // files ("Try it" checks params with generated/client/param-checks.ts): built after they are written.
  put('docs/index.html', await buildDocsPage(result.model.doc));
  if (stale.length > 0) {
    for (const s of stale) console.error(`codegen: ${s} is stale (run npm run codegen)`);
    return 1;
  }
  // Smoke test: the emitted validators load under plain Node ESM (a child process without tsx)
  // and export every name the .d.ts declares.
  const declared = [...result.files['validators.d.ts']!.matchAll(/^export declare const (\w+)/gm)].map((m) => m[1]!);
  const probe =
    `const m = await import(${JSON.stringify(pathToFileURL(join(outDir, 'validators.js')).href)});` +
    `const missing = ${JSON.stringify(declared)}.filter((n) => typeof m[n] !== 'function');` +
    `if (missing.length) { console.error('missing exports ' + missing.slice(0, 5).join(', ')); process.exit(1); }`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  if (run.status !== 0) {
    const why = (run.stderr || run.error?.message || 'unknown error').trim().split('\n').find((l) => /Error|missing/.test(l)) ?? run.stderr.trim();
    console.error(`codegen: ${relative(process.cwd(), join(outDir, 'validators.js'))} does not load under Node ESM: ${why}`);
    return 1;
  }
  const { methods, schemas } = result.model;
  const ms = Math.round(performance.now() - started);
  console.log(
    `codegen: ${methods.length} methods, ${schemas.length} schemas, ${result.validators} distinct validators → ` +
      `${relative(process.cwd(), outDir) || '.'}/ (${values.check ? 'up to date' : `${written} file(s) changed`}) in ${ms} ms`,
  );
  return 0;
}

process.exitCode = await main();
