// The house rules of the docs: the README and the architecture page stay short, every decision a
// source file cites by code ("(A17)", "N3") has its file in docs/decisions/, no comment cites a
// document outside the repository ("DESIGN D6"), and every relative link of the docs points to a
// file (and heading) that exists. Each check runs on the repository and on a small tree with the
// violation planted, so a check that cannot fail fails here.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const repo = fileURLToPath(new URL('..', import.meta.url));
const README_MAX = 25_000;
const ARCHITECTURE_MAX = 40_000;
const DECISION_MAX = 2_048;
/** where source files cite decisions */
const CODE_DIRS = ['src', 'test', 'bench', 'scripts', 'codegen'];
const SOURCE = /\.(ts|mts|cts|tsx|js|mjs|cjs)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'results', 'fixtures', 'peers']);
/** the decision series: a letter, then the number */
const CITED = /(?<![\w.\-/])([APKFCSENGIOWXDT])(\d{1,2})(?![\w])/g;
/** tokens of that form that are not decisions: wasm value types */
const NOT_DECISIONS = new Set(['F32', 'F64', 'I32', 'I64']);

function files(dir: string, keep: (path: string) => boolean): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of entries) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!SKIP_DIRS.has(name) && !name.startsWith('.')) out.push(...files(path, keep));
    } else if (keep(path)) out.push(path);
  }
  return out;
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** README.md and docs/architecture.md within their budgets. */
function sizeProblems(root: string): string[] {
  const out: string[] = [];
  for (const [path, max] of [['README.md', README_MAX], ['docs/architecture.md', ARCHITECTURE_MAX]] as const) {
    const bytes = Buffer.byteLength(readFileSync(join(root, path), 'utf8'));
    if (bytes > max) out.push(`${path} is ${bytes} bytes, over its ${max}: move depth to a page in docs/`);
  }
  return out;
}

/** The codes that have a decision file (docs/decisions/<CODE>-<slug>.md). */
function decisionCodes(root: string): Set<string> {
  const dir = join(root, 'docs/decisions');
  return new Set(readdirSync(dir).map((f) => /^([A-Z]\d{1,2})-[a-z0-9-]+\.md$/.exec(f)?.[1]).filter((c): c is string => !!c));
}

/** Every decision code a source file cites resolves to a file in docs/decisions/. */
function citationProblems(root: string): string[] {
  const known = decisionCodes(root);
  const out: string[] = [];
  for (const dir of CODE_DIRS) {
    for (const path of files(join(root, dir), (p) => SOURCE.test(p))) {
      const text = readFileSync(path, 'utf8');
      for (const m of text.matchAll(CITED)) {
        const code = m[1]! + String(Number(m[2]));
        if (m[2]!.startsWith('0') || NOT_DECISIONS.has(m[0]) || known.has(code)) continue;
        out.push(`${relative(root, path)}:${lineOf(text, m.index!)} cites ${m[0]}, which has no file in docs/decisions/`);
      }
    }
  }
  return out;
}

/** No source comment cites the design brief, a document outside the repository. */
function outsideDocumentProblems(root: string): string[] {
  const out: string[] = [];
  for (const path of files(join(root, 'src'), (p) => SOURCE.test(p))) {
    const text = readFileSync(path, 'utf8');
    for (const m of text.matchAll(/DESIGN D[0-9]/g)) out.push(`${relative(root, path)}:${lineOf(text, m.index!)} cites "${m[0]}": cite the decision file (D6) or say the reason`);
  }
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

function anchors(text: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const h = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!h) continue;
    const s = slug(h[1]!);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n === 0 ? s : `${s}-${n}`);
  }
  return out;
}

/** The markdown files whose links are checked: README.md, docs/*.md, docs/decisions/*.md. */
function docFiles(root: string): string[] {
  const docs = (dir: string) => {
    try {
      return readdirSync(join(root, dir)).filter((f) => f.endsWith('.md')).map((f) => join(root, dir, f));
    } catch {
      return [];
    }
  };
  return [join(root, 'README.md'), ...docs('docs'), ...docs('docs/decisions')];
}

/** Every relative link in those files points to a file that exists, and to a heading it has. */
function linkProblems(root: string): string[] {
  const out: string[] = [];
  for (const path of docFiles(root)) {
    // links inside code are text, not links
    const text = readFileSync(path, 'utf8').replace(/```[\s\S]*?```/g, (b) => b.replace(/[^\n]/g, ' ')).replace(/`[^`\n]*`/g, (c) => ' '.repeat(c.length));
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [file, anchor] = target.split('#', 2) as [string, string | undefined];
      const to = file ? resolve(dirname(path), file) : path;
      const where = `${relative(root, path)}:${lineOf(text, m.index!)}`;
      let isFile: boolean;
      try {
        isFile = statSync(to).isFile();
      } catch {
        out.push(`${where} links to ${target}: no such file`);
        continue;
      }
      if (anchor && isFile && to.endsWith('.md') && !anchors(readFileSync(to, 'utf8')).has(anchor)) out.push(`${where} links to ${target}: no such heading`);
    }
  }
  return out;
}

/** Each decision is one short file in the ADR shape, and the index lists it. */
function decisionFileProblems(root: string): string[] {
  const dir = join(root, 'docs/decisions');
  const index = readFileSync(join(dir, 'README.md'), 'utf8');
  const out: string[] = [];
  for (const f of readdirSync(dir)) {
    if (f === 'README.md') continue;
    const m = /^([A-Z]\d{1,2})-[a-z0-9-]+\.md$/.exec(f);
    if (!m) {
      out.push(`docs/decisions/${f}: not named <CODE>-<slug>.md`);
      continue;
    }
    const text = readFileSync(join(dir, f), 'utf8');
    const [title, status] = text.split('\n');
    if (!title?.startsWith(`# ${m[1]}. `)) out.push(`docs/decisions/${f}: the first line is not "# ${m[1]}. <title>"`);
    if (!status?.startsWith('Status: ')) out.push(`docs/decisions/${f}: the second line is not "Status: …"`);
    for (const h of ['## Context', '## Decision']) if (!text.includes(`\n${h}\n`)) out.push(`docs/decisions/${f}: no "${h}" section`);
    if (Buffer.byteLength(text) > DECISION_MAX) out.push(`docs/decisions/${f}: ${Buffer.byteLength(text)} bytes; condense it, a long measurement goes to bench/results/`);
    if (!index.includes(`](${f})`)) out.push(`docs/decisions/README.md does not list ${f}`);
  }
  return out;
}

const CHECKS: [string, (root: string) => string[]][] = [
  ['README.md ≤ 25,000 bytes and docs/architecture.md ≤ 40,000', sizeProblems],
  ['every decision code cited in src/, test/, bench/, scripts/ and codegen/ has a file in docs/decisions/', citationProblems],
  ['no source comment cites "DESIGN Dn", a document outside the repository', outsideDocumentProblems],
  ['every relative link in README.md and docs/ points to a file and heading that exist', linkProblems],
  ['every decision is a file in the ADR shape, listed in the index', decisionFileProblems],
];
for (const [name, check] of CHECKS) {
  test(name, () => {
    const problems = check(repo);
    assert.equal(problems, [], `\n  ${problems.join('\n  ')}`);
  });
}

test('slug follows GitHub: punctuation dropped, spaces to hyphens', () => {
  assert.is(slug('Peers, admission and sync'), 'peers-admission-and-sync');
  assert.is(slug('`npm run network`: a local network in one command'), 'npm-run-network-a-local-network-in-one-command');
  assert.is(slug('A — The design brief (the decisions)'), 'a--the-design-brief-the-decisions');
  assert.is(slug("Standard Ethereum methods beyond Venachain's"), 'standard-ethereum-methods-beyond-venachains');
});

test('each check finds its violation planted in a small tree', () => {
  const root = mkdtempSync(join(tmpdir(), 'docs-house-'));
  try {
    const put = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    put('docs/decisions/A1-bundle.md', '# A1. Bundle\nStatus: accepted, 2026-11-22 (issue 8)\n\n## Context\nx\n\n## Decision\ny\n');
    put('docs/decisions/README.md', '# Decisions\n\n| [A1](A1-bundle.md) | Bundle | y |\n');
    put('docs/architecture.md', '# Architecture\n\n## The picture\n\nSee [the README](../README.md#quick-start).\n');
    put('README.md', '# x\n\n## Quick start\n\n[arch](docs/architecture.md#the-picture) and [A1](docs/decisions/A1-bundle.md)\n');
    put('src/a.ts', '// runs the bundle (A1); i32 and F64 are wasm types, clang -O2 a flag\nexport const a = 1;\n');
    for (const [name, check] of CHECKS) assert.equal(check(root), [], `${name}: on the clean tree`);

    put('README.md', `# x\n\n## Quick start\n\n${'a'.repeat(README_MAX)}\n`);
    assert.match(sizeProblems(root).join('\n'), /README\.md is \d+ bytes/);
    put('README.md', '# x\n\n## Quick start\n');
    put('docs/architecture.md', `# Architecture\n\n## The picture\n\n${'a'.repeat(ARCHITECTURE_MAX)}\n`);
    assert.match(sizeProblems(root).join('\n'), /docs\/architecture\.md is \d+ bytes/);
    put('docs/architecture.md', '# Architecture\n\n## The picture\n');

    put('src/b.ts', '// the head cache (A19) keeps answers\nexport const b = 2;\n');
    assert.equal(citationProblems(root), ['src/b.ts:1 cites A19, which has no file in docs/decisions/']);
    put('src/b.ts', '// the bundle (A1)\n');

    put('src/c.ts', '// exact integers (DESIGN D6)\n');
    assert.equal(outsideDocumentProblems(root), ['src/c.ts:1 cites "DESIGN D6": cite the decision file (D6) or say the reason']);
    put('src/c.ts', '// exact integers\n');

    put('README.md', '# x\n\n## Quick start\n\n[gone](docs/gone.md) [heading](docs/architecture.md#no-such) `[code](not/a/link.md)`\n');
    assert.equal(linkProblems(root), ['README.md:5 links to docs/gone.md: no such file', 'README.md:5 links to docs/architecture.md#no-such: no such heading']);
    put('README.md', '# x\n\n## Quick start\n');

    put('docs/decisions/B2-thing.md', '# B2 Thing\n\n## Decision\nz\n');
    assert.equal(decisionFileProblems(root), [
      'docs/decisions/B2-thing.md: the first line is not "# B2. <title>"',
      'docs/decisions/B2-thing.md: the second line is not "Status: …"',
      'docs/decisions/B2-thing.md: no "## Context" section',
      'docs/decisions/README.md does not list B2-thing.md',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
