// Every host function the node provides (module `env`), and the imports object of one run: each
// host function adapted to the signature its module declares for it (./context.ts, ../signatures.ts).
// An import the node does not provide links to a function that fails the call only when called
// (Venachain's rule: a contract may import what it never calls).
import { toWasmValue, type ModuleSignatures } from '../signatures.ts';
import { WasmCallError, type HostArg, type HostContext, type HostTable } from './context.ts';
import { memoryHost } from './memory.ts';
import { printsHost } from './prints.ts';
import { chainContextHost } from './chain-context.ts';
import { stateHost } from './state.ts';
import { compilerBuiltinsHost } from './compiler-builtins.ts';
import { cryptoHost } from './crypto.ts';
import { crossVmHost } from './cross-vm.ts';

export const HOST_FUNCTIONS: HostTable = { ...memoryHost, ...printsHost, ...chainContextHost, ...stateHost, ...compilerBuiltinsHost, ...cryptoHost, ...crossVmHost };

/** The imports of one run of `module`, bound to `ctx`. */
export function hostImports(module: WebAssembly.Module, sigs: ModuleSignatures, ctx: HostContext): WebAssembly.Imports {
  const imports: Record<string, Record<string, WebAssembly.ImportValue>> = {};
  for (const { module: m, name, kind } of WebAssembly.Module.imports(module)) {
    const key = `${m}.${name}`;
    const into = (imports[m] ??= {});
    if (kind === 'global') {
      // C++ modules import __dso_handle and stdio handles: zero, as Venachain's resolver answers
      const type = sigs.globals.get(key) ?? 'i32';
      into[name] = new WebAssembly.Global({ value: type, mutable: false }, type === 'i64' ? 0n : 0);
      continue;
    }
    if (kind !== 'function') continue; // memory and table imports are refused at deploy (../prepare.ts)
    const fn = m === 'env' && Object.hasOwn(HOST_FUNCTIONS, name) ? HOST_FUNCTIONS[name]! : undefined;
    const result = sigs.imports.get(key)?.results[0];
    into[name] = (...args: HostArg[]) => {
      if (fn === undefined) throw new WasmCallError(`the contract called ${key}, which this node does not provide`);
      const r = fn(ctx, ...args);
      return result === undefined ? undefined : toWasmValue(result, r ?? 0);
    };
  }
  return imports;
}
