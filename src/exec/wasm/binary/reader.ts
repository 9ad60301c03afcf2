// Reads the wasm binary format: bytes, LEB128 integers, names. Every read past the end throws
// WasmFormatError, which prepare.ts turns into the reason a module is refused.

export class WasmFormatError extends Error {}

export class ByteReader {
  pos: number;

  constructor(readonly bytes: Uint8Array, start = 0, readonly end = bytes.length) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  u8(): number {
    if (this.pos >= this.end) throw new WasmFormatError(`unexpected end at byte ${this.pos}`);
    return this.bytes[this.pos++];
  }

  /** unsigned LEB128 of at most 32 bits */
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = this.u8();
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) break;
      shift += 7;
      if (shift > 28) throw new WasmFormatError(`LEB128 integer too long at byte ${this.pos}`);
    }
    if (result > 0xffffffff) throw new WasmFormatError(`LEB128 integer out of range at byte ${this.pos}`);
    return result;
  }

  /** signed LEB128 of at most `bits` bits (33 for block types); only the value's sign and small values matter to callers */
  s(bits: number): number {
    let result = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = this.u8();
      if (shift < 49) result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (shift > bits + 6) throw new WasmFormatError(`LEB128 integer too long at byte ${this.pos}`);
    } while (byte & 0x80);
    if (shift < 49 && byte & 0x40) result -= 2 ** shift;
    return result;
  }

  /** skips a signed LEB128 (i32.const / i64.const immediates, copied verbatim) */
  skipLeb(): void {
    for (let i = 0; i < 10; i++) if ((this.u8() & 0x80) === 0) return;
    throw new WasmFormatError(`LEB128 integer too long at byte ${this.pos}`);
  }

  bytesOf(length: number): Uint8Array {
    if (this.pos + length > this.end) throw new WasmFormatError(`unexpected end at byte ${this.pos}`);
    const out = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  name(): string {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(this.bytesOf(this.u32()));
    } catch (err) {
      if (err instanceof WasmFormatError) throw err;
      throw new WasmFormatError(`a name is not UTF-8 at byte ${this.pos}`);
    }
  }
}
