// The BLAKE2 F precompile (0x09, EIP-152) in place of @ethereumjs's: its gas is one per round, so
// the 50M-gas eth_call cap buys 50M rounds, and @ethereumjs's compression ran them as one
// synchronous call at ~1.5–1.8M rounds/s (a 213-byte eth_call held the event loop for 28 s). Here
// the rounds run in chunks, letting I/O run between chunks and halting at the EVM's deadline
// (src/exec/execution-watch.ts), and the compression keeps the 16 words as 32-bit halves in local
// variables (no typed-array traffic, no BigInt, no allocation per round). Same input checks,
// errors, gas and output as @ethereumjs's (test/exec-blake2f.test.ts compares them).
import { EVMError, type ExecResult, type PrecompileInput } from '@ethereumjs/evm';
import { EXECUTION_TIMEOUT, type ExecutionWatch } from './execution-watch.ts';

export const BLAKE2F_ADDRESS = '0x0000000000000000000000000000000000000009';

/** Rounds between looks at the watch: ~1 ms at the measured rate. */
const ROUNDS_PER_CHUNK = 8192;

const IV = new Int32Array(new Uint32Array([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a,
  0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]).buffer);

// prettier-ignore
/** BLAKE2b's message schedule (ten rounds, then it repeats), as offsets of 32-bit halves. */
const S = new Uint8Array([
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
  14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3,
  11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4,
  7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8,
  9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13,
  2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9,
  12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11,
  13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10,
  6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5,
  10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0,
].map((w) => w * 2));

/**
 * Rounds `from` … `to` − 1 of the compression on the work vector `v` (16 words as low/high int32
 * halves) with message `m` (likewise). Unrolled: the eight G mixes of a round, each on locals.
 */
function rounds(v: Int32Array, m: Int32Array, from: number, to: number): void {
  let v0l = v[0]!, v0h = v[1]!, v1l = v[2]!, v1h = v[3]!, v2l = v[4]!, v2h = v[5]!, v3l = v[6]!, v3h = v[7]!, v4l = v[8]!, v4h = v[9]!, v5l = v[10]!, v5h = v[11]!, v6l = v[12]!, v6h = v[13]!, v7l = v[14]!, v7h = v[15]!, v8l = v[16]!, v8h = v[17]!, v9l = v[18]!, v9h = v[19]!, v10l = v[20]!, v10h = v[21]!, v11l = v[22]!, v11h = v[23]!, v12l = v[24]!, v12h = v[25]!, v13l = v[26]!, v13h = v[27]!, v14l = v[28]!, v14h = v[29]!, v15l = v[30]!, v15h = v[31]!;
  let lo: number, tl: number, th: number, x: number, y: number;
  for (let r = from; r < to; r++) {
    const s = (r % 10) * 16;
      x = S[s + 0]!; y = S[s + 1]!;
      lo = (v0l >>> 0) + (v4l >>> 0) + (m[x]! >>> 0); v0h = (v0h + v4h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0; v0l = lo | 0;
      tl = v12l ^ v0l; v12l = v12h ^ v0h; v12h = tl;
      lo = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((lo / 0x100000000) | 0)) | 0; v8l = lo | 0;
      tl = v4l ^ v8l; th = v4h ^ v8h; v4l = (tl >>> 24) | (th << 8); v4h = (th >>> 24) | (tl << 8);
      lo = (v0l >>> 0) + (v4l >>> 0) + (m[y]! >>> 0); v0h = (v0h + v4h + m[y + 1]! + ((lo / 0x100000000) | 0)) | 0; v0l = lo | 0;
      tl = v12l ^ v0l; th = v12h ^ v0h; v12l = (tl >>> 16) | (th << 16); v12h = (th >>> 16) | (tl << 16);
      lo = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((lo / 0x100000000) | 0)) | 0; v8l = lo | 0;
      tl = v4l ^ v8l; th = v4h ^ v8h; v4l = (th >>> 31) | (tl << 1); v4h = (tl >>> 31) | (th << 1);
      x = S[s + 2]!; y = S[s + 3]!;
      lo = (v1l >>> 0) + (v5l >>> 0) + (m[x]! >>> 0); v1h = (v1h + v5h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0; v1l = lo | 0;
      tl = v13l ^ v1l; v13l = v13h ^ v1h; v13h = tl;
      lo = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((lo / 0x100000000) | 0)) | 0; v9l = lo | 0;
      tl = v5l ^ v9l; th = v5h ^ v9h; v5l = (tl >>> 24) | (th << 8); v5h = (th >>> 24) | (tl << 8);
      lo = (v1l >>> 0) + (v5l >>> 0) + (m[y]! >>> 0); v1h = (v1h + v5h + m[y + 1]! + ((lo / 0x100000000) | 0)) | 0; v1l = lo | 0;
      tl = v13l ^ v1l; th = v13h ^ v1h; v13l = (tl >>> 16) | (th << 16); v13h = (th >>> 16) | (tl << 16);
      lo = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((lo / 0x100000000) | 0)) | 0; v9l = lo | 0;
      tl = v5l ^ v9l; th = v5h ^ v9h; v5l = (th >>> 31) | (tl << 1); v5h = (tl >>> 31) | (th << 1);
      x = S[s + 4]!; y = S[s + 5]!;
      lo = (v2l >>> 0) + (v6l >>> 0) + (m[x]! >>> 0); v2h = (v2h + v6h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0; v2l = lo | 0;
      tl = v14l ^ v2l; v14l = v14h ^ v2h; v14h = tl;
      lo = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((lo / 0x100000000) | 0)) | 0; v10l = lo | 0;
      tl = v6l ^ v10l; th = v6h ^ v10h; v6l = (tl >>> 24) | (th << 8); v6h = (th >>> 24) | (tl << 8);
      lo = (v2l >>> 0) + (v6l >>> 0) + (m[y]! >>> 0); v2h = (v2h + v6h + m[y + 1]! + ((lo / 0x100000000) | 0)) | 0; v2l = lo | 0;
      tl = v14l ^ v2l; th = v14h ^ v2h; v14l = (tl >>> 16) | (th << 16); v14h = (th >>> 16) | (tl << 16);
      lo = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((lo / 0x100000000) | 0)) | 0; v10l = lo | 0;
      tl = v6l ^ v10l; th = v6h ^ v10h; v6l = (th >>> 31) | (tl << 1); v6h = (tl >>> 31) | (th << 1);
      x = S[s + 6]!; y = S[s + 7]!;
      lo = (v3l >>> 0) + (v7l >>> 0) + (m[x]! >>> 0); v3h = (v3h + v7h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0; v3l = lo | 0;
      tl = v15l ^ v3l; v15l = v15h ^ v3h; v15h = tl;
      lo = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((lo / 0x100000000) | 0)) | 0; v11l = lo | 0;
      tl = v7l ^ v11l; th = v7h ^ v11h; v7l = (tl >>> 24) | (th << 8); v7h = (th >>> 24) | (tl << 8);
      lo = (v3l >>> 0) + (v7l >>> 0) + (m[y]! >>> 0); v3h = (v3h + v7h + m[y + 1]! + ((lo / 0x100000000) | 0)) | 0; v3l = lo | 0;
      tl = v15l ^ v3l; th = v15h ^ v3h; v15l = (tl >>> 16) | (th << 16); v15h = (th >>> 16) | (tl << 16);
      lo = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((lo / 0x100000000) | 0)) | 0; v11l = lo | 0;
      tl = v7l ^ v11l; th = v7h ^ v11h; v7l = (th >>> 31) | (tl << 1); v7h = (tl >>> 31) | (th << 1);
      x = S[s + 8]!; y = S[s + 9]!;
      lo = (v0l >>> 0) + (v5l >>> 0) + (m[x]! >>> 0); v0h = (v0h + v5h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0; v0l = lo | 0;
      tl = v15l ^ v0l; v15l = v15h ^ v0h; v15h = tl;
      lo = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((lo / 0x100000000) | 0)) | 0; v10l = lo | 0;
      tl = v5l ^ v10l; th = v5h ^ v10h; v5l = (tl >>> 24) | (th << 8); v5h = (th >>> 24) | (tl << 8);
      lo = (v0l >>> 0) + (v5l >>> 0) + (m[y]! >>> 0); v0h = (v0h + v5h + m[y + 1]! + ((lo / 0x100000000) | 0)) | 0; v0l = lo | 0;
      tl = v15l ^ v0l; th = v15h ^ v0h; v15l = (tl >>> 16) | (th << 16); v15h = (th >>> 16) | (tl << 16);
      lo = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((lo / 0x100000000) | 0)) | 0; v10l = lo | 0;
      tl = v5l ^ v10l; th = v5h ^ v10h; v5l = (th >>> 31) | (tl << 1); v5h = (tl >>> 31) | (th << 1);
      x = S[s + 10]!; y = S[s + 11]!;
      lo = (v1l >>> 0) + (v6l >>> 0) + (m[x]! >>> 0); v1h = (v1h + v6h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0; v1l = lo | 0;
      tl = v12l ^ v1l; v12l = v12h ^ v1h; v12h = tl;
      lo = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((lo / 0x100000000) | 0)) | 0; v11l = lo | 0;
      tl = v6l ^ v11l; th = v6h ^ v11h; v6l = (tl >>> 24) | (th << 8); v6h = (th >>> 24) | (tl << 8);
      lo = (v1l >>> 0) + (v6l >>> 0) + (m[y]! >>> 0); v1h = (v1h + v6h + m[y + 1]! + ((lo / 0x100000000) | 0)) | 0; v1l = lo | 0;
      tl = v12l ^ v1l; th = v12h ^ v1h; v12l = (tl >>> 16) | (th << 16); v12h = (th >>> 16) | (tl << 16);
      lo = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((lo / 0x100000000) | 0)) | 0; v11l = lo | 0;
      tl = v6l ^ v11l; th = v6h ^ v11h; v6l = (th >>> 31) | (tl << 1); v6h = (tl >>> 31) | (th << 1);
      x = S[s + 12]!; y = S[s + 13]!;
      lo = (v2l >>> 0) + (v7l >>> 0) + (m[x]! >>> 0); v2h = (v2h + v7h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0; v2l = lo | 0;
      tl = v13l ^ v2l; v13l = v13h ^ v2h; v13h = tl;
      lo = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((lo / 0x100000000) | 0)) | 0; v8l = lo | 0;
      tl = v7l ^ v8l; th = v7h ^ v8h; v7l = (tl >>> 24) | (th << 8); v7h = (th >>> 24) | (tl << 8);
      lo = (v2l >>> 0) + (v7l >>> 0) + (m[y]! >>> 0); v2h = (v2h + v7h + m[y + 1]! + ((lo / 0x100000000) | 0)) | 0; v2l = lo | 0;
      tl = v13l ^ v2l; th = v13h ^ v2h; v13l = (tl >>> 16) | (th << 16); v13h = (th >>> 16) | (tl << 16);
      lo = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((lo / 0x100000000) | 0)) | 0; v8l = lo | 0;
      tl = v7l ^ v8l; th = v7h ^ v8h; v7l = (th >>> 31) | (tl << 1); v7h = (tl >>> 31) | (th << 1);
      x = S[s + 14]!; y = S[s + 15]!;
      lo = (v3l >>> 0) + (v4l >>> 0) + (m[x]! >>> 0); v3h = (v3h + v4h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0; v3l = lo | 0;
      tl = v14l ^ v3l; v14l = v14h ^ v3h; v14h = tl;
      lo = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((lo / 0x100000000) | 0)) | 0; v9l = lo | 0;
      tl = v4l ^ v9l; th = v4h ^ v9h; v4l = (tl >>> 24) | (th << 8); v4h = (th >>> 24) | (tl << 8);
      lo = (v3l >>> 0) + (v4l >>> 0) + (m[y]! >>> 0); v3h = (v3h + v4h + m[y + 1]! + ((lo / 0x100000000) | 0)) | 0; v3l = lo | 0;
      tl = v14l ^ v3l; th = v14h ^ v3h; v14l = (tl >>> 16) | (th << 16); v14h = (th >>> 16) | (tl << 16);
      lo = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((lo / 0x100000000) | 0)) | 0; v9l = lo | 0;
      tl = v4l ^ v9l; th = v4h ^ v9h; v4l = (th >>> 31) | (tl << 1); v4h = (tl >>> 31) | (th << 1);
  }
  v[0] = v0l; v[1] = v0h; v[2] = v1l; v[3] = v1h; v[4] = v2l; v[5] = v2h; v[6] = v3l; v[7] = v3h; v[8] = v4l; v[9] = v4h; v[10] = v5l; v[11] = v5h; v[12] = v6l; v[13] = v6h; v[14] = v7l; v[15] = v7h; v[16] = v8l; v[17] = v8h; v[18] = v9l; v[19] = v9h; v[20] = v10l; v[21] = v10h; v[22] = v11l; v[23] = v11h; v[24] = v12l; v[25] = v12h; v[26] = v13l; v[27] = v13h; v[28] = v14l; v[29] = v14h; v[30] = v15l; v[31] = v15h;

}

function failure(error: EVMError, gasLimit: bigint): ExecResult {
  return { returnValue: new Uint8Array(0), executionGasUsed: gasLimit, exceptionError: error };
}

/** The precompile: input rounds ‖ h ‖ m ‖ t ‖ f (213 bytes), output the new h (64 bytes). */
export async function blake2f(opts: PrecompileInput): Promise<ExecResult> {
  const data = opts.data;
  if (data.length !== 213 || (data[212] !== 0 && data[212] !== 1)) return failure(new EVMError(EVMError.errorMessages.OUT_OF_RANGE), opts.gasLimit);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const total = view.getUint32(0);
  const gasUsed = opts.common.param('blake2RoundGas') * BigInt(total);
  if (opts.gasLimit < gasUsed) return failure(new EVMError(EVMError.errorMessages.OUT_OF_GAS), opts.gasLimit);
  const v = new Int32Array(32);
  const m = new Int32Array(32);
  for (let i = 0; i < 16; i++) {
    v[i] = view.getInt32(4 + i * 4, true);
    v[i + 16] = IV[i]!;
  }
  for (let i = 0; i < 32; i++) m[i] = view.getInt32(68 + i * 4, true);
  for (let i = 0; i < 4; i++) v[24 + i] ^= view.getInt32(196 + i * 4, true);
  if (data[212] === 1) {
    v[28] = ~v[28]!;
    v[29] = ~v[29]!;
  }
  const watch = (opts._EVM as { executionWatch?: ExecutionWatch }).executionWatch;
  for (let done = 0; done < total; ) {
    const to = Math.min(total, done + ROUNDS_PER_CHUNK);
    rounds(v, m, done, to);
    done = to;
    if (done < total && watch !== undefined && !(await watch.look())) return failure(new EVMError(EXECUTION_TIMEOUT as never), opts.gasLimit);
  }
  const out = new Uint8Array(64);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 16; i++) outView.setInt32(i * 4, view.getInt32(4 + i * 4, true) ^ v[i]! ^ v[i + 16]!, true);
  return { executionGasUsed: gasUsed, returnValue: out };
}
