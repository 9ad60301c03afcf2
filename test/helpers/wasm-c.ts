// Compiles the tests' C contracts (test/wasm/contracts/*.c, with our venachain.h) to wasm with
// clang's wasm32 target, cached by source hash under node_modules/.cache/wasm-c so a test pays for
// clang once per change. Tests that need clang skip cleanly without it (clangAvailable()).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONTRACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'wasm', 'contracts');
const CACHE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', '.cache', 'wasm-c');

let available: boolean | undefined;

/** Whether clang with a wasm32 target and wasm-ld are installed (.ci/run installs them). */
export function clangAvailable(): boolean {
  if (available === undefined) {
    try {
      execFileSync('clang', ['--target=wasm32', '-print-targets'], { stdio: 'ignore' });
      execFileSync('wasm-ld', ['--version'], { stdio: 'ignore' });
      available = true;
    } catch {
      available = false;
    }
  }
  return available;
}

export interface CContract {
  wasm: Uint8Array;
  /** the ABI JSON next to the source (NAME.abi.json) */
  abi: string;
}

/** DIR/NAME.c (default: test/wasm/contracts, whose venachain.h it may include) compiled (-O2, no libc, every EXPORT exported), and DIR/NAME.abi.json. */
export function compileC(name: string, dir = CONTRACTS): CContract {
  const source = join(dir, `${name}.c`);
  const hash = createHash('sha256').update(readFileSync(source)).update(readFileSync(join(CONTRACTS, 'venachain.h'))).digest('hex').slice(0, 16);
  const out = join(CACHE, `${name}-${hash}.wasm`);
  if (!existsSync(out)) {
    mkdirSync(CACHE, { recursive: true });
    const tmp = `${out}.${process.pid}.tmp`;
    execFileSync('clang', ['--target=wasm32', '-O2', '-nostdlib', '-fno-builtin', '-Wl,--no-entry', '-Wl,--export-dynamic', '-Wl,--allow-undefined', '-o', tmp, source], { stdio: ['ignore', 'ignore', 'pipe'] });
    renameSync(tmp, out);
  }
  return { wasm: new Uint8Array(readFileSync(out)), abi: readFileSync(join(dir, `${name}.abi.json`), 'utf8') };
}
