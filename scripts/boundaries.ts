// The layout's rules, checked on the import graph of src/ (decision T10). A room is a folder of
// src/ (src/consensus/iris is a room of its own; a file directly in src/ is an entry point, a room
// of one). Each rule names who may not import what, and why; `npm test` runs `check` on the repo.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One import of one of our files by another, paths relative to the repository root. */
export interface Edge {
  from: string;
  to: string;
  /** `import type …`: erased at run time */
  typeOnly: boolean;
  /** `await import(…)`: loaded when first needed */
  dynamic: boolean;
}

interface Rule {
  name: string;
  /** the importing files this rule is about */
  from: RegExp;
  /** whether this edge breaks the rule */
  breaks(edge: Edge): boolean;
}

const inside = (path: string, ...prefixes: string[]) => prefixes.some((p) => path === p || path.startsWith(p.endsWith('.ts') ? p : p + '/'));
const CORE = ['src/core', 'src/chain', 'src/exec', 'src/state', 'src/store', 'src/tx', 'src/txpool', 'src/consensus', 'src/crypto', 'src/codec', 'src/util'];

export const RULES: readonly Rule[] = [
  {
    name: 'only the composition root (src/node) loads the network, and loads it dynamically (N2)',
    from: /^src\//,
    breaks: (e) => inside(e.to, 'src/p2p') && !inside(e.from, 'src/p2p') && !(inside(e.from, 'src/node') && (e.dynamic || e.typeOnly)),
  },
  {
    name: 'src/p2p reaches the core only through its doors (src/core/chain-door.ts, src/core/network.ts); it may use the shared codecs',
    from: /^src\/p2p\//,
    breaks: (e) => !inside(e.to, 'src/p2p', 'src/util', 'src/crypto', 'src/codec', 'src/core/chain-door.ts', 'src/core/network.ts'),
  },
  {
    name: 'the iris engine sees only its ports (src/consensus/iris/ports.ts) and pure helpers',
    from: /^src\/consensus\/iris\//,
    breaks: (e) =>
      !inside(e.to, 'src/consensus/iris', 'src/util', 'src/crypto', 'src/consensus/seals.ts', 'src/consensus/consensus-meter.ts') &&
      !(e.from === 'src/consensus/iris/ports.ts' && e.typeOnly && inside(e.to, 'src/chain')) &&
      // the test-only lies (CHAIN_NODE_IRIS_TEST) forge blocks, which takes the block codec
      !(e.from === 'src/consensus/iris/test-modes.ts' && inside(e.to, 'src/chain')),
  },
  {
    name: 'the iris simulator (src/iris-sim) runs the engine through its entry, its ports and its wire format only (I15)',
    from: /^src\/iris-sim\//,
    breaks: (e) => inside(e.to, 'src/consensus/iris') && !inside(e.to, 'src/consensus/iris/engine.ts', 'src/consensus/iris/ports.ts', 'src/consensus/iris/messages.ts', 'src/consensus/iris/memory-log.ts'),
  },
  {
    name: 'the SDK runtime (src/client) imports nothing of the node: only src/codec, src/util and generated/',
    from: /^src\/client\//,
    breaks: (e) => !inside(e.to, 'src/client', 'src/codec', 'src/util', 'generated'),
  },
  {
    name: 'src/util (the logger among them) is a leaf every room may use',
    from: /^src\/util\//,
    breaks: (e) => !inside(e.to, 'src/util'),
  },
  {
    name: 'src/codec is shared by the node and the SDK: it imports only src/util',
    from: /^src\/codec\//,
    breaks: (e) => !inside(e.to, 'src/codec', 'src/util'),
  },
  {
    name: 'the chain core never imports the RPC layer, the node or the network',
    from: new RegExp(`^(${CORE.join('|')})/`),
    breaks: (e) => inside(e.to, 'src/api', 'src/rpc', 'src/node', 'src/p2p', 'src/filters', 'src/admin', 'src/network'),
  },
];

const IMPORT = /(?:^|\n)[ \t]*(?:import|export)[ \t]+(type[ \t]+)?(?:[^'";]*?[ \t\n]from[ \t]+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The imports of our own files in `sources` (path → text, paths relative to the root). */
export function edgesOf(sources: ReadonlyMap<string, string>): Edge[] {
  const edges: Edge[] = [];
  for (const [from, text] of sources) {
    // comments may quote imports: only code counts
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
    for (const m of code.matchAll(IMPORT)) {
      const spec = m[2] ?? m[3]!;
      if (!spec.startsWith('.')) continue;
      const to = join(dirname(from), spec);
      edges.push({ from, to, typeOnly: m[1] !== undefined, dynamic: m[3] !== undefined });
    }
  }
  return edges;
}

/** The room a file belongs to. */
export function roomOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] !== 'src') return parts[0]!;
  if (parts.length === 2) return path;
  if (parts[1] === 'consensus' && parts[2] === 'iris' && parts.length > 3) return 'src/consensus/iris';
  return `src/${parts[1]}`;
}

/** Cycles between rooms: each as the rooms in order, with one file edge per step. */
export function roomCycles(edges: readonly Edge[]): string[][] {
  const out = new Map<string, Map<string, Edge>>();
  for (const e of edges) {
    const a = roomOf(e.from), b = roomOf(e.to);
    if (a === b || !a.startsWith('src') || !b.startsWith('src')) continue;
    if (!out.has(a)) out.set(a, new Map());
    if (!out.get(a)!.has(b)) out.get(a)!.set(b, e);
  }
  // Tarjan's strongly connected components: a component of more than one room is a cycle
  let index = 0;
  const idx = new Map<string, number>(), low = new Map<string, number>(), stack: string[] = [], on = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index); low.set(v, index++); stack.push(v); on.add(v);
    for (const w of out.get(v)?.keys() ?? []) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do { w = stack.pop()!; on.delete(w); c.push(w); } while (w !== v);
      if (c.length > 1) components.push(c.sort());
    }
  };
  for (const v of out.keys()) if (!idx.has(v)) visit(v);
  return components.map((c) => {
    const steps: string[] = [];
    for (const a of c) for (const [b, e] of out.get(a) ?? []) if (c.includes(b)) steps.push(`${a} → ${b} (${e.from} imports ${e.to})`);
    return steps;
  });
}

/** Every broken rule and every cycle, one line each; empty when the layout holds. */
export function check(sources: ReadonlyMap<string, string>): string[] {
  const edges = edgesOf(sources);
  const problems: string[] = [];
  for (const rule of RULES) {
    for (const e of edges) if (rule.from.test(e.from) && rule.breaks(e)) problems.push(`${e.from} imports ${e.to}${e.typeOnly ? ' (type)' : ''}: ${rule.name}`);
  }
  for (const steps of roomCycles(edges)) problems.push(`rooms import each other: ${steps.join('; ')}`);
  return problems;
}

/** The TypeScript sources of src/ under `root`, by path relative to it. */
export function readSources(root: string): Map<string, string> {
  const sources = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.m?ts$/.test(name)) sources.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  walk(join(root, 'src'));
  return sources;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const problems = check(readSources(resolve(dirname(new URL(import.meta.url).pathname), '..')));
  for (const p of problems) console.error(`boundaries: ${p}`);
  if (problems.length > 0) process.exit(1);
  console.log('boundaries: every rule holds, no rooms import each other');
}
