// npm run build:contract -- FILE [--out DIR]: compiles an AssemblyScript contract (sdk/assemblyscript)
// into X.wasm, X.abi.json (Venachain's ABI JSON) and X.deploy.hex (0x RLP([txType, wasm, ABI]): the
// `data` of a deploy transaction, `to` empty) in DIR (default: the file's directory).
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildContract, ContractBuildError } from '../sdk/assemblyscript/build.ts';
import { bytesToHex } from '../src/util/hex.ts';

const USAGE = 'usage: npm run build:contract -- FILE.ts [--out DIR]';

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    console.error(`one contract file expected, got ${positionals.length}\n${USAGE}`);
    return 2;
  }
  const file = resolve(positionals[0]!);
  const out = resolve(values.out ?? dirname(file));
  const name = basename(file).replace(/\.ts$/, '');
  const t0 = performance.now();
  try {
    const { wasm, abi, deployData, log } = await buildContract(file);
    if (log.trim()) process.stderr.write(log);
    mkdirSync(out, { recursive: true });
    const files = { wasm: join(out, `${name}.wasm`), abi: join(out, `${name}.abi.json`), deploy: join(out, `${name}.deploy.hex`) };
    writeFileSync(files.wasm, wasm);
    writeFileSync(files.abi, JSON.stringify(abi, null, 2) + '\n');
    writeFileSync(files.deploy, bytesToHex(deployData) + '\n');
    const shown = Object.values(files).map((f) => relative(process.cwd(), f) || f).join(', ');
    console.log(`${name}: ${wasm.length} bytes of wasm, ${abi.length} ABI entries → ${shown} in ${Math.round(performance.now() - t0)} ms`);
    return 0;
  } catch (e) {
    if (!(e instanceof ContractBuildError)) throw e;
    console.error(e.message);
    return 1;
  }
}

process.exitCode = await main();
