// What LMDB would map, checked with plain file reads before it does. lmdb-js 3.5 does not refuse a
// damaged data file: with a zeroed meta page it dies of SIGSEGV, and with a file shorter than its
// meta page claims, of SIGBUS on the first read past the end (measured) — a signal, no message. So
// the header is read here first and a damaged or truncated file is refused in words.
//
// data.mdb begins with meta pages (lmdb-js's mdb.c, MDB_page_header + MDB_meta, 64-bit build):
// page 0 and page 1 (at the page size) each hold a 24-byte page header (flags at 18, P_META = 8),
// then magic 0xBEEFC0DE at 24, version 2 at 28, the page size at 48 (mm_dbs[FREE].md_pad), the last
// page used at 144 and the transaction id at 152. LMDB needs page 0 intact (it reads the page size
// there), takes the page with the higher transaction id as the current snapshot, and maps up to
// that snapshot's last page.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const P_META = 0x08;
const MAGIC = 0xbeefc0de;
const DATA_VERSION = 2;
/** header bytes read per meta page: up to and including the transaction id */
const META_BYTES = 160;

interface Meta {
  pageSize: number;
  lastPage: bigint;
  txnId: bigint;
}

/** The meta page in `buf`, or why it is not one. */
function readMeta(buf: Buffer): Meta | string {
  if ((buf.readUInt16LE(18) & P_META) === 0) return 'not a meta page';
  if (buf.readUInt32LE(24) !== MAGIC) return 'bad magic';
  if ((buf.readUInt32LE(28) & 0xffff) !== DATA_VERSION) return `version ${buf.readUInt32LE(28) & 0xffff}, expected ${DATA_VERSION}`;
  const pageSize = buf.readUInt32LE(48);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return `page size ${pageSize}`;
  return { pageSize, lastPage: buf.readBigUInt64LE(144), txnId: buf.readBigUInt64LE(152) };
}

function readAt(fd: number, offset: number, size: number): Buffer | undefined {
  const buf = Buffer.alloc(size);
  return readSync(fd, buf, 0, size, offset) === size ? buf : undefined;
}

/**
 * What is wrong with the LMDB data file at `file`, in words, or undefined when LMDB may open it
 * (including when it does not exist yet or is empty: LMDB then creates a new database).
 */
export function dataFileProblem(file: string): string | undefined {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return undefined;
    const head = readAt(fd, 0, META_BYTES);
    if (head === undefined) return `is truncated: ${size} bytes, shorter than one page`;
    const meta0 = readMeta(head);
    if (typeof meta0 === 'string') {
      // the page size is in page 0: page 1 is looked for at the usual 4096
      const page1 = readAt(fd, 4096, META_BYTES);
      const meta1 = page1 === undefined ? 'missing' : readMeta(page1);
      return typeof meta1 === 'string' ? `is damaged: both meta pages are invalid (page 0: ${meta0}; page 1: ${meta1})` : `is damaged: meta page 0 is invalid (${meta0})`;
    }
    const truncated = (needed: bigint) => (BigInt(size) < needed ? `is truncated: ${size} bytes, needs at least ${needed}` : undefined);
    const page1 = readAt(fd, meta0.pageSize, META_BYTES);
    if (page1 === undefined) return truncated((meta0.lastPage + 1n) * BigInt(meta0.pageSize));
    const meta1 = readMeta(page1);
    // LMDB picks the meta with the higher transaction id without checking page 1's magic: garbage
    // there is taken as the newest snapshot (SIGSEGV, measured)
    if (typeof meta1 === 'string') return `is damaged: meta page 1 is invalid (${meta1})`;
    // it maps through the last page of the newer meta
    const newest = meta1.txnId < meta0.txnId ? meta0 : meta1;
    return truncated((newest.lastPage + 1n) * BigInt(meta0.pageSize));
  } finally {
    closeSync(fd);
  }
}
