// Recovers the public keys behind transaction signatures, on the main thread or on recovery
// threads (A20). Recovery is the largest single cost of admitting a
// transaction (libsecp256k1, ~50–65 µs of the ~95 µs decoding takes on the event loop, measured); with threads, the
// requests of one event-loop turn go to a thread as one message and the event loop keeps parsing,
// checking and answering meanwhile. A block's transactions to import go to a thread whole: it
// decodes and checks them too (N9).
import type { Worker } from 'node:worker_threads';
import type { Common } from '@ethereumjs/common';
import { InvalidSignature, recoverHere } from '../crypto/secp256k1.ts';
import { startModuleWorker } from '../util/module-worker.ts';
import type { RecoveryAnswer, SignaturesAnswer, SignaturesRequest, TransactionsAnswer, TransactionsRequest } from './recovery-protocol.ts';
import { decodeTxFacts, type TxFacts } from './pooled-tx.ts';
import { makeTxCommon } from './common.ts';

export interface SignatureRecovery {
  /** The 64-byte public key (no 0x04 prefix) that signed `digest`; rejects when the signature recovers none. */
  recover(digest: Uint8Array, rs: Uint8Array, recid: number): Promise<Uint8Array>;
  /** Decodes, checks and recovers the senders of signed transactions of chain `chainId` (decodeTxFacts); a string is a refusal. */
  decodeTxs(raws: Uint8Array[], chainId: bigint): Promise<(TxFacts | string)[]>;
  /** threads recovering (0: the calling thread does) */
  readonly threads: number;
  close(): Promise<void>;
}

const commons = new Map<bigint, Common>();

/** Transactions decoded on the calling thread. */
export function decodeTxsHere(raws: Uint8Array[], chainId: bigint): (TxFacts | string)[] {
  let common = commons.get(chainId);
  if (common === undefined) commons.set(chainId, (common = makeTxCommon(chainId)));
  return raws.map((raw) => decodeTxFacts(raw, common));
}

/** Recovery on the calling thread. */
export const recoveryHere: SignatureRecovery = {
  threads: 0,
  recover: async (digest, rs, recid) => recoverHere(digest, rs, recid),
  decodeTxs: async (raws, chainId) => decodeTxsHere(raws, chainId),
  close: async () => {},
};

interface Pending {
  digest: Uint8Array;
  rs: Uint8Array;
  recid: number;
  resolve(key: Uint8Array): void;
  reject(e: Error): void;
}

/** one decodeTxs call */
interface TxJob {
  raws: Uint8Array[];
  chainId: bigint;
  resolve(txs: (TxFacts | string)[]): void;
  reject(e: Error): void;
}

/** Most signatures (or transactions) in one message: a large batch is spread over the threads. */
const MAX_BATCH = 64;

interface Log {
  warn(msg: string): void;
}

/** a message on a thread: how to settle its callers with the answer, or on this thread when the thread is lost */
interface Flight {
  worker: Worker;
  answer(a: RecoveryAnswer): void;
  here(): void;
}

function signaturesHere(batch: Pending[]): void {
  for (const p of batch) {
    try {
      p.resolve(recoverHere(p.digest, p.rs, p.recid));
    } catch (e) {
      p.reject(e as Error);
    }
  }
}

function transactionsHere(jobs: TxJob[]): void {
  for (const j of jobs) {
    try {
      j.resolve(decodeTxsHere(j.raws, j.chainId));
    } catch (e) {
      j.reject(e as Error);
    }
  }
}

/** `count` recovery threads (≥ 1); a thread that fails leaves its work to the others, the last one to the main thread. */
export function startRecoveryThreads(count: number, log: Log): SignatureRecovery {
  const live: Worker[] = [];
  const inFlight = new Map<number, Flight>();
  let queue: Pending[] = [];
  let txQueue: TxJob[] = [];
  let scheduled = false;
  let nextId = 1;
  let turn = 0;
  let closing = false;
  let started = false;

  const lose = (worker: Worker, why: string) => {
    const at = live.indexOf(worker);
    if (at < 0) return;
    live.splice(at, 1);
    if (!closing) log.warn(`txpool: a sender-recovery thread stopped (${why}); ${live.length ? `${live.length} left` : 'the main thread recovers senders'}`);
    for (const [id, f] of inFlight) {
      if (f.worker !== worker) continue;
      inFlight.delete(id);
      f.here();
    }
  };

  const dispatch = (req: SignaturesRequest | TransactionsRequest, transfer: ArrayBuffer[], answer: Flight['answer'], here: Flight['here']) => {
    if (live.length === 0) return here();
    const worker = live[turn++ % live.length]!;
    inFlight.set(req.id, { worker, answer, here });
    worker.postMessage(req, transfer);
  };

  const sendSignatures = (batch: Pending[]) => {
    const n = batch.length;
    const req: SignaturesRequest = { id: nextId++, kind: 'signatures', digests: new Uint8Array(32 * n), signatures: new Uint8Array(64 * n), recids: new Uint8Array(n) };
    for (let i = 0; i < n; i++) {
      const p = batch[i]!;
      req.digests.set(p.digest, 32 * i);
      req.signatures.set(p.rs, 64 * i);
      req.recids[i] = p.recid;
    }
    const answer = (a: RecoveryAnswer) => {
      const { keys, ok } = a as SignaturesAnswer;
      batch.forEach((p, j) => (ok[j] ? p.resolve(keys.subarray(64 * j, 64 * j + 64)) : p.reject(new InvalidSignature('signature recovers no public key'))));
    };
    dispatch(req, [req.digests.buffer as ArrayBuffer, req.signatures.buffer as ArrayBuffer, req.recids.buffer as ArrayBuffer], answer, () => signaturesHere(batch));
  };

  /** whole calls of one chain id, in the order they were made */
  const sendTransactions = (jobs: TxJob[]) => {
    const req: TransactionsRequest = { id: nextId++, kind: 'transactions', chainId: jobs[0]!.chainId, raws: jobs.flatMap((j) => j.raws) };
    const answer = (a: RecoveryAnswer) => {
      const { txs } = a as TransactionsAnswer;
      let at = 0;
      for (const j of jobs) j.resolve(txs.slice(at, (at += j.raws.length)));
    };
    dispatch(req, [], answer, () => transactionsHere(jobs));
  };

  const flush = () => {
    scheduled = false;
    const all = queue;
    queue = [];
    for (let i = 0; i < all.length; i += MAX_BATCH) sendSignatures(all.slice(i, i + MAX_BATCH));
    const jobs = txQueue;
    txQueue = [];
    let batch: TxJob[] = [];
    let size = 0;
    for (const j of jobs) {
      if (batch.length > 0 && (size + j.raws.length > MAX_BATCH || j.chainId !== batch[0]!.chainId)) {
        sendTransactions(batch);
        batch = [];
        size = 0;
      }
      batch.push(j);
      size += j.raws.length;
    }
    if (batch.length > 0) sendTransactions(batch);
  };

  // started by the first request, so a node that is only read from never pays for them
  const start = () => {
    for (let i = 0; i < count; i++) {
      const worker = startModuleWorker(new URL('./recovery-thread.ts', import.meta.url));
      worker.unref();
      worker.on('message', (a: RecoveryAnswer) => {
        const f = inFlight.get(a.id);
        if (!f) return;
        inFlight.delete(a.id);
        f.answer(a);
      });
      worker.on('error', (e) => lose(worker, e.message));
      worker.on('exit', (code) => lose(worker, `exit code ${code}`));
      live.push(worker);
    }
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    if (!started && !closing) {
      started = true;
      start();
    }
    // the rest of this event-loop turn's requests join the batch
    setImmediate(flush);
  };

  return {
    threads: count,
    recover(digest, rs, recid) {
      return new Promise((resolve, reject) => {
        queue.push({ digest, rs, recid, resolve, reject });
        schedule();
      });
    },
    decodeTxs(raws, chainId) {
      if (raws.length === 0) return Promise.resolve([]);
      return new Promise((resolve, reject) => {
        txQueue.push({ raws, chainId, resolve, reject });
        schedule();
      });
    },
    async close() {
      closing = true;
      const workers = live.splice(0);
      for (const f of inFlight.values()) f.here();
      inFlight.clear();
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
