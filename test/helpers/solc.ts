// Compiles Solidity in the test with the solc npm package (EVM target prague, as the node runs).
import { createRequire } from 'node:module';

const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string };

export interface Compiled {
  abi: any[];
  bytecode: string;
}

export function compile(source: string): Record<string, Compiled> {
  const input = {
    language: 'Solidity',
    sources: { 'main.sol': { content: source } },
    settings: { evmVersion: 'prague', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  const result: Record<string, Compiled> = {};
  for (const [name, c] of Object.entries(out.contracts['main.sol'] as Record<string, any>)) result[name] = { abi: c.abi, bytecode: '0x' + c.evm.bytecode.object };
  return result;
}
