// Which code runs where, by the genesis' config.interpreter (Venachain's core/vm/evm.go):
//   "evm"  EVM only: wasm code is refused (a deploy fails with the reason, nothing is stored)
//   "all"  wasm contracts on the wasm VM, everything else on the EVM (the default)
//   other  wasm only, as Venachain treats any other value: EVM code is refused
// The engines returned go to EngineEVM after the native system contracts, which every chain has.
// (Venachain's "all" also hands every message from the zero address to its wasm interpreter; here
// the code alone decides, so an eth_call without `from` runs EVM code on the EVM.)
import type { Message } from '@ethereumjs/evm';
import type { CodeEngine } from './engine-evm.ts';
import { revert } from './native/engine.ts';
import { isWasmCode } from '../codec/wasm-abi.ts';
import { WasmEngine, type WasmEngineEnv } from './wasm/engine.ts';

/** A message whose code this chain does not run: it fails with `reason` (status 0, nothing stored). */
class RefusedCode implements CodeEngine {
  constructor(
    readonly name: string,
    readonly claims: (code: Uint8Array) => boolean,
    private readonly reason: string,
  ) {}
  async run(_evm: unknown, message: Message) {
    return revert(`${message.isCreate === true ? 'deploy refused' : 'call refused'}: ${this.reason}`, 0n);
  }
}

export function codeEngines(interpreter: string, env: WasmEngineEnv): CodeEngine[] {
  const choice = interpreter.toLowerCase();
  if (choice === 'evm') return [new RefusedCode('wasm-refused', isWasmCode, 'wasm contracts do not run on this chain (genesis config.interpreter is "evm")')];
  const wasm = new WasmEngine(env);
  if (choice === 'all') return [wasm];
  return [wasm, new RefusedCode('evm-refused', (code) => code.length > 0 && !isWasmCode(code), `EVM contracts do not run on this chain (genesis config.interpreter is ${JSON.stringify(interpreter)}: wasm only)`)];
}
