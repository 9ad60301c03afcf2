// Compiles an AssemblyScript contract file with asc and the contract transform: the wasm module and
// its ABI. Runs in compile-process.mjs, a node without tsx (see there); build.ts is the caller's API.
//
// The compile settings keep the module as a BCWasm contract's: memory exported, none imported, no
// start section (transform.ts), MVP instructions only (no bulk memory, sign extension, non-trapping
// float conversions, SIMD: what Venachain's interpreter knows), the stub runtime (a bump allocator
// that never frees — a call is one short-lived instance, so a collector would only cost gas), and
// AssemblyScript's abort (assert, bounds checks) routed to env's abort, which fails the call.
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Asc from 'assemblyscript/asc';
import type * as Compiler from 'assemblyscript';
import type Binaryen from 'assemblyscript/binaryen';
import type { WasmAbiEntry } from '../../src/codec/wasm-abi.ts';
import { ContractError, ContractTransform, SDK_PACKAGE, START_EXPORT } from './transform.ts';

export { ContractError };

const SDK_SOURCES = join(dirname(fileURLToPath(import.meta.url)), 'assembly');

/** The compiler's ES modules, imported by the caller outside tsx. */
export interface CompilerModules {
  asc: typeof Asc;
  compiler: typeof Compiler;
  binaryen: typeof Binaryen;
}

export interface CompiledContract {
  wasm: Uint8Array;
  abi: WasmAbiEntry[];
  /** the compiler's warnings */
  log: string;
}

/** asc looks a package up as node_modules/<name>/…; the SDK's sources answer for its name wherever the contract lives. */
const sdkFile = new RegExp(`(?:^|[\\\\/])node_modules[\\\\/]${SDK_PACKAGE.replace('/', '[\\\\/]')}[\\\\/](.+)$`);

/** Compiles `file`; throws ContractError with the compiler's messages when it does not compile. */
export async function compileContract(file: string, { asc, compiler, binaryen }: CompilerModules): Promise<CompiledContract> {
  const path = resolve(file);
  const transform = new ContractTransform(compiler, binaryen);
  let wasm: Uint8Array | undefined;
  const stderr = asc.createMemoryStream();
  const result = await asc.main(
    [
      basename(path),
      '--baseDir', dirname(path),
      '--outFile', 'contract.wasm',
      '--runtime', 'stub',
      '--exportStart', START_EXPORT,
      '--use', 'abort=__contract_abort',
      '--disable', 'bulk-memory,sign-extension,nontrapping-f2i,mutable-globals',
      '--optimizeLevel', '3',
      '--shrinkLevel', '1',
      '--noColors',
    ],
    {
      stderr,
      // asc calls an object's hooks as they are (only a class gets its fields assigned)
      transforms: [transform as unknown as Asc.Transform],
      readFile: async (name, baseDir) => {
        const sdk = sdkFile.exec(name);
        try {
          return await readFile(sdk ? join(SDK_SOURCES, sdk[1]!) : resolve(baseDir, name), 'utf8');
        } catch {
          return null;
        }
      },
      writeFile: (name, contents) => {
        if (name === 'contract.wasm' && contents instanceof Uint8Array) wasm = contents;
      },
      listFiles: () => [],
    },
  );
  const log = stderr.toString();
  // the transform's own refusal as it is (asc's log adds its stack)
  if (result.error instanceof ContractError) throw result.error;
  if (result.error) throw new ContractError(log.trim() || result.error.message);
  if (!wasm || !transform.abi) throw new ContractError('the compiler produced no module');
  return { wasm, abi: transform.abi, log };
}
