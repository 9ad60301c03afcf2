// Our BLAKE2 F precompile (src/exec/blake2f.ts) against @ethereumjs's: EIP-152's test vectors,
// random inputs over rounds 0 … 100,000 and both final flags, and malformed inputs, each with
// the same output, gas and error. Then that it honours an execution watch's deadline.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createEVM, type ExecResult, type PrecompileInput } from '@ethereumjs/evm';
import { blake2f, BLAKE2F_ADDRESS } from '../src/exec/blake2f.ts';
import { ExecutionWatch, EXECUTION_TIMEOUT } from '../src/exec/execution-watch.ts';
import { prng } from './helpers/prng.ts';
import { paced, slowdown } from './helpers/pace.ts';

let evm: Awaited<ReturnType<typeof createEVM>>;
let reference: NonNullable<ReturnType<typeof evm.getPrecompile>>;

test.before(async () => {
  evm = await createEVM();
  reference = evm.getPrecompile(BLAKE2F_ADDRESS)!;
});

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));

function input(data: Uint8Array, gasLimit = 10n ** 9n, watch?: ExecutionWatch): PrecompileInput {
  return { data, gasLimit, common: evm.common, _EVM: Object.assign(Object.create(evm), { executionWatch: watch }) } as PrecompileInput;
}

/** What a result shows a caller: output, gas, error. */
function outcome(r: ExecResult) {
  return { out: hex(r.returnValue), gas: r.executionGasUsed, error: r.exceptionError?.error };
}

async function same(data: Uint8Array, gasLimit?: bigint): Promise<ExecResult> {
  const ours = await blake2f(input(data, gasLimit));
  assert.equal(outcome(ours), outcome(await reference(input(data, gasLimit))), `input ${hex(data).slice(0, 16)}… (${data.length} bytes), gas ${gasLimit}`);
  return ours;
}

// EIP-152's vectors 4–7 (h, m = "abc", t = 3)
const H = '48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b';
const M = '616263' + '00'.repeat(125);
const T = '0300000000000000' + '0000000000000000';
const VECTORS: [string, string][] = [
  ['00000000' + H + M + T + '01', '08c9bcf367e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d282e6ad7f520e511f6c3e2b8c68059b9442be0454267ce079217e1319cde05b'],
  ['0000000c' + H + M + T + '01', 'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923'],
  ['0000000c' + H + M + T + '00', '75ab69d3190a562c51aef8d88f1c2775876944407270c42c9844252c26d2875298743e7f6d5ea2f2d3e8d226039cd31b4e426ac4f2d3d666a610c2116fde4735'],
  ['00000001' + H + M + T + '01', 'b63a380cb2897d521994a85234ee2c181b5f844d2c624c002677e9703449d2fba551b3a8333bcdf5f2f7e08993d53923de3d64fcc68c034e717b9293fed7a421'],
];

test("EIP-152's test vectors", async () => {
  for (const [data, expected] of VECTORS) assert.is(hex((await same(bytes(data))).returnValue), expected);
});

test('random inputs: rounds 0, 1, 12 and up to 100,000, both final flags', async () => {
  const rnd = prng(152);
  const roundCounts = [0, 1, 2, 9, 10, 11, 12, 13, 20, 8191, 8192, 8193, 100_000];
  for (let i = 0; i < 60; i++) {
    const data = new Uint8Array(213).map(() => Math.floor(rnd() * 256));
    const rounds = i < roundCounts.length ? roundCounts[i]! : Math.floor(rnd() * 3000);
    new DataView(data.buffer).setUint32(0, rounds);
    data[212] = i % 2;
    await same(data);
  }
});

test('malformed inputs and too little gas: the same error and gas', async () => {
  const valid = bytes(VECTORS[1]![0]);
  await same(new Uint8Array(0));
  await same(valid.subarray(0, 212));
  await same(new Uint8Array([...valid, 0]));
  for (const flag of [2, 0x80, 0xff]) await same(new Uint8Array([...valid.subarray(0, 212), flag]));
  const r = await same(valid, 11n);
  assert.is(r.exceptionError?.error, 'out of gas');
  await same(valid, 12n);
});

test("halts at the watch's deadline, letting I/O run meanwhile", async () => {
  const data = bytes(VECTORS[1]![0]);
  new DataView(data.buffer).setUint32(0, 49_970_000);
  const pace = await slowdown();
  const watch = new ExecutionWatch();
  watch.limit({ deadline: performance.now() + 200 });
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  const t0 = performance.now();
  const r = await blake2f(input(data, 50_000_000n, watch));
  const ms = performance.now() - t0;
  clearInterval(timer);
  assert.is(r.exceptionError?.error, EXECUTION_TIMEOUT);
  assert.is(r.executionGasUsed, 50_000_000n);
  assert.ok(watch.expired);
  // unbounded, 49,970,000 rounds take 5–7 s
  const bound = await paced(1000, pace);
  assert.ok(ms < bound, `halted after ${ms.toFixed(0)} ms (bound ${bound.toFixed(0)} ms at this machine's pace)`);
  assert.ok(ticks >= 5, `a 10 ms timer ran ${ticks} times in ${ms.toFixed(0)} ms`);
});

test.run();
