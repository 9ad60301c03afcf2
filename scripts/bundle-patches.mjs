// Edits the build makes to dependencies' code as it bundles them, each because it costs every
// start of the node and changes nothing the node can observe (A22). Each edit
// names the exact text it replaces: a dependency update that changes that text fails the build
// instead of silently bundling the code unedited (or edited wrongly). The sources and the tests run
// the dependencies as published; test/bundle.test.ts runs the edited bundle.
import { readFileSync } from 'node:fs';

/** file: the path inside node_modules; replace: [text, replacement] pairs; the comment says why */
const EDITS = [
  {
    file: '@ethereumjs/util/dist/esm/bytes.js',
    // A table of the BigInts 0…65,535, filled when the module loads, so that bytesToBigInt of one or
    // two bytes returns an existing BigInt instead of making one: 65,536 BigInts allocated and kept
    // alive cost every start ~30 ms here (young-generation growth and promotion of 2.5 MB; start-up
    // medians 303 → 272 ms). BigInts are values — a new one equals the table's — and making a small
    // one is an allocation of a few nanoseconds.
    replace: [
      ['for (let i = 0; i <= 256 * 256 - 1; i++) {\n    BIGINT_CACHE[i] = BigInt(i);\n}', ''],
      ['return BIGINT_CACHE[bytes[0]];', 'return BigInt(bytes[0]);'],
      ['return BIGINT_CACHE[bytes[0] * 256 + bytes[1]];', 'return BigInt(bytes[0] * 256 + bytes[1]);'],
    ],
  },
];

/**
 * `plugin` is the esbuild plugin that applies EDITS; after the builds, `unapplied()` lists the files
 * no build loaded (a dependency that moved the code elsewhere).
 */
export function bundlePatches() {
  const applied = new Set();
  const unapplied = () => EDITS.map((e) => e.file).filter((f) => !applied.has(f));
  const plugin = {
    name: 'chain-node-bundle-patches',
    setup(build) {
      for (const edit of EDITS) {
        const filter = new RegExp(`node_modules[\\\\/]${edit.file.split('/').map(escapeRegExp).join('[\\\\/]')}$`);
        build.onLoad({ filter }, (args) => {
          let text = readFileSync(args.path, 'utf8');
          for (const [from, to] of edit.replace) {
            if (!text.includes(from)) throw new Error(`scripts/bundle-patches.mjs: ${args.path} no longer contains ${JSON.stringify(from)}; review the edit for this version`);
            text = text.replace(from, to);
          }
          applied.add(edit.file);
          return { contents: text, loader: 'js' };
        });
      }
    },
  };
  return { plugin, unapplied };
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
