// Recovers the public keys behind transaction signatures, on the main thread or on recovery
// threads (docs/architecture.md A20). Recovery is the largest single cost of admitting a
// transaction (libsecp256k1, ~50–65 µs of the ~95 µs decoding takes on the event loop, measured); with threads, the
// requests of one event-loop turn go to a thread as one message and the event loop keeps parsing,
// checking and answering meanwhile.
import type { Worker } from 'node:worker_threads';
import { recoverPublicKey } from './secp256k1.ts';
import { startModuleWorker } from '../util/module-worker.ts';
import type { RecoveryAnswer, RecoveryRequest } from './recovery-protocol.ts';

export interface SignatureRecovery {
  /** The 64-byte public key (no 0x04 prefix) that signed `digest`; rejects when the signature recovers none. */
  recover(digest: Uint8Array, rs: Uint8Array, recid: number): Promise<Uint8Array>;
  /** threads recovering (0: the calling thread does) */
  readonly threads: number;
  close(): Promise<void>;
}

export class InvalidSignature extends Error {}

/** Recovery on the calling thread, synchronously. */
export function recoverHere(digest: Uint8Array, rs: Uint8Array, recid: number): Uint8Array {
  try {
    return recoverPublicKey(digest, rs, recid);
  } catch {
    throw new InvalidSignature('signature recovers no public key');
  }
}

/** Recovery on the calling thread. */
export const recoveryHere: SignatureRecovery = {
  threads: 0,
  recover: async (digest, rs, recid) => recoverHere(digest, rs, recid),
  close: async () => {},
};

interface Pending {
  digest: Uint8Array;
  rs: Uint8Array;
  recid: number;
  resolve(key: Uint8Array): void;
  reject(e: Error): void;
}

/** Most signatures in one message: a large batch of transactions is spread over the threads. */
const MAX_BATCH = 64;

interface Log {
  warn(msg: string): void;
}

/** `count` recovery threads (≥ 1); a thread that fails leaves its work to the others, the last one to the main thread. */
export function startRecoveryThreads(count: number, log: Log): SignatureRecovery {
  const live: Worker[] = [];
  const inFlight = new Map<number, { worker: Worker; batch: Pending[] }>();
  let queue: Pending[] = [];
  let scheduled = false;
  let nextId = 1;
  let turn = 0;
  let closing = false;
  let started = false;

  const settleHere = (batch: Pending[]) => {
    for (const p of batch) {
      try {
        p.resolve(recoverHere(p.digest, p.rs, p.recid));
      } catch (e) {
        p.reject(e as Error);
      }
    }
  };

  const lose = (worker: Worker, why: string) => {
    const at = live.indexOf(worker);
    if (at < 0) return;
    live.splice(at, 1);
    if (!closing) log.warn(`txpool: a sender-recovery thread stopped (${why}); ${live.length ? `${live.length} left` : 'the main thread recovers senders'}`);
    for (const [id, f] of inFlight) {
      if (f.worker !== worker) continue;
      inFlight.delete(id);
      settleHere(f.batch);
    }
  };

  const send = (batch: Pending[]) => {
    if (live.length === 0) return settleHere(batch);
    const worker = live[turn++ % live.length]!;
    const n = batch.length;
    const req: RecoveryRequest = { id: nextId++, digests: new Uint8Array(32 * n), signatures: new Uint8Array(64 * n), recids: new Uint8Array(n) };
    for (let i = 0; i < n; i++) {
      const p = batch[i]!;
      req.digests.set(p.digest, 32 * i);
      req.signatures.set(p.rs, 64 * i);
      req.recids[i] = p.recid;
    }
    inFlight.set(req.id, { worker, batch });
    worker.postMessage(req, [req.digests.buffer as ArrayBuffer, req.signatures.buffer as ArrayBuffer, req.recids.buffer as ArrayBuffer]);
  };

  const flush = () => {
    scheduled = false;
    const all = queue;
    queue = [];
    for (let i = 0; i < all.length; i += MAX_BATCH) send(all.slice(i, i + MAX_BATCH));
  };

  // started by the first signature, so a node that is only read from never pays for them
  const start = () => {
    for (let i = 0; i < count; i++) {
      const worker = startModuleWorker(new URL('./recovery-thread.ts', import.meta.url));
      worker.unref();
      worker.on('message', ({ id, keys, ok }: RecoveryAnswer) => {
        const f = inFlight.get(id);
        if (!f) return;
        inFlight.delete(id);
        f.batch.forEach((p, j) => (ok[j] ? p.resolve(keys.subarray(64 * j, 64 * j + 64)) : p.reject(new InvalidSignature('signature recovers no public key'))));
      });
      worker.on('error', (e) => lose(worker, e.message));
      worker.on('exit', (code) => lose(worker, `exit code ${code}`));
      live.push(worker);
    }
  };

  return {
    threads: count,
    recover(digest, rs, recid) {
      return new Promise((resolve, reject) => {
        queue.push({ digest, rs, recid, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          if (!started && !closing) {
            started = true;
            start();
          }
          // the rest of this event-loop turn's requests join the batch
          setImmediate(flush);
        }
      });
    },
    async close() {
      closing = true;
      const workers = live.splice(0);
      for (const f of inFlight.values()) settleHere(f.batch);
      inFlight.clear();
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
