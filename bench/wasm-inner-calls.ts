// A wasm message making n inner calls (test/wasm/contracts/threads.c: callMany(n), each a
// bcwasmCall to an account without code), by eth_call: wall time and this process's CPU a call,
// and the gas (eth_estimateGas). The node runs in this process (test/helpers/node.ts), the client
// too. Needs clang. Run on its own:
//   node --import tsx bench/wasm-inner-calls.ts [--n 100,500,1500,2000] [--repeat 3]
import { parseArgs } from 'node:util';
import { Transaction, Wallet } from 'ethers';
import { encodeWasmCall, encodeWasmDeploy, parseWasmAbi } from '../src/codec/wasm-abi.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { mined, startTestNode, testAddress, testKey, type TestNode } from '../test/helpers/node.ts';
import { clangAvailable, compileC } from '../test/helpers/wasm-c.ts';

const { values } = parseArgs({ options: { n: { type: 'string', default: '100,500,1500,2000' }, repeat: { type: 'string', default: '3' } } });
if (!clangAvailable()) throw new Error('bench/wasm-inner-calls.ts needs clang with the wasm32 target and wasm-ld');

const node: TestNode = await startTestNode({ config: { evmTimeoutMs: 0 } });
try {
  const c = compileC('threads');
  const abi = parseWasmAbi(c.abi);
  const from = testAddress(0);
  const raw = await new Wallet(testKey(0)).signTransaction(Transaction.from({ to: null, data: bytesToHex(encodeWasmDeploy(c.wasm, c.abi)), gasLimit: 8_000_000n, gasPrice: 0n, chainId: BigInt(await node.rpc('eth_chainId')), nonce: 0 }));
  const deployed = await mined(node, await node.rpc('eth_sendRawTransaction', [raw]));
  const to = deployed.contractAddress;
  // the first call pays for compiling and starting what it needs
  await node.rpc('eth_call', [{ to, data: bytesToHex(encodeWasmCall(abi, 'callMany', [1n])) }, 'latest']);
  for (const n of values.n.split(',').map(BigInt)) {
    const data = bytesToHex(encodeWasmCall(abi, 'callMany', [n]));
    const gas = BigInt(await node.rpc('eth_estimateGas', [{ from, to, data }]));
    const rows: string[] = [];
    for (let i = 0; i < Number(values.repeat); i++) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      // a different gas price each time: the node's call cache would answer a repeated call
      await node.rpc('eth_call', [{ from, to, data, gasPrice: `0x${(i + 1).toString(16)}` }, 'latest']);
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      rows.push(`${wall.toFixed(0)} ms wall / ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU`);
    }
    console.log(`n = ${n}: ${gas} gas; ${rows.join(', ')}`);
  }
} finally {
  await node.stop();
}
