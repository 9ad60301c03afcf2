// Hostile call and deploy data for the wasm VM, through eth_call and eth_estimateGas on a real node:
// calls to a deployed C contract built from valid ones by mutation (bytes flipped, cut, extended),
// RLP of the wrong shape, wrong argument widths, names and txTypes, and damaged deploy blobs. Every
// answer must be a result or a JSON-RPC error with a message (never an internal error), the node
// keeps answering, and the contract's state is what it was. Seeded (WASM_FUZZ_SEED=n changes it).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RLP } from '@ethereumjs/rlp';
import { encodeWasmCall, encodeWasmDeploy, parseWasmAbi, type WasmAbi } from '../src/codec/wasm-abi.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { prng } from './helpers/prng.ts';
import { mined, startTestNode, testAddress, type TestNode } from './helpers/node.ts';
import { clangAvailable, compileC } from './helpers/wasm-c.ts';

const SEED = Number(process.env.WASM_FUZZ_SEED ?? 23);
const ROUNDS = 600;
const maybe = clangAvailable() ? test : test.skip;

let node: TestNode;
let contract: string;
let abi: WasmAbi;
let wasm: Uint8Array;
let abiJson: string;

test.before(async () => {
  node = await startTestNode({ dev: true });
  if (!clangAvailable()) return;
  ({ wasm, abi: abiJson } = compileC('storage'));
  abi = parseWasmAbi(abiJson);
  const [from] = await node.rpc('eth_accounts');
  const deploy = await mined(node, await node.rpc('eth_sendTransaction', [{ from, data: bytesToHex(encodeWasmDeploy(wasm, abiJson)), gas: '0x989680' }]));
  contract = deploy.contractAddress;
  await mined(node, await node.rpc('eth_sendTransaction', [{ from, to: contract, data: bytesToHex(encodeWasmCall(abi, 'setCounter', [41n])), gas: '0x989680' }]));
});
test.after(async () => {
  await node?.stop();
});

/** A valid call of a random function of the ABI with random arguments of its types. */
function validCall(rand: () => number): Uint8Array {
  const fns = abi.filter((e) => e.type === 'function' && e.name !== 'spin' && e.name !== 'init');
  const fn = fns[Math.floor(rand() * fns.length)]!;
  const args = fn.inputs.map((p) => {
    if (p.type === 'string') return 'k'.repeat(Math.floor(rand() * 40));
    if (p.type === 'bool') return BigInt(Math.floor(rand() * 2));
    return BigInt(Math.floor(rand() * 200) - (p.type.startsWith('u') ? 0 : 100));
  });
  return encodeWasmCall(abi, fn.name, args, [0n, 2n, 9n, 14n, 7n][Math.floor(rand() * 5)]!);
}

/** `bytes` damaged one way or another. */
function mutate(bytes: Uint8Array, rand: () => number): Uint8Array {
  const b = bytes.slice();
  switch (Math.floor(rand() * 6)) {
    case 0: // a few bytes flipped
      for (let i = 0; i < 1 + rand() * 4; i++) b[Math.floor(rand() * b.length)] ^= 1 << Math.floor(rand() * 8);
      return b;
    case 1: // cut short
      return b.subarray(0, Math.floor(rand() * b.length));
    case 2: // extended with junk
      return new Uint8Array([...b, ...Array.from({ length: 1 + Math.floor(rand() * 64) }, () => Math.floor(rand() * 256))]);
    case 3: // an RLP list of the wrong shape: nested lists, empty items, a huge argument
      return RLP.encode([new Uint8Array(8), [new Uint8Array([1])], new Uint8Array(0), new Uint8Array(Math.floor(rand() * 5000)).fill(0x41)]);
    case 4: // a real function name with arguments of the wrong width
      return RLP.encode([new Uint8Array([0, 0, 0, 0, 0, 0, 0, 2]), new TextEncoder().encode(['setCounter', 'neg8', 'inc32', 'get', 'greet'][Math.floor(rand() * 5)]!), new Uint8Array(Math.floor(rand() * 20)).fill(0xff)]);
    default: // random bytes
      return new Uint8Array(Array.from({ length: Math.floor(rand() * 200) }, () => Math.floor(rand() * 256)));
  }
}

/** The answer's shape: a result, or an error the node made on purpose (never -32603, the internal error). */
function checkAnswer(answer: { result?: unknown; error?: { code: number; message: string } }, what: string): void {
  if (answer.error === undefined) {
    assert.type(answer.result, 'string', what);
    return;
  }
  assert.is.not(answer.error.code, -32603, `${what}: an internal error: ${answer.error.message}`);
  assert.ok(answer.error.message.length > 0, `${what}: an error without a message`);
}

maybe(`${ROUNDS} damaged calls and deploys answer with a result or a clear error, and change nothing (seed ${SEED})`, async () => {
  const rand = prng(SEED);
  const blockBefore = await node.rpc('eth_blockNumber');
  for (let i = 0; i < ROUNDS; i++) {
    const call = rand() < 0.25 ? validCall(rand) : mutate(validCall(rand), rand);
    const method = rand() < 0.5 ? 'eth_call' : 'eth_estimateGas';
    checkAnswer(await node.raw(method, [{ from: testAddress(0), to: contract, data: bytesToHex(call) }, ...(method === 'eth_call' ? ['latest'] : [])]), `#${i} ${method} ${bytesToHex(call).slice(0, 80)}`);
    if (i % 10 === 0) {
      // a deploy of a damaged module, ABI or blob
      // (built as RLP here: the codec refuses to encode a damaged module)
      const abiBytes = new TextEncoder().encode(abiJson);
      const k = Math.floor(rand() * 3);
      const blob = k === 2 ? mutate(encodeWasmDeploy(wasm, abiJson), rand) : RLP.encode([new Uint8Array(8), k === 0 ? mutate(wasm, rand) : wasm, k === 1 ? mutate(abiBytes, rand) : abiBytes]);
      checkAnswer(await node.raw('eth_estimateGas', [{ from: testAddress(0), data: bytesToHex(blob) }]), `#${i} a damaged deploy`);
    }
  }
  // nothing was mined and the contract's state is as it was
  assert.is(await node.rpc('eth_blockNumber'), blockBefore);
  const counter = await node.rpc('eth_call', [{ to: contract, data: bytesToHex(encodeWasmCall(abi, 'getCounter', [], 9n)) }, 'latest']);
  assert.is(BigInt(counter), 41n);
});

test.run();
