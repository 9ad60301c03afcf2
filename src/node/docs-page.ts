// The API docs page (generated/docs/index.html, built by `npm run docs`) as the GET routes the RPC
// server serves when --http.docs is on. The page (2 MB) is read once, on its first request: read at
// start-up it delayed a dev chain's first answer by ~5 ms for a page most starts never serve.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileRoute, type StaticRoute } from '../rpc/http-rules.ts';
import type { Logger } from '../util/logger.ts';

export const DOCS_PATHS = ['/', '/docs'] as const;
const PAGE = join('generated', 'docs', 'index.html');

/**
 * The page's path: found by walking up from this module, which runs from src/node/ (tsx) or from
 * the esbuild bundle in dist/ — both inside the package that holds generated/.
 */
export function docsPagePath(from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, PAGE))) return join(dir, PAGE);
    if (dirname(dir) === dir) return undefined;
  }
}

/** `/` and `/docs` → the page; undefined (and a warning) when the page has not been built. */
export function docsPageRoutes(log: Logger, path = docsPagePath()): ReadonlyMap<string, StaticRoute> | undefined {
  if (!path) {
    log.warn(`docs page not served: ${PAGE} not found (build it with npm run docs)`);
    return undefined;
  }
  const route = fileRoute('text/html; charset=utf-8', path);
  return new Map(DOCS_PATHS.map((p) => [p, route]));
}
