// The iris consensus log on disk (src/core/consensus-log-file.ts, I9): what is written is read back
// by the next start; a log cut short or damaged is read up to its last whole record, cut back there
// and said so; trimming keeps only the heights not yet final. And the vote guard made from it
// refuses what the one before the restart signed. CHAIN_NODE_IRIS_TEST is read as documented.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSENSUS_LOG_FILE, FileConsensusLog } from '../src/core/consensus-log-file.ts';
import { VoteGuard } from '../src/consensus/iris/vote-guard.ts';
import type { Logger } from '../src/util/logger.ts';
import { ConfigError, parseFlags, type NodeConfig } from '../src/node/config.ts';

const digest = (b: number) => new Uint8Array(32).fill(b);

function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const put = (m: string) => void lines.push(m);
  return { lines, error: put, warn: put, info: put, debug: () => {} };
}

function withDir(run: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'chain-node-consensus-log-'));
  try {
    run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('votes, locks and unlocks are read back by the next start', () => {
  withDir((dir) => {
    const log = new FileConsensusLog(dir, recorder());
    log.vote({ sequence: 7n, round: 0, code: 1, digest: digest(1) });
    log.vote({ sequence: 7n, round: 1, code: 3, digest: digest(0) });
    log.lock({ sequence: 7n, round: 0, block: Uint8Array.of(0xc0), proof: [Uint8Array.of(1, 2), Uint8Array.of(3)] });
    log.lock({ sequence: 8n, round: 2, block: Uint8Array.of(0xc1), proof: [] });
    log.unlock(8n);
    log.close();
    const again = new FileConsensusLog(dir, recorder());
    const r = again.read();
    assert.equal(r.votes, [{ sequence: 7n, round: 0, code: 1, digest: digest(1) }, { sequence: 7n, round: 1, code: 3, digest: digest(0) }]);
    assert.equal(r.locks, [{ sequence: 7n, round: 0, block: Uint8Array.of(0xc0), proof: [Uint8Array.of(1, 2), Uint8Array.of(3)] }]);
    again.close();
  });
});

test('a log cut short or damaged is read up to its last whole record, cut back there, and said so', () => {
  withDir((dir) => {
    const path = join(dir, CONSENSUS_LOG_FILE);
    const log = new FileConsensusLog(dir, recorder());
    log.vote({ sequence: 3n, round: 0, code: 1, digest: digest(1) });
    const whole = statSync(path).size;
    log.vote({ sequence: 3n, round: 1, code: 2, digest: digest(2) });
    log.close();
    // a crash in the middle of the second record's write
    truncateSync(path, statSync(path).size - 5);
    const said = recorder();
    const cut = new FileConsensusLog(dir, said);
    assert.equal(cut.read().votes.map((v) => v.round), [0]);
    assert.ok(said.lines.some((l) => l.includes('is damaged: cut short') && l.includes(`at byte ${whole}`)), said.lines.join('\n'));
    assert.is(statSync(path).size, whole, 'cut back to the last whole record');
    // what is appended after is read by the next start
    cut.vote({ sequence: 3n, round: 2, code: 1, digest: digest(3) });
    cut.close();
    const next = new FileConsensusLog(dir, recorder());
    assert.equal(next.read().votes.map((v) => v.round), [0, 2]);
    next.close();

    // a flipped byte inside the first record: nothing after it is trusted
    const bytes = readFileSync(path);
    bytes[10] ^= 0xff;
    writeFileSync(path, bytes);
    const damaged = recorder();
    const bad = new FileConsensusLog(dir, damaged);
    assert.equal(bad.read().votes, []);
    assert.ok(damaged.lines.some((l) => l.includes('fails its checksum') && l.includes('at byte 0')), damaged.lines.join('\n'));
    bad.close();

    // garbage that is no record at all
    appendFileSync(path, Buffer.from('not a record at all'));
    const garbage = recorder();
    new FileConsensusLog(dir, garbage).close();
    assert.ok(garbage.lines.some((l) => l.includes('is damaged')), garbage.lines.join('\n'));
  });
});

test('trimming drops the final heights (rewritten at the first trim), and a restarted guard refuses what was signed', () => {
  withDir((dir) => {
    const path = join(dir, CONSENSUS_LOG_FILE);
    const log = new FileConsensusLog(dir, recorder());
    const guard = new VoteGuard(log);
    for (let s = 1n; s <= 20n; s++) assert.ok(guard.claim(s, 0, digest(Number(s))));
    assert.ok(guard.claim(20n, 0, digest(20), 2), 'a COMMIT for the block PREPAREd');
    log.lock({ sequence: 20n, round: 0, block: Uint8Array.of(0xc0), proof: [] });
    guard.roundChange(20n, 1);
    const full = statSync(path).size;
    guard.forgetBelow(20n);
    assert.ok(statSync(path).size < full / 5, 'rewritten without the final heights');
    log.close();

    const again = new FileConsensusLog(dir, recorder());
    const records = again.read();
    assert.equal(records.votes.map((v) => [v.sequence, v.round, v.code]), [[20n, 0, 1], [20n, 1, 3]], 'one record per view: the COMMIT for the same block added none');
    assert.equal(records.locks.map((l) => l.sequence), [20n]);
    const restarted = new VoteGuard(again, records.votes);
    assert.not.ok(restarted.claim(20n, 0, digest(99)), 'another block where the node voted before the restart');
    assert.ok(restarted.claim(20n, 0, digest(20), 2), 'the same block again');
    assert.is(restarted.highestRound(20n), 1, 'the round it asked for before the restart');
    again.close();
  });
});

test('CHAIN_NODE_IRIS_TEST: off unless set, its modes read, an unknown one refused naming the known', () => {
  const modesOf = (env: NodeJS.ProcessEnv) => (parseFlags([], env) as NodeConfig).irisTest;
  assert.is(modesOf({}), undefined);
  const m = modesOf({ CHAIN_NODE_IRIS_TEST: 'crash-after-commit, equivocate,double-vote' })!;
  assert.is(m.crashAfter, 'COMMIT');
  assert.equal([...m.lies], ['equivocate', 'double-vote']);
  assert.not.ok(m.signAgainstLog);
  assert.throws(() => parseFlags([], { CHAIN_NODE_IRIS_TEST: 'equivocate,lie-a-lot' }), (e: Error) => e instanceof ConfigError && /unknown mode "lie-a-lot" \(known: crash-after-prepare, .*silent\)/.test(e.message));
});

test.run();
