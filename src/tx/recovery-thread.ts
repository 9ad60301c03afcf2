// A sender-recovery thread (signature-recovery.ts): recovers the public keys of a batch of
// signatures, or decodes, checks and recovers a batch of transactions, with the same code the main
// thread would run (libsecp256k1 when it loads).
import { parentPort } from 'node:worker_threads';
import { recoverPublicKey } from '../crypto/secp256k1.ts';
import type { RecoveryRequest, SignaturesAnswer, SignaturesRequest, TransactionsAnswer, TransactionsRequest } from './recovery-protocol.ts';
import { decodeTxsHere } from './signature-recovery.ts';

const port = parentPort!;

function signatures({ id, digests, signatures, recids }: SignaturesRequest): void {
  const n = recids.length;
  const keys = new Uint8Array(64 * n);
  const ok = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    try {
      keys.set(recoverPublicKey(digests.subarray(32 * i, 32 * i + 32), signatures.subarray(64 * i, 64 * i + 64), recids[i]!), 64 * i);
      ok[i] = 1;
    } catch {
      // no key for this signature: the main thread refuses the transaction
    }
  }
  const answer: SignaturesAnswer = { id, keys, ok };
  port.postMessage(answer, [keys.buffer as ArrayBuffer, ok.buffer as ArrayBuffer]);
}

function transactions({ id, chainId, raws }: TransactionsRequest): void {
  const answer: TransactionsAnswer = { id, txs: decodeTxsHere(raws, chainId) };
  port.postMessage(answer);
}

port.on('message', (req: RecoveryRequest) => (req.kind === 'signatures' ? signatures(req) : transactions(req)));
