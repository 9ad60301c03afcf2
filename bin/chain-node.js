#!/usr/bin/env node
// `chain-node` binary: the esbuild bundle (built by `npm install` via the prepare script, or
// `npm run build`); see docs/architecture.md A1.
import '../dist/chain-node.mjs';
