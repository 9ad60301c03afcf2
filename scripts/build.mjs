// Bundles the node into dist/chain-node.mjs with esbuild: one file loads in ~0.4 s where running
// the TypeScript sources through tsx takes ~1.4 s (measured; docs/architecture.md A1). Native
// modules and the USB stack stay external.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/chain-node.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  external: ['lmdb', 'secp256k1', 'keccak', '@ledgerhq/*', 'node-hid', 'usb'],
  // bundled CommonJS dependencies call require()
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});
