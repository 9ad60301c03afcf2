// Builds an AssemblyScript contract file into what Venachain deploys: the wasm module, its ABI JSON
// and the deploy data RLP([txType, wasm, ABI]) (the shared codec, src/codec/wasm-abi.ts). The
// compiler runs in a node process of its own (compile-process.mjs says why).
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { encodeWasmDeploy, type WasmAbiEntry } from '../../src/codec/wasm-abi.ts';

const COMPILE_PROCESS = join(dirname(fileURLToPath(import.meta.url)), 'compile-process.mjs');

export interface BuiltContract {
  wasm: Uint8Array;
  abi: WasmAbiEntry[];
  /** RLP([txType 0, wasm, ABI JSON]): the `data` of a deploy transaction */
  deployData: Uint8Array;
  /** the compiler's warnings */
  log: string;
}

/** A contract that does not compile: the compiler's messages, or the transform's (naming the function and parameter). */
export class ContractBuildError extends Error {}

export async function buildContract(file: string): Promise<BuiltContract> {
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(process.execPath, [COMPILE_PROCESS, resolve(file)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
  } catch (e) {
    const { code, stderr } = e as { code?: number; stderr?: string };
    if (code === 1 && stderr) throw new ContractBuildError(`${file}: ${stderr.trim()}`);
    throw e;
  }
  const { wasm: base64, abi, log } = JSON.parse(stdout) as { wasm: string; abi: WasmAbiEntry[]; log: string };
  const wasm = new Uint8Array(Buffer.from(base64, 'base64'));
  return { wasm, abi, deployData: encodeWasmDeploy(wasm, abi), log };
}
