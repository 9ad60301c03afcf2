// Where a method comes from, as its origin tag in openrpc.json says: Venachain 1.x's method set,
// which the node answers as Venachain does, or a standard Ethereum method beyond it
// (ethereum/execution-apis, geth), or one of this node's own (consensus evidence). Codegen requires one per method; the docs page shows it.
// Pure, so codegen, the page and its tests share it.

export const ORIGINS = {
  venachain: 'Venachain',
  ethereum: 'Ethereum',
  'chain-node': 'chain-node',
} as const;

export type Origin = keyof typeof ORIGINS;

/** The origin tags a method carries (a well-formed document has exactly one). */
export function originsOf(m: { readonly tags?: readonly unknown[] }): Origin[] {
  return (m.tags ?? []).flatMap((t) => {
    const name = t !== null && typeof t === 'object' ? (t as { name?: unknown }).name : undefined;
    return typeof name === 'string' && Object.hasOwn(ORIGINS, name) ? [name as Origin] : [];
  });
}
