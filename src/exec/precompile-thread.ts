// A precompile thread (heavy-precompiles.ts): runs @ethereumjs's own implementation of a
// precompile, so output, gas and errors are what the calling EVM would have got inline. Its EVM is
// built as the node's are (src/exec/engine-evm.ts: noble's bn254; BLS12-381 is @ethereumjs's
// default), once per rule set.
import { parentPort } from 'node:worker_threads';
import { Common, Mainnet } from '@ethereumjs/common';
import { EVM, NobleBN254, type PrecompileInput } from '@ethereumjs/evm';
import { READY, type PrecompileAnswer, type PrecompileRequest } from './precompile-protocol.ts';

const evms = new Map<string, EVM>();

function evmFor(hardfork: string, eips: number[]): EVM {
  const key = `${hardfork}:${eips.join(',')}`;
  let evm = evms.get(key);
  if (!evm) evms.set(key, (evm = new EVM({ common: new Common({ chain: Mainnet, hardfork, eips }), bn254: new NobleBN254() })));
  return evm;
}

const port = parentPort!;
port.on('message', async ({ id, address, data, gasLimit, hardfork, eips }: PrecompileRequest) => {
  const evm = evmFor(hardfork, eips);
  const precompile = evm.precompiles.get(address)!;
  const result = await precompile({ data, gasLimit, common: evm.common, _EVM: evm } as PrecompileInput);
  const answer: PrecompileAnswer = { id, returnValue: result.returnValue, gasUsed: result.executionGasUsed, error: result.exceptionError?.error };
  port.postMessage(answer);
});
port.postMessage({ id: READY });
