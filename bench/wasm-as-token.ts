// The AssemblyScript template token (sdk/assemblyscript/template/token.ts): its build time and
// size, and what it costs on a dev node — gas of the deploy, of a transfer and of balanceOf, and
// balanceOf eth_calls a second one after another through the client SDK. Run on its own:
//   node --import tsx bench/wasm-as-token.ts
import { ChainClient, callWasm, deployWasm, sendWasm, wasmContract } from '../generated/client/index.ts';
import { buildContract } from '../sdk/assemblyscript/build.ts';
import { startTestNode, testAddress } from '../test/helpers/node.ts';

const t0 = performance.now();
const { wasm, abi, deployData } = await buildContract(new URL('../sdk/assemblyscript/template/token.ts', import.meta.url).pathname);
console.log(`build: ${Math.round(performance.now() - t0)} ms, ${wasm.length} bytes of wasm, ${deployData.length} bytes of deploy data`);

const node = await startTestNode({ dev: true });
const client = ChainClient.http(node.url);
try {
  const from = node.devAccount!;
  const token = wasmContract(abi);
  const deployed = await deployWasm(client, { from, wasm, abi });
  const sent = await sendWasm(client, { from, to: deployed.address, call: token.call('transfer', testAddress(1), 5n) });
  const estimate = await client.eth.estimateGas({ from, to: deployed.address, data: token.call('balanceOf', from).data });
  console.log(`gas: deploy ${BigInt(deployed.receipt.gasUsed)}, transfer ${BigInt(sent.receipt.gasUsed)}, balanceOf ${BigInt(estimate)} (eth_estimateGas)`);
  let calls = 0;
  const t1 = performance.now();
  while (performance.now() - t1 < 2000) {
    await callWasm(client, deployed.address, token.call('balanceOf', from));
    calls++;
  }
  console.log(`balanceOf by eth_call, one after another: ${Math.round(calls / ((performance.now() - t1) / 1000))} calls/s`);
} finally {
  await client.close();
  await node.stop();
}
