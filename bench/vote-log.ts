import { open } from 'lmdb';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FileConsensusLog } from '../src/node/consensus-log-file.ts';
const N = 300;
const dir = mkdtempSync(join(process.cwd(), '.vl-'));
try {
  const log = new FileConsensusLog(dir, console as any);
  const d = new Uint8Array(32).fill(7);
  let t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) log.vote({ sequence: BigInt(i), round: 0, code: 1, digest: d });
  const file = Number(process.hrtime.bigint() - t) / 1000 / N;
  const env = open({ path: join(dir, 'lmdb'), compression: false });
  t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) env.putSync('v' + i, Buffer.from(d));
  const lm = Number(process.hrtime.bigint() - t) / 1000 / N;
  t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await env.put('w' + i, Buffer.from(d));
  const lmAsync = Number(process.hrtime.bigint() - t) / 1000 / N;
  console.log(JSON.stringify({ votes: N, fsyncAppendUs: Math.round(file), lmdbPutSyncUs: Math.round(lm), lmdbAwaitedPutUs: Math.round(lmAsync) }));
  await env.close();
} finally { rmSync(dir, { recursive: true, force: true }); }
