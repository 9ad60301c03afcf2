// Memory host functions (Venachain's life/resolver): an allocator and the C library's mem*
// functions on the module's memory, at Venachain's flat gas each plus 3 a word of the length (W10).
import { LENGTH_GAS, u32, WasmCallError, words, type HostContext, type HostTable } from './context.ts';

/** Venachain's flat price and the length's words at memory.copy's rate, charged before the work. */
function useCopyGas(ctx: HostContext, flat: bigint, len: number): void {
  ctx.useGas(flat + words(len) * LENGTH_GAS.copyWord);
}

export const memoryHost: HostTable = {
  malloc(ctx, size) {
    ctx.useGas(40n);
    return ctx.hostMalloc(u32(size));
  },
  // a bump allocator never reuses memory: freeing is accepted and does nothing
  free(ctx) {
    ctx.useGas(1424n);
  },
  disable_free(ctx) {
    ctx.useGas(1n);
  },
  calloc(ctx, num, size) {
    const total = u32(num) * u32(size);
    useCopyGas(ctx, 251n, total);
    const ptr = ctx.hostMalloc(total);
    ctx.memory().fill(0, ptr, ptr + total);
    return ptr;
  },
  realloc(ctx, ptr, size) {
    const n = u32(size);
    useCopyGas(ctx, 161n, n);
    if (n === 0) return 0;
    const to = ctx.hostMalloc(n);
    const from = u32(ptr);
    // the old block's size is unknown to a bump allocator: copy what fits below the new block
    if (from !== 0) ctx.memory().copyWithin(to, from, Math.min(from + n, to));
    return to;
  },
  memcpy(ctx, dest, src, len) {
    useCopyGas(ctx, 23n, u32(len));
    return move(ctx, dest, src, len);
  },
  memmove(ctx, dest, src, len) {
    useCopyGas(ctx, 22n, u32(len));
    return move(ctx, dest, src, len);
  },
  memcmp(ctx, a, b, len) {
    useCopyGas(ctx, 25n, u32(len));
    const x = ctx.bytes(u32(a), u32(len));
    const y = ctx.bytes(u32(b), u32(len));
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return 0;
  },
  memset(ctx, ptr, value, len) {
    useCopyGas(ctx, 125n, u32(len));
    const at = u32(ptr);
    ctx.bytes(at, u32(len)).fill(Number(value) & 0xff);
    return at;
  },
};

function move(ctx: HostContext, dest: number | bigint, src: number | bigint, len: number | bigint): number {
  const d = u32(dest);
  const s = u32(src);
  const n = u32(len);
  ctx.bytes(d, n);
  ctx.bytes(s, n);
  ctx.memory().copyWithin(d, s, s + n);
  return d;
}

/**
 * The host's allocator (env.malloc) over a module's memory: bump allocation from the end of the
 * memory the module was given, growing it by whole pages as Venachain's life does above its
 * initial pages. Allocations are 8-byte aligned.
 */
export class BumpAllocator {
  private top: number;
  constructor(private readonly memory: WebAssembly.Memory) {
    this.top = memory.buffer.byteLength;
  }
  malloc(size: number): number {
    const at = (this.top + 7) & ~7;
    const end = at + size;
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      try {
        this.memory.grow(Math.ceil((end - have) / 65536));
      } catch {
        throw new WasmCallError(`malloc of ${size} bytes: the contract's memory cannot grow further`);
      }
    }
    this.top = end;
    return at;
  }
}
