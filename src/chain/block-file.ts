// The file `chain-node export` writes and `chain-node import` reads: blocks in their wire form
// (src/chain/block-codec.ts), RLP items back to back with nothing between them — geth's export
// layout, with this chain's block encoding inside. A name ending in `.gz` is gzip-compressed, as in
// geth. The file is read as a stream, a block at a time: a chain does not have to fit in memory.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { PassThrough, type Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { rlpSpan } from '../util/rlp-header.ts';

/** The file does not hold blocks from `offset` on (a block cut short, or bytes that are no RLP list). */
export class BlockFileError extends Error {}

/** Blocks larger than this are refused before their bytes are gathered (a damaged length prefix would else read the whole file). */
const MAX_BLOCK_BYTES = 64 * 1024 * 1024;

/** One encoded block and where it starts in the (uncompressed) stream. */
export interface FileBlock {
  bytes: Uint8Array;
  offset: number;
}

/** The blocks of `path`, in file order; throws BlockFileError where the file stops holding blocks. */
export async function* readBlockFile(path: string): AsyncGenerator<FileBlock> {
  const file = createReadStream(path);
  const input: Readable = path.endsWith('.gz') ? file.pipe(createGunzip()) : file;
  // a gunzip error is the gunzip stream's own: it reaches the loop below through `input`
  file.on('error', (e) => input.destroy(e));
  let buffered: Buffer = Buffer.alloc(0);
  let offset = 0;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      let at = 0;
      for (;;) {
        const end = itemEnd(buffered, at, offset);
        if (end === undefined || end > buffered.length) break;
        yield { bytes: buffered.subarray(at, end), offset: offset + at };
        at = end;
      }
      buffered = buffered.subarray(at);
      offset += at;
    }
  } catch (e) {
    // zlib's errors (Z_DATA_ERROR, Z_BUF_ERROR…) are the file's: said in words like the others
    if ((e as NodeJS.ErrnoException).code?.startsWith('Z_')) throw new BlockFileError(`${path} does not decompress (gzip) after ${offset} bytes: ${(e as Error).message}`);
    throw e;
  } finally {
    input.destroy();
  }
  if (buffered.length > 0) throw new BlockFileError(`the file ends inside a block: ${buffered.length} bytes from offset ${offset} are no whole block`);
}

/** The end of the RLP list at `at`, or undefined when its header is not all buffered yet. */
function itemEnd(b: Buffer, at: number, base: number): number | undefined {
  if (at >= b.length) return undefined;
  const prefix = b[at]!;
  if (prefix < 0xc0) throw new BlockFileError(`no block at offset ${base + at}: byte 0x${prefix.toString(16).padStart(2, '0')} does not begin an RLP list`);
  if (prefix > 0xf7 && at + 1 + (prefix - 0xf7) > b.length) return undefined;
  const end = rlpSpan(b, at)[1];
  if (end - at > MAX_BLOCK_BYTES) throw new BlockFileError(`no block at offset ${base + at}: its length prefix says ${end - at} bytes, more than any block`);
  return end;
}

/** Writes `blocks` to `path` (gzip when it ends in `.gz`), replacing what it held; resolves once it is all written. */
export async function writeBlockFile(path: string, blocks: Iterable<Uint8Array>): Promise<void> {
  const file = createWriteStream(path);
  const out = path.endsWith('.gz') ? createGzip() : new PassThrough();
  const done = pipeline(out, file);
  done.catch(() => {}); // awaited below; a failure meanwhile ends the writes (write() after it is a no-op)
  // the loop waits for 'drain' so a long chain is written as it is read, never held whole
  const drained = async () => {
    await Promise.race([once(out, 'drain'), done]);
  };
  try {
    for (const block of blocks) if (!out.write(block)) await drained();
  } finally {
    out.end();
  }
  await done;
}
