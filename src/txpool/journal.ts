// The transaction journal (geth's --txpool.journal): every transaction this node answers with a hash
// is in the journal before the answer goes out, and is replayed into the pool at the next start, so
// an acknowledged transaction survives a crash (issue 19, item 9: 1,271 of 4,277 were lost to a SIGKILL).
//
// The file is a run of records, each the RLP list [local flag, raw transaction] (the flag: 0x01 for
// a transaction of a local sender, empty otherwise). Appends are group commits: the records of every
// admission since the previous write go out in one write, and their answers wait for it — except a
// record that need not be synced arriving while nothing is being written, which is written at once
// (a turn's wait for the batch slowed each raw submission's answer: the WebSocket fan-out bench,
// one transaction a block, 198 → 168 blocks/s). A record
// appended `durable` (what the node signed) also waits for the fdatasync after that write, so it
// survives a power cut as well; the others are in the kernel's page cache once written, which a
// crash of the process cannot lose, and on disk with the next sync (measured: an fdatasync beside
// LMDB's block commits took 4–15 ms a batch here, which halved raw submissions' admission at period 0).
// The file is rewritten from the pool — write a temporary file, sync, rename, sync the folder — at
// start, every `rewriteEveryMs` (--txpool.rejournal), when the appends have doubled it (past 4 MiB),
// and at a clean shutdown, so transactions mined or dropped leave it. A crash in the middle of an
// append leaves a record cut short at the end: reading stops at the first record that does not
// parse, and everything before it had been written before any of its transactions was answered.
import { open, rename, type FileHandle } from 'node:fs/promises';
import { readFileSync, writevSync } from 'node:fs';
import { dirname } from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { rlpHeader, rlpSpan } from '../util/rlp-header.ts';
import type { Logger } from '../util/logger.ts';

export interface JournalRecord {
  raw: Uint8Array;
  /** its sender is local (it sent a transaction this node signed, P3): exempt from eviction */
  local: boolean;
}

export interface JournalContents {
  records: JournalRecord[];
  /** bytes at the end that are no record: an append cut short by a crash (never answered) */
  unreadableBytes: number;
}

/** The journal's records, in the order written; a missing file is an empty journal. */
export function readJournal(path: string): JournalContents {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], unreadableBytes: 0 };
    throw e;
  }
  const records: JournalRecord[] = [];
  let at = 0;
  while (at < file.length) {
    const end = file[at]! >= 0xc0 ? rlpSpan(file, at)[1] : NaN;
    if (!(end <= file.length)) break;
    const record = decodeRecord(file.subarray(at, end));
    if (!record) break;
    records.push(record);
    at = end;
  }
  return { records, unreadableBytes: file.length - at };
}

function decodeRecord(item: Uint8Array): JournalRecord | undefined {
  let fields;
  try {
    fields = RLP.decode(item);
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields.length !== 2) return undefined;
  const [flag, raw] = fields;
  if (!(flag instanceof Uint8Array) || !(raw instanceof Uint8Array) || raw.length === 0) return undefined;
  if (flag.length > 1 || (flag.length === 1 && flag[0] !== 1)) return undefined;
  return { raw, local: flag.length === 1 };
}

/** A record as two buffers: the headers with the flag, then the raw transaction itself (not copied; never one byte, so always behind a header). */
function encodeRecord({ raw, local }: JournalRecord): [Uint8Array, Uint8Array] {
  const rawHeader = rlpHeader(raw.length, 0x80);
  const payload = 1 + rawHeader.length + raw.length;
  return [Uint8Array.from([...rlpHeader(payload, 0xc0), local ? 0x01 : 0x80, ...rawHeader]), raw];
}

/** Below this size appends never trigger a rewrite; above it, doubling the last rewrite's size does. */
const REWRITE_FLOOR_BYTES = 4 * 1024 * 1024;

export interface TxJournalOptions {
  path: string;
  /** --txpool.rejournal */
  rewriteEveryMs: number;
  /** what the journal must hold now: every pooled transaction with its sender's locality */
  contents: () => Iterable<JournalRecord>;
  /**
   * Resolves once every block committed so far is on disk (LMDB syncs commits behind them): a
   * rewrite waits for it, so a transaction leaves the journal only once the block holding it is safe.
   */
  chainDurable: () => Promise<void>;
  log: Logger;
}

interface Waiter {
  /** answered only after the fdatasync, not after the write alone */
  durable: boolean;
  resolve(): void;
  reject(e: unknown): void;
}

export class TxJournal {
  private file: FileHandle | undefined;
  private size = 0;
  private rewrittenSize = 0;
  /** records appended since the last write started, and the answers waiting for them */
  private batch: Uint8Array[] = [];
  private batchBytes = 0;
  private waiting: Waiter[] = [];
  private batchQueued = false;
  private rewriteQueued: Promise<void> | undefined;
  /** writes and rewrites, one at a time */
  private queue: Promise<void> = Promise.resolve();
  /** writes and rewrites queued or running: while there are any, appends join the batch */
  private queued = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(private readonly o: TxJournalOptions) {}

  /** Opens the journal and rewrites it from the pool at once (which also drops a cut-short end). */
  static async open(o: TxJournalOptions): Promise<TxJournal> {
    const journal = new TxJournal(o);
    await journal.rewrite();
    journal.timer = setInterval(() => journal.rewriteLogged(), o.rewriteEveryMs);
    journal.timer.unref();
    return journal;
  }

  /**
   * Resolves once the record is written (with the others of its batch), and with `durable` once it
   * is synced to the disk too.
   */
  append(record: JournalRecord, durable: boolean): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the transaction journal is closed'));
    const buffers = encodeRecord(record);
    if (!durable && this.queued === 0 && !this.batchQueued && this.file !== undefined) {
      try {
        this.write(buffers, buffers[0].length + buffers[1].length);
        return Promise.resolve();
      } catch (e) {
        return Promise.reject(this.failure(e));
      }
    }
    this.batch.push(...buffers);
    this.batchBytes += buffers[0].length + buffers[1].length;
    const written = new Promise<void>((resolve, reject) => this.waiting.push({ durable, resolve, reject }));
    if (!this.batchQueued) {
      this.batchQueued = true;
      // the next turn: the admissions finishing in this one join the same write
      setImmediate(() => void this.enqueue(() => this.writeBatch()).catch(() => {}));
    }
    return written;
  }

  /** Rewrites the file from the pool (queued behind the write in progress; one rewrite queued at most). */
  private rewrite(): Promise<void> {
    this.rewriteQueued ??= this.enqueue(() => this.rewriteNow());
    return this.rewriteQueued;
  }

  /** A last rewrite (what is left in the pool), then the file is closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.rewriteLogged();
    await this.queue;
    await this.file?.close();
    this.file = undefined;
  }

  private rewriteLogged(): Promise<void> {
    return this.rewrite().catch((e) => this.o.log.error(`txpool journal: rewriting ${this.o.path} failed: ${(e as Error).message}`));
  }

  private enqueue(op: () => Promise<void>): Promise<void> {
    this.queued++;
    const done = this.queue.then(op).finally(() => this.queued--);
    this.queue = done.catch(() => {});
    return done;
  }

  /**
   * Writes records now, on the event loop (a write into the page cache takes microseconds, a hop to
   * libuv's threads, busy with LMDB's commits, longer); throws when not all was written, after
   * queueing a cut back to the last whole record, so later records do not follow a broken one.
   */
  private write(buffers: Uint8Array[], bytes: number): void {
    let written;
    try {
      written = writevSync(this.file!.fd, buffers);
    } catch (e) {
      this.cutBack();
      throw e;
    }
    if (written !== bytes) {
      this.cutBack();
      throw new Error(`short write: ${written} of ${bytes} bytes`);
    }
    this.size += bytes;
    if (this.size > Math.max(REWRITE_FLOOR_BYTES, 2 * this.rewrittenSize)) void this.rewriteLogged();
  }

  private cutBack(): void {
    const file = this.file!;
    const size = this.size;
    void this.enqueue(() => file.truncate(size).catch(() => {}));
  }

  private takeBatch(): { buffers: Uint8Array[]; bytes: number; waiting: Waiter[] } {
    const taken = { buffers: this.batch, bytes: this.batchBytes, waiting: this.waiting };
    this.batch = [];
    this.batchBytes = 0;
    this.waiting = [];
    this.batchQueued = false;
    return taken;
  }

  private async writeBatch(): Promise<void> {
    const { buffers, bytes, waiting } = this.takeBatch();
    if (waiting.length === 0) return; // a rewrite took them
    try {
      this.write(buffers, bytes);
    } catch (e) {
      this.fail(waiting, e);
      throw e;
    }
    for (const w of waiting) if (!w.durable) w.resolve();
    const durable = waiting.filter((w) => w.durable);
    if (durable.length > 0) {
      try {
        await this.file!.datasync();
      } catch (e) {
        this.fail(durable, e);
        throw e;
      }
      for (const w of durable) w.resolve();
    }
  }

  private fail(waiting: Waiter[], e: unknown): void {
    for (const w of waiting) w.reject(this.failure(e));
  }

  private failure(e: unknown): Error {
    return new Error(`the transaction journal ${this.o.path} could not be written: ${(e as Error).message}`);
  }

  private async rewriteNow(): Promise<void> {
    this.rewriteQueued = undefined;
    // records still waiting are of pooled transactions (they enter the pool before the journal):
    // the snapshot holds those still there, the rest need no record
    const { waiting } = this.takeBatch();
    try {
      // the snapshot before the wait: a transaction missing from it left the pool in a block whose
      // commit came before, which the wait then covers
      const records = [...this.o.contents()];
      await this.o.chainDurable();
      const buffers = records.flatMap(encodeRecord);
      const bytes = buffers.reduce((n, b) => n + b.length, 0);
      // the new file opened for appending (O_APPEND, emptied: a failed attempt may have left one) is
      // the handle appends use after the rename
      const tmp = `${this.o.path}.new`;
      const out = await open(tmp, 'a');
      try {
        await out.truncate(0);
        await writeAll(out, buffers, bytes);
        await out.sync();
        await rename(tmp, this.o.path);
      } catch (e) {
        await out.close();
        throw e;
      }
      const old = this.file;
      this.file = out;
      this.size = this.rewrittenSize = bytes;
      await old?.close();
      await syncFolder(dirname(this.o.path));
      this.o.log.debug(`txpool journal: rewrote ${this.o.path}: ${records.length} transactions, ${bytes} bytes`);
    } catch (e) {
      this.fail(waiting, e);
      throw e;
    }
    for (const w of waiting) w.resolve();
  }
}

/** One gathered write (libuv writes every buffer, resuming after short writes); a short total is an error. */
async function writeAll(file: FileHandle, buffers: Uint8Array[], bytes: number): Promise<void> {
  if (bytes === 0) return;
  const { bytesWritten } = await file.writev(buffers);
  if (bytesWritten !== bytes) throw new Error(`short write: ${bytesWritten} of ${bytes} bytes`);
}

/** A rename is durable once its folder is synced. */
async function syncFolder(path: string): Promise<void> {
  const folder = await open(path, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
