// scrypt off the event loop, always node:crypto's (OpenSSL). Key derivation is slow by design
// (geth's standard cost: ~1.7 s of CPU here); @noble's scryptAsync still blocked the loop for up to
// ~90 ms at a time (measured), so a long derivation runs in one shared worker thread instead, niced.
// The worker is created on first use and is unref'd while idle, so it never keeps a process alive.
// A short derivation (the light cost: the dev account, --lightkdf) runs on libuv's thread pool
// instead: starting the worker took longer than the derivation itself (K1).
import { Worker } from 'node:worker_threads';
import { scrypt } from 'node:crypto';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  dkLen: number;
}

interface Job {
  resolve(dk: Uint8Array): void;
  reject(e: Error): void;
}

/**
 * The worker's program. It is passed as a data: URL rather than a file next to this one so that it
 * survives bundling (dist/chain-node.mjs), and it is plain JavaScript importing only builtins (no tsx
 * in a worker started under `uvu -r tsx`). On Linux the nice value is per thread and setpriority(0)
 * applies to the calling thread only, so the worker runs at a lower priority than the node's event
 * loop (elsewhere it would lower the whole process: Linux only).
 */
const WORKER_SOURCE = `
import { parentPort } from 'node:worker_threads';
import { setPriority } from 'node:os';
import { scryptSync } from 'node:crypto';
if (process.platform === 'linux') {
  try { setPriority(10); } catch {}
}
parentPort.on('message', ({ id, password, salt, dkLen, options }) => {
  try {
    const derived = scryptSync(password, salt, dkLen, options);
    const dk = new Uint8Array(derived); // its own memory to hand over (a small Buffer may share a pool)
    derived.fill(0);
    parentPort.postMessage({ id, dk }, [dk.buffer]);
  } catch (e) {
    parentPort.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  } finally {
    password.fill(0);
  }
});
`;

/** OpenSSL refuses work above `maxmem` (default 32 MiB): scrypt needs 128·r·(N + 2 + p) bytes. */
function scryptOptions({ N, r, p }: ScryptParams): { N: number; r: number; p: number; maxmem: number } {
  return { N, r, p, maxmem: 128 * r * (N + 2 + p) + (1 << 20) };
}

let worker: Worker | undefined;
const jobs = new Map<number, Job>();
let nextId = 0;

function failAll(e: Error): void {
  for (const job of jobs.values()) job.reject(e);
  jobs.clear();
}

function getWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(new URL('data:text/javascript,' + encodeURIComponent(WORKER_SOURCE)));
  w.on('message', (m: { id: number; dk?: Uint8Array; error?: string }) => {
    const job = jobs.get(m.id);
    if (!job) return;
    jobs.delete(m.id);
    if (jobs.size === 0) w.unref();
    if (m.dk) job.resolve(m.dk);
    else job.reject(new Error(m.error ?? 'scrypt failed'));
  });
  w.on('error', (e) => {
    if (worker === w) worker = undefined;
    failAll(new Error(`scrypt worker failed: ${e.message}`));
  });
  w.on('exit', () => {
    if (worker === w) worker = undefined;
    failAll(new Error('scrypt worker exited'));
  });
  w.unref();
  return (worker = w);
}

/**
 * Work (N·r·p) up to which a derivation runs on the thread pool: geth's light cost is 4096·8·6 =
 * 196,608, its standard one 262144·8·1 = 2,097,152. Measured here: the light cost 55 ms on the thread
 * pool, 113–127 ms in a running worker, 250–340 ms with the worker's start; the standard cost ~1.7 s
 * either way (@noble's in the worker before, OpenSSL's now: the same), and only the niced worker kept other requests' latency where it was (max 16–31 ms
 * against 33–47 ms in test/accounts-scrypt.test.ts).
 */
const THREAD_POOL_MAX_WORK = 262_144;

/**
 * scrypt(password, salt) computed off the event loop: in the worker thread, or for a light cost on
 * the thread pool. The password bytes are handed over (zeroed here; node:crypto clears its own copy).
 */
export function scryptOffThread(password: Uint8Array, salt: Uint8Array, params: ScryptParams): Promise<Uint8Array> {
  if (params.N * params.r * params.p <= THREAD_POOL_MAX_WORK) return scryptOnThreadPool(password, salt, params);
  const w = getWorker();
  const id = nextId++;
  const pw = password.slice();
  password.fill(0);
  return new Promise((resolve, reject) => {
    jobs.set(id, { resolve, reject });
    w.ref();
    w.postMessage({ id, password: pw, salt: salt.slice(), dkLen: params.dkLen, options: scryptOptions(params) }, [pw.buffer]);
  });
}

function scryptOnThreadPool(password: Uint8Array, salt: Uint8Array, params: ScryptParams): Promise<Uint8Array> {
  const pw = Buffer.from(password);
  password.fill(0);
  return new Promise((resolve, reject) => {
    try {
      scrypt(pw, salt, params.dkLen, scryptOptions(params), (e, dk) => {
        pw.fill(0);
        if (e) reject(e);
        else resolve(new Uint8Array(dk.buffer, dk.byteOffset, dk.byteLength));
      });
    } catch (e) {
      // parameters OpenSSL refuses (N not a power of two, …) throw here, before any work
      pw.fill(0);
      reject(e);
    }
  });
}
