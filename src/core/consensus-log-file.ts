// The iris consensus log of a node (ports.ts' ConsensusLog, I9): DATADIR/consensus.log, records
// appended and fdatasync'ed before the engine sends what they record. A record is
//   u32 length (big-endian) ‖ u32 crc32(payload) ‖ payload
// and the payload is RLP: [1, sequence, round, code, digest] (a signed vote), [2, sequence, round,
// block, [proof message…]] (a lock) or [3, sequence] (an unlock). Reading stops at the first record
// that is cut short or fails its checksum: what came before is kept, the rest is cut off, and the
// node says so. Records below the final height are dropped by rewriting the file (to a temporary
// name, fsync'ed, renamed) at the first trim after start and whenever the file passes COMPACT_BYTES.
import { closeSync, existsSync, fdatasyncSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { RLP } from '@ethereumjs/rlp';
import type { ConsensusLog, ConsensusRecords, LockRecord, SignedVote } from '../consensus/iris/ports.ts';
import { bigIntToBytes, bytesToBigInt } from '../util/hex.ts';
import type { Logger } from '../util/logger.ts';

export const CONSENSUS_LOG_FILE = 'consensus.log';
/** the file is rewritten without its final heights' records once it is this long */
const COMPACT_BYTES = 64 * 1024;

const VOTE = 1;
const LOCK = 2;
const UNLOCK = 3;

const int = (n: bigint | number) => bigIntToBytes(BigInt(n));

function frame(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(8 + payload.length);
  out.writeUInt32BE(payload.length, 0);
  out.writeUInt32BE(crc32(payload), 4);
  out.set(payload, 8);
  return out;
}

const voteRecord = (v: SignedVote) => frame(RLP.encode([int(VOTE), int(v.sequence), int(v.round), int(v.code), v.digest]));
const lockRecord = (l: LockRecord) => frame(RLP.encode([int(LOCK), int(l.sequence), int(l.round), l.block, l.proof]));

type Item = Uint8Array | Item[];
const bytes = (i: Item | undefined): Uint8Array => {
  if (!(i instanceof Uint8Array)) throw new Error('a field is not a byte string');
  // a copy: nothing read keeps the whole file's buffer alive
  return new Uint8Array(i);
};

/** The records in `data` up to the first that is not whole, and where that one starts. */
export function readRecords(data: Uint8Array): { records: ConsensusRecords; end: number; damage?: string } {
  const votes: SignedVote[] = [];
  const locks = new Map<bigint, LockRecord>();
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  while (at < view.length) {
    if (view.length - at < 8) return { records: { votes, locks: [...locks.values()] }, end: at, damage: 'cut short in a record header' };
    const length = view.readUInt32BE(at);
    if (length > view.length - at - 8) return { records: { votes, locks: [...locks.values()] }, end: at, damage: `cut short: a record of ${length} bytes has ${view.length - at - 8}` };
    const payload = view.subarray(at + 8, at + 8 + length);
    if (crc32(payload) !== view.readUInt32BE(at + 4)) return { records: { votes, locks: [...locks.values()] }, end: at, damage: 'a record fails its checksum' };
    try {
      const item = RLP.decode(payload) as Item[];
      const kind = Number(bytesToBigInt(bytes(item[0])));
      const sequence = bytesToBigInt(bytes(item[1]));
      if (kind === VOTE) votes.push({ sequence, round: Number(bytesToBigInt(bytes(item[2]))), code: Number(bytesToBigInt(bytes(item[3]))), digest: bytes(item[4]) });
      else if (kind === LOCK) {
        const proof = item[4];
        if (!Array.isArray(proof)) throw new Error('a lock proof is not a list');
        locks.set(sequence, { sequence, round: Number(bytesToBigInt(bytes(item[2]))), block: bytes(item[3]), proof: proof.map(bytes) });
      } else if (kind === UNLOCK) locks.delete(sequence);
      else throw new Error(`unknown record kind ${kind}`);
    } catch (e) {
      return { records: { votes, locks: [...locks.values()] }, end: at, damage: `a record is unreadable (${(e as Error).message})` };
    }
    at += 8 + length;
  }
  return { records: { votes, locks: [...locks.values()] }, end: at };
}

export class FileConsensusLog implements ConsensusLog {
  readonly path: string;
  private fd: number;
  private size: number;
  private live: ConsensusRecords;
  private trimmedOnce = false;

  constructor(datadir: string, log: Logger) {
    this.path = join(datadir, CONSENSUS_LOG_FILE);
    const fresh = !existsSync(this.path);
    const data = fresh ? new Uint8Array(0) : readFileSync(this.path);
    const { records, end, damage } = readRecords(data);
    this.fd = openSync(this.path, 'a+');
    if (fresh) syncDir(this.path);
    if (damage) {
      log.warn(`iris: consensus log ${this.path} is damaged: ${damage} at byte ${end} of ${data.length}; read ${records.votes.length} votes and ${records.locks.length} locks before it, the ${data.length - end} bytes after are cut off`);
      ftruncateSync(this.fd, end);
      fsyncSync(this.fd);
    }
    this.size = end;
    this.live = records;
  }

  read(): ConsensusRecords {
    return { votes: [...this.live.votes], locks: [...this.live.locks] };
  }

  vote(v: SignedVote): void {
    this.live.votes.push(v);
    this.append(voteRecord(v));
  }

  lock(l: LockRecord): void {
    this.live.locks = [...this.live.locks.filter((k) => k.sequence !== l.sequence), l];
    this.append(lockRecord(l));
  }

  unlock(sequence: bigint): void {
    this.live.locks = this.live.locks.filter((k) => k.sequence !== sequence);
    this.append(frame(RLP.encode([int(UNLOCK), int(sequence)])));
  }

  trimBelow(sequence: bigint): void {
    const votes = this.live.votes.filter((v) => v.sequence >= sequence);
    const locks = this.live.locks.filter((l) => l.sequence >= sequence);
    const dropped = votes.length < this.live.votes.length || locks.length < this.live.locks.length;
    this.live = { votes, locks };
    if (!dropped || (this.trimmedOnce && this.size < COMPACT_BYTES)) return;
    this.trimmedOnce = true;
    this.rewrite();
  }

  close(): void {
    closeSync(this.fd);
  }

  private append(record: Buffer): void {
    writeSync(this.fd, record);
    fdatasyncSync(this.fd);
    this.size += record.length;
  }

  /** The live records alone, in a new file that replaces the old one whole or not at all. */
  private rewrite(): void {
    const tmp = this.path + '.tmp';
    const fd = openSync(tmp, 'w');
    const records = [...this.live.votes.map(voteRecord), ...this.live.locks.map(lockRecord)];
    const data = Buffer.concat(records);
    writeSync(fd, data);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.path);
    syncDir(this.path);
    closeSync(this.fd);
    this.fd = openSync(this.path, 'a');
    this.size = fstatSync(this.fd).size;
  }
}

function syncDir(file: string): void {
  const fd = openSync(dirname(file), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
