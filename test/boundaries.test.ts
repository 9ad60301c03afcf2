// The layout's rules (scripts/boundaries.ts) hold on this repository, and a planted violation of
// each is reported with the file and the rule it breaks.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { check, readSources } from '../scripts/boundaries.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const repo = readSources(ROOT);

test('the repository keeps every boundary and has no cycle between rooms', () => {
  assert.ok(repo.size > 200, `read ${repo.size} sources`);
  assert.equal(check(repo), []);
});

const planted = (path: string, text: string) => check(new Map([...repo, [path, text]]));

test('the core importing the network, even a type, is refused', () => {
  const problems = planted('src/chain/planted.ts', "import type { NetworkHost } from '../p2p/host.ts';\n");
  assert.ok(problems.some((p) => p.startsWith('src/chain/planted.ts imports src/p2p/host.ts (type): the chain core never imports')), problems.join('\n'));
  assert.ok(problems.some((p) => p.startsWith('rooms import each other: ') && p.includes('src/chain → src/p2p')), problems.join('\n'));
});

test('the composition root loading the network statically is refused (N2)', () => {
  const problems = planted('src/node/planted.ts', "import { BlockSync } from '../p2p/sync.ts';\n");
  assert.ok(problems.some((p) => p.includes('only the composition root (src/node) loads the network, and loads it dynamically')), problems.join('\n'));
  assert.equal(planted('src/node/planted.ts', "const { BlockSync } = await import('../p2p/sync.ts');\n"), []);
});

test('p2p past its doors, iris past its ports, the SDK into the node, util into a room: each refused', () => {
  const cases: [string, string, string][] = [
    ['src/p2p/planted.ts', "import { decodeBlock } from '../chain/block-codec.ts';\n", 'src/p2p reaches the core only through its doors'],
    ['src/consensus/iris/planted.ts', "import { decodeBlock } from '../../chain/block-codec.ts';\n", 'the iris engine sees only its ports'],
    ['src/client/planted.ts', "import { Users } from '../exec/native/system-state.ts';\n", 'the SDK runtime (src/client) imports nothing of the node'],
    ['src/util/planted.ts', "import { ChainCore } from '../core/core.ts';\n", 'src/util (the logger among them) is a leaf'],
  ];
  for (const [path, text, rule] of cases) {
    const problems = planted(path, text);
    assert.ok(problems.some((p) => p.startsWith(`${path} imports`) && p.includes(rule)), `${path}: ${problems.join('\n')}`);
  }
});

test('the simulator reaching into the engine past its entry, ports and wire format is refused (I15)', () => {
  const problems = planted('src/iris-sim/planted.ts', "import { VoteGuard } from '../consensus/iris/vote-guard.ts';\n");
  assert.ok(problems.some((p) => p.startsWith('src/iris-sim/planted.ts imports src/consensus/iris/vote-guard.ts: the iris simulator')), problems.join('\n'));
  assert.equal(planted('src/iris-sim/planted.ts', "import { IrisEngine } from '../consensus/iris/engine.ts';\n"), []);
});

test('an import quoted in a comment is not an import', () => {
  assert.equal(planted('src/chain/planted.ts', "// import { x } from '../p2p/host.ts';\n/* import('../p2p/sync.ts') */\nexport const x = 1;\n"), []);
});

test("package.json's exports name files that exist", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string>; bin: Record<string, string> };
  for (const target of [...Object.values(pkg.exports), ...Object.values(pkg.bin)]) assert.ok(existsSync(join(ROOT, target)), `${target} does not exist`);
});

test.run();
