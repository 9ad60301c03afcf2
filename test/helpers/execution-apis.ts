// Result validators from ethereum/execution-apis' assembled OpenRPC document, to check that our
// answers are what that specification's result schemas describe.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';

const REFERENCE = join('shared', 'reference', 'execution-apis.openrpc.json');

/** shared/ sits beside the repository as CI lays it out, or beside a directory of worktrees above it. */
function referenceFile(): string | undefined {
  for (let dir = fileURLToPath(new URL('../..', import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, REFERENCE))) return join(dir, REFERENCE);
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * A function giving the validator of a method's result, or undefined (after logging why) when the
 * document is not present: it lives in the steering repo's shared/reference, not in this one.
 */
export function executionApisResults(): ((method: string) => ValidateFunction) | undefined {
  const file = referenceFile();
  if (!file) {
    console.log(`  skipped: execution-apis.openrpc.json is not present (it lives in the steering repo's shared/reference)`);
    return undefined;
  }
  const spec = JSON.parse(readFileSync(file, 'utf8'));
  const ajv = new Ajv({ strict: false });
  return (name: string) => {
    const method = spec.methods.find((m: { name: string }) => m.name === name);
    if (!method) throw new Error(`execution-apis has no method ${name}`);
    return ajv.compile({ ...method.result.schema, components: spec.components });
  };
}
