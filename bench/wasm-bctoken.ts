// Venachain's own BcToken.wasm (BCWasm C++, 33 KB) on this node: the gas of a deploy and of a
// transfer, and checkBalance eth_call latency, sequential, a new argument each call (no call-cache
// hits), with this process's CPU a call. The node runs in this process (test/helpers/node.ts).
// Needs Venachain's source tree at /work/vena (its binary is not copied into this repository).
//   node --import tsx bench/wasm-bctoken.ts [--calls 300]
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Transaction, Wallet } from 'ethers';
import { encodeWasmCall, encodeWasmDeploy, parseWasmAbi } from '../src/codec/wasm-abi.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { mined, startTestNode, testAddress, testKey } from '../test/helpers/node.ts';

const BCTOKEN = '/work/vena/src/cmd/ptransfer/contracts';
if (!existsSync(BCTOKEN)) throw new Error(`bench/wasm-bctoken.ts needs ${BCTOKEN}`);
const { values } = parseArgs({ options: { calls: { type: 'string', default: '300' } } });
const CALLS = Number(values.calls);

const node = await startTestNode();
try {
  const wallet = new Wallet(testKey(0));
  const chainId = BigInt(await node.rpc('eth_chainId'));
  let nonce = 0;
  const send = async (to: string | null, data: Uint8Array) =>
    mined(node, await node.rpc('eth_sendRawTransaction', [await wallet.signTransaction(Transaction.from({ to, data: bytesToHex(data), gasLimit: 10_000_000n, gasPrice: 0n, chainId, nonce: nonce++ }))]));
  const abiJson = readFileSync(`${BCTOKEN}/BcToken.cpp.abi.json`, 'utf8');
  const abi = parseWasmAbi(abiJson);
  const deployed = await send(null, encodeWasmDeploy(new Uint8Array(readFileSync(`${BCTOKEN}/BcToken.wasm`)), abiJson));
  const token = deployed.contractAddress;
  const owner = testAddress(0).toLowerCase();
  const other = testAddress(2).toLowerCase();
  const transfer = await send(token, encodeWasmCall(abi, 'transfer', [100n, owner, other]));
  console.log(`deploy ${BigInt(deployed.gasUsed)} gas; transfer ${BigInt(transfer.gasUsed)} gas (status ${transfer.status})`);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) await node.rpc('eth_call', [{ to: token, data: bytesToHex(encodeWasmCall(abi, 'checkBalance', [other, BigInt(i)])) }, 'latest']);
  const wall = (performance.now() - t0) / CALLS;
  const cpu = process.cpuUsage(cpu0);
  console.log(`checkBalance eth_call, ${CALLS} sequential: ${(wall * 1000).toFixed(0)} µs wall, ${((cpu.user + cpu.system) / CALLS).toFixed(0)} µs CPU a call`);
} finally {
  await node.stop();
}
