// generated/head-cached.ts: the methods openrpc.json marks `"x-cache": "head"` (a result that is a
// function of the params and the chain head). Its own small file because the RPC serving threads
// (src/rpc/rpc-thread.ts) read it and must not load the method table with its validators.
import type { Model } from './model.ts';
import { HEADER, str } from './text.ts';

export function emitHeadCached(model: Model): string {
  const names = model.methods.filter((m) => (m.raw as Record<string, unknown>)['x-cache'] === 'head').map((m) => m.name);
  return `${HEADER}

/**
 * Methods whose answer depends only on their params and the chain head (openrpc.json \`x-cache: head\`):
 * a repeated request may be answered from the answer made at the same head, unless it names \`pending\`.
 */
export const HEAD_CACHED_METHODS: ReadonlySet<string> = new Set([
${names.map((n) => `  ${str(n)},`).join('\n')}
]);
`;
}
