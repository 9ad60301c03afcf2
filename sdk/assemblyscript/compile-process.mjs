// `node compile-process.mjs FILE`: compiles a contract (compile.ts) and writes
// {"wasm": base64, "abi": […], "log": "…"} to stdout, or the compiler's messages to stderr (exit 1).
// A process of its own, without tsx's loader: through it, importing the compiler (binaryen's 13 MB
// of JavaScript) takes ~10× longer (2 → 21 s measured on the shared 2 cores). Only compile.ts and
// what it imports go through tsx (tsImport).
import { tsImport } from 'tsx/esm/api';

const [file] = process.argv.slice(2);
const [asc, compiler, { default: binaryen }, { compileContract, ContractError }] = await Promise.all([
  import('assemblyscript/asc'),
  import('assemblyscript'),
  import('assemblyscript/binaryen'),
  tsImport('./compile.ts', import.meta.url),
]);
try {
  const { wasm, abi, log } = await compileContract(file, { asc, compiler, binaryen });
  process.stdout.write(JSON.stringify({ wasm: Buffer.from(wasm).toString('base64'), abi, log }));
} catch (e) {
  if (!(e instanceof ContractError)) throw e;
  process.stderr.write(e.message + '\n');
  process.exitCode = 1;
}
