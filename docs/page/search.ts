// The docs page's method filter: every whitespace-separated term of the query must occur (any
// case) in the method's name, summary, description, a parameter's name, its result's name or its
// origin (`venachain`, `ethereum`: docs/page/origin.ts).
// Pure, so the render test and a unit test can share it with the page.

import { originsOf } from './origin.ts';

export interface SearchableMethod {
  readonly name: string;
  readonly summary?: string;
  readonly description?: string;
  readonly params?: readonly unknown[];
  readonly result?: unknown;
  readonly tags?: readonly unknown[];
}

export function matchesQuery(m: SearchableMethod, query: string): boolean {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return true;
  const text = [m.name, m.summary ?? '', m.description ?? '', ...(m.params ?? []).map(nameOf), nameOf(m.result), ...originsOf(m)].join('\n').toLowerCase();
  return terms.every((t) => text.includes(t));
}

function nameOf(x: unknown): string {
  return x !== null && typeof x === 'object' && typeof (x as { name?: unknown }).name === 'string' ? (x as { name: string }).name : '';
}
