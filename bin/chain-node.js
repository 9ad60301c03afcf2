#!/usr/bin/env node
// `chain-node` binary: runs the TypeScript entry point through tsx (no build step; see docs/architecture.md A1).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
