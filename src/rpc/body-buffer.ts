// One request body as it streams in, copied into one growing buffer. Keeping each chunk instead
// cost ~150 bytes (uWS) to ~400 bytes (node:http) of objects per chunk however small: a body
// trickled a byte per TCP segment over 200 connections grew the node by 17–55 MiB in 5 s, a heap
// that stayed after they closed (issue 19, item 11). Here a body costs at most twice its bytes.
export class BodyBuffer {
  private bytes: Buffer | undefined;
  private length = 0;

  get size(): number {
    return this.length;
  }

  /** Copies `chunk` in (the caller may reuse or lose its memory afterwards). */
  append(chunk: Uint8Array): void {
    const needed = this.length + chunk.byteLength;
    if (this.bytes === undefined || needed > this.bytes.length) {
      // unpooled: a small body would otherwise keep a shared 8 KiB pool slab alive
      const grown = Buffer.allocUnsafeSlow(Math.max(needed, 2 * (this.bytes?.length ?? 0)));
      this.bytes?.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
    this.bytes.set(chunk, this.length);
    this.length = needed;
  }

  /** The body so far (a view: valid until the next append). */
  view(): Buffer {
    return this.bytes === undefined ? Buffer.alloc(0) : this.bytes.subarray(0, this.length);
  }
}
