// Compiled contracts by code hash: a module is prepared (validated, metered: ./prepare.ts) and
// compiled once on the main thread, then posted once to each wasm thread that runs it (the compiled
// code is shared, not copied) and instantiated there for every message. Bounded: the least recently
// used entry goes first. The state manager hands the same code object to the messages of a contract
// while it caches it, so a lookup by that object comes first and skips hashing the code.
import { keccak256 } from '../../crypto/keccak.ts';
import { decodeWasmDeploy, parseWasmAbi, type WasmAbi } from '../../codec/wasm-abi.ts';
import { bytesToHex } from '../../util/hex.ts';
import { moduleSignatures, type ModuleSignatures } from './signatures.ts';
import { DEFAULT_PREPARE_LIMITS, prepareModule, WasmModuleError } from './prepare.ts';

/** Compiled contracts kept. A compiled module is a few times its code size (V8's Liftoff code). */
const MAX_ENTRIES = 128;

export interface CompiledContract {
  module: WebAssembly.Module;
  sigs: ModuleSignatures;
  abi: WasmAbi;
  /** the code's keccak256 (hex): how wasm threads know the module */
  hash: string;
}

const cache = new Map<string, Promise<CompiledContract>>();
/** code object → its cache key */
const keys = new WeakMap<Uint8Array, string>();

/** Prepares and compiles stored code (the deploy's RLP blob); rejects with WasmModuleError naming what the chain refuses. */
export function compiledContract(code: Uint8Array): Promise<CompiledContract> {
  let key = keys.get(code);
  if (key === undefined) keys.set(code, (key = bytesToHex(keccak256(code))));
  let entry = cache.get(key);
  if (entry !== undefined) {
    cache.delete(key);
    cache.set(key, entry);
    return entry;
  }
  entry = compile(code, key);
  cache.set(key, entry);
  // a refused module is not kept: the error is cheap to make again, and the cache holds contracts
  entry.catch(() => cache.delete(key));
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  return entry;
}

async function compile(code: Uint8Array, hash: string): Promise<CompiledContract> {
  let abi: WasmAbi;
  let wasm: Uint8Array;
  try {
    const deploy = decodeWasmDeploy(code);
    wasm = deploy.wasm;
    abi = parseWasmAbi(deploy.abiJson);
  } catch (e) {
    throw new WasmModuleError((e as Error).message);
  }
  const prepared = prepareModule(wasm, DEFAULT_PREPARE_LIMITS);
  let module: WebAssembly.Module;
  try {
    module = await WebAssembly.compile(prepared);
  } catch (e) {
    throw new WasmModuleError(`the wasm module does not compile: ${(e as Error).message}`);
  }
  const sigs = moduleSignatures(prepared);
  if (!WebAssembly.Module.exports(module).some((e) => e.name === 'memory' && e.kind === 'memory')) throw new WasmModuleError('a contract must export its memory as "memory"');
  return { module, sigs, abi, hash };
}
