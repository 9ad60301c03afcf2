// Writes the wasm binary format: a growable byte buffer with LEB128 integers and sections.

export class ByteWriter {
  private buf: Uint8Array;
  length = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
  }

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  u8(byte: number): this {
    this.room(1);
    this.buf[this.length++] = byte;
    return this;
  }

  bytes(bytes: Uint8Array): this {
    this.room(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
    return this;
  }

  u32(value: number): this {
    do {
      let byte = value & 0x7f;
      value = Math.floor(value / 128);
      if (value !== 0) byte |= 0x80;
      this.u8(byte);
    } while (value !== 0);
    return this;
  }

  /** signed LEB128 of any bigint (i64.const immediates) */
  s64(value: bigint): this {
    for (;;) {
      const byte = Number(value & 0x7fn);
      value >>= 7n;
      const last = (value === 0n && (byte & 0x40) === 0) || (value === -1n && (byte & 0x40) !== 0);
      this.u8(last ? byte : byte | 0x80);
      if (last) return this;
    }
  }

  s32(value: number): this {
    return this.s64(BigInt(value));
  }

  name(text: string): this {
    const bytes = new TextEncoder().encode(text);
    return this.u32(bytes.length).bytes(bytes);
  }

  /** a section: its id, then its payload's size, then the payload */
  section(id: number, payload: ByteWriter): this {
    return this.u8(id).u32(payload.length).bytes(payload.finish());
  }

  /** a size-prefixed vector entry (a function body) */
  sized(payload: ByteWriter): this {
    return this.u32(payload.length).bytes(payload.finish());
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}
