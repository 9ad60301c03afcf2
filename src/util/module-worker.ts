// Starts a worker thread on one of our modules, wherever the node runs from. The bundle
// (scripts/build.mjs) builds each worker module as its own file next to chain-node.cjs; from
// source (tests, npm run start:dev) the module is TypeScript, so tsx's loader is registered in the
// thread before the module is imported.
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * `source`: the module's TypeScript file, as the caller names it (`new URL('./x-thread.ts',
 * import.meta.url)`); in the bundle its sibling `x-thread.cjs` runs instead.
 */
export function startModuleWorker(source: URL, workerData?: unknown): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) {
    const file = source.pathname.slice(source.pathname.lastIndexOf('/') + 1).replace(/\.ts$/, '.cjs');
    return new Worker(new URL(`./${file}`, here), { workerData });
  }
  // tsx's ES-module API is found like this process found tsx (not by `require`, whose entry is CommonJS)
  const tsx = pathToFileURL(createRequire(here).resolve('tsx/esm/api').replace(/index\.cjs$/, 'index.mjs')).href;
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(source.href)}); })`;
  return new Worker(code, { eval: true, workerData });
}
