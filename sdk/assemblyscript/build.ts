// Compiles an AssemblyScript contract file into what Venachain deploys: the wasm module, its ABI
// JSON and the deploy data RLP([txType, wasm, ABI]) (the shared codec, src/codec/wasm-abi.ts).
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
import { encodeWasmDeploy, type WasmAbiEntry } from '../../src/codec/wasm-abi.ts';
import { ContractTransform, SDK_PACKAGE, START_EXPORT } from './transform.ts';

const SDK_SOURCES = join(dirname(fileURLToPath(import.meta.url)), 'assembly');

export interface BuiltContract {
  wasm: Uint8Array;
  abi: WasmAbiEntry[];
  /** RLP([txType 0, wasm, ABI JSON]): the `data` of a deploy transaction */
  deployData: Uint8Array;
  /** AssemblyScript's messages (warnings) */
  log: string;
}

export class ContractBuildError extends Error {}

/** asc looks a package up as node_modules/<name>/…; the SDK's sources answer for its name wherever the contract lives. */
const sdkFile = new RegExp(`(?:^|[\\\\/])node_modules[\\\\/]${SDK_PACKAGE.replace('/', '[\\\\/]')}[\\\\/](.+)$`);

export async function buildContract(file: string): Promise<BuiltContract> {
  const path = resolve(file);
  // ES modules only (no `require` condition): imported here, where this file's loader may be require
  const [asc, compiler, { default: binaryen }] = await Promise.all([import('assemblyscript/asc'), import('assemblyscript'), import('assemblyscript/binaryen')]);
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
  if (result.error) throw new ContractBuildError(`${file}: ${log.trim() || result.error.message}`);
  if (!wasm || !transform.abi) throw new ContractBuildError(`${file}: the compiler produced no module`);
  return { wasm, abi: transform.abi, deployData: encodeWasmDeploy(wasm, transform.abi), log };
}
