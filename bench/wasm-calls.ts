// The wasm VM against the EVM on the same node: a storage get/set contract as C on the wasm VM
// (test/wasm/contracts/storage.c: store(int64) / getCounter()) and the same logic in Solidity,
// by eth_call rate (sequential, and 8 in flight), transactions mined per second and gas; and the
// deploy time of a ~30 KB wasm module of real code (generated C; first deploy: prepare + compile;
// later: cached). The node runs in this process (test/helpers/node.ts: instant sealing), so client
// and node share the CPU. Needs clang. Part of `npm run bench`; on its own:
//   node --import tsx bench/wasm-calls.ts [--calls N] [--txs N]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Transaction, Wallet } from 'ethers';
import { encodeWasmCall, encodeWasmDeploy, parseWasmAbi } from '../src/codec/wasm-abi.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { mined, startTestNode, testKey, type TestNode } from '../test/helpers/node.ts';
import { clangAvailable, compileC, CONTRACTS } from '../test/helpers/wasm-c.ts';
import { compile } from '../test/helpers/solc.ts';


const SOLIDITY = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Counter {
  int64 counter = 7;
  function store(int64 v) external { counter = v; }
  function getCounter() external view returns (int64) { return counter; }
}`;

/** One row: what was measured, on wasm, on the EVM. */
export type WasmRow = [what: string, wasm: string, evm: string];

/** A C contract of ~`bytes` bytes of wasm: many small exported functions (real code to prepare and compile). */
function bigModule(bytes: number): { wasm: Uint8Array; abi: string } {
  const dir = mkdtempSync(join(tmpdir(), 'wasm-big-'));
  try {
    const fns = Math.round(bytes / 97);
    const c = [`#include "${join(CONTRACTS, 'venachain.h')}"`, 'EXPORT void init(void) {}'];
    for (let i = 0; i < fns; i++) c.push(`EXPORT int64_t f${i}(int64_t x, int64_t y) { for (int i = 0; i < ${(i % 7) + 2}; i++) x = (x * ${i + 3} + y) ^ (x >> ${(i % 13) + 1}); return x - ${i}; }`);
    writeFileSync(join(dir, 'big.c'), c.join('\n'));
    writeFileSync(join(dir, 'big.abi.json'), JSON.stringify([{ name: 'init', inputs: [], outputs: [], constant: 'false', type: 'function' }]));
    return compileC('big', dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rows: eth_call rates, transaction rates and gas of the same get/set contract on both VMs, and a ~30 KB deploy. */
export async function wasmCallsBench(CALLS: number, TXS: number): Promise<WasmRow[]> {
  if (!clangAvailable()) throw new Error('the wasm rows need clang with the wasm32 target and wasm-ld');
  const node: TestNode = await startTestNode();
  const wallet = new Wallet(testKey(0));
  let nonce = 0;

  function sign(to: string | null, data: string, gasLimit = 10_000_000n): Promise<string> {
    return wallet.signTransaction(Transaction.from({ to, data, gasLimit, gasPrice: 0n, chainId: 300n, nonce: nonce++ }));
  }

  async function send(to: string | null, data: string): Promise<any> {
    return mined(node, await node.rpc('eth_sendRawTransaction', [await sign(to, data)]));
  }

  /** calls/s of `calls` eth_calls, `inFlight` at a time */
  async function callRate(to: string, data: (i: number) => string, inFlight: number): Promise<number> {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < CALLS) await node.rpc('eth_call', [{ to, data: data(next++) }, 'latest']);
      }),
    );
    return CALLS / ((performance.now() - t0) / 1000);
  }

  /** transactions/s: TXS pre-signed store() transactions sent at once, until the last is mined; and the gas of one */
  async function txRate(to: string, data: (i: number) => string): Promise<{ rate: number; gas: bigint }> {
    const raws: string[] = [];
    for (let i = 0; i < TXS; i++) raws.push(await sign(to, data(i), 1_000_000n));
    const t0 = performance.now();
    const hashes = await Promise.all(raws.map((raw) => node.rpc('eth_sendRawTransaction', [raw])));
    // one sender in nonce order: when the last is mined, all are
    const last = await mined(node, hashes.at(-1)!);
    const rate = TXS / ((performance.now() - t0) / 1000);
    const first = await node.rpc('eth_getTransactionReceipt', [hashes[0]]);
    if (first.status !== '0x1' || last.status !== '0x1') throw new Error('a store() transaction failed');
    return { rate, gas: BigInt(last.gasUsed) };
  }
  try {
    const { wasm, abi: abiJson } = compileC('storage');
    const abi = parseWasmAbi(abiJson);
    const wasmAddress = (await send(null, bytesToHex(encodeWasmDeploy(wasm, abiJson)))).contractAddress;
    const sol = compile(SOLIDITY).Counter!;
    const solAddress = (await send(null, sol.bytecode)).contractAddress;
    const { Interface } = await import('ethers');
    const iface = new Interface(sol.abi);

    const rows: WasmRow[] = [];
    const wasmGet = () => bytesToHex(encodeWasmCall(abi, 'getCounter'));
    const solGet = () => iface.encodeFunctionData('getCounter');
    for (const inFlight of [1, 8]) {
      rows.push([`eth_call getCounter(), identical calls, ${inFlight} in flight (calls/s)`, (await callRate(wasmAddress, wasmGet, inFlight)).toFixed(0), (await callRate(solAddress, solGet, inFlight)).toFixed(0)]);
    }
    // a new argument every call: no answer is reused
    const wasmNeg = (i: number) => bytesToHex(encodeWasmCall(abi, 'neg64', [BigInt(i)]));
    rows.push(['eth_call neg64(i) (wasm) / store(i) as a call (EVM), a new argument each, 1 in flight (calls/s)', (await callRate(wasmAddress, wasmNeg, 1)).toFixed(0), (await callRate(solAddress, (i) => iface.encodeFunctionData('store', [i]), 1)).toFixed(0)]);
    const wasmTx = await txRate(wasmAddress, (i) => bytesToHex(encodeWasmCall(abi, 'store', [BigInt(i)])));
    const solTx = await txRate(solAddress, (i) => iface.encodeFunctionData('store', [i + 1]));
    rows.push([`store(v) transactions, ${TXS} sent at once (tx/s)`, wasmTx.rate.toFixed(0), solTx.rate.toFixed(0)]);
    rows.push(['gas of one store(v) transaction', String(wasmTx.gas), String(solTx.gas)]);
    const wasmCallGas = BigInt(await node.rpc('eth_estimateGas', [{ from: wallet.address, to: wasmAddress, data: wasmGet() }]));
    const solCallGas = BigInt(await node.rpc('eth_estimateGas', [{ from: wallet.address, to: solAddress, data: solGet() }]));
    rows.push(['gas of getCounter() (eth_estimateGas)', String(wasmCallGas), String(solCallGas)]);

    // a ~30 KB module of code: prepared and compiled at the first deploy, from the cache after
    const big = bigModule(30_000);
    const deploys: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const r = await send(null, bytesToHex(encodeWasmDeploy(big.wasm, big.abi)));
      if (r.status !== '0x1') throw new Error('the 30 KB deploy failed');
      deploys.push(performance.now() - t0);
    }
    rows.push([`deploy of a ${big.wasm.length.toLocaleString('en')} B module (generated C) until its receipt: first / next two (ms)`, deploys.map((d) => d.toFixed(0)).join(' / '), '—']);
    return rows;
  } finally {
    await node.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { calls: { type: 'string', default: '2000' }, txs: { type: 'string', default: '300' } } });
  const rows = await wasmCallsBench(Number(values.calls), Number(values.txs));
  console.log('| workload | wasm | EVM (Solidity) |\n|---|--:|--:|');
  for (const [what, w, e] of rows) console.log(`| ${what} | ${w} | ${e} |`);
}
