// Memory host functions (Venachain's life/resolver): an allocator and the C library's mem*
// functions on the module's memory, at Venachain's flat gas each.
import { u32, WasmCallError, type HostContext, type HostTable } from './context.ts';

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
    ctx.useGas(251n);
    const total = u32(num) * u32(size);
    const ptr = ctx.hostMalloc(total);
    ctx.memory().fill(0, ptr, ptr + total);
    return ptr;
  },
  realloc(ctx, ptr, size) {
    ctx.useGas(161n);
    const n = u32(size);
    if (n === 0) return 0;
    const to = ctx.hostMalloc(n);
    const from = u32(ptr);
    // the old block's size is unknown to a bump allocator: copy what fits below the new block
    if (from !== 0) ctx.memory().copyWithin(to, from, Math.min(from + n, to));
    return to;
  },
  memcpy(ctx, dest, src, len) {
    ctx.useGas(23n);
    return move(ctx, dest, src, len);
  },
  memmove(ctx, dest, src, len) {
    ctx.useGas(22n);
    return move(ctx, dest, src, len);
  },
  memcmp(ctx, a, b, len) {
    ctx.useGas(25n);
    const x = ctx.bytes(u32(a), u32(len));
    const y = ctx.bytes(u32(b), u32(len));
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return 0;
  },
  memset(ctx, ptr, value, len) {
    ctx.useGas(125n);
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
