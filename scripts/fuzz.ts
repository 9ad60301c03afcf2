// npm run fuzz -- [--minutes N] [--seed S] [--requests R] [--concurrency C] [--heap MiB]: the
// schema-driven fuzzer (test/helpers/rpc-fuzz.ts) for as long as asked — rounds of R requests (a
// refused-only phase with the state compared around it, then a mixed one) until N minutes are up, a
// line per round, then the summary. Exit 1 on any violation, each printed with the request that
// caused it.
import { parseArgs } from 'node:util';
import { formatReport, runFuzz, SKIPPED } from '../test/helpers/rpc-fuzz.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    seed: { type: 'string', default: String(Date.now() % 1e6) },
    requests: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '4' },
    heap: { type: 'string', default: '256' },
  },
  strict: true,
});
const [minutes, seed, requests, concurrency, heap] = [Number(values.minutes), Number(values.seed), Number(values.requests), Number(values.concurrency), Number(values.heap)];
if (![minutes, seed, requests, concurrency].every((n) => Number.isFinite(n) && n > 0) || !Number.isInteger(seed) || !(Number.isInteger(heap) && heap >= 0)) {
  process.stderr.write('usage: npm run fuzz -- [--minutes N] [--seed S (integer)] [--requests PER_ROUND] [--concurrency C] [--heap MiB (0: V8 default)]\n');
  process.exit(2);
}
// The node's V8 old space is capped (it inherits NODE_OPTIONS): uncapped, V8 lets the heap grow
// between collections on a long run (a 15-minute run's anonymous memory rose 265 MiB, its live
// heap far less), and the growth bound would measure V8's laziness; capped, it must collect, and a
// leak ends the node — a violation the run reports.
if (heap > 0) process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, `--max-old-space-size=${heap}`].filter(Boolean).join(' ');
process.stdout.write(`fuzzing for ${minutes} min, seed ${seed}, ${requests} requests a round, ${concurrency} senders, node heap ${heap > 0 ? `${heap} MiB` : 'uncapped'}; not sent: ${Object.keys(SKIPPED).join(', ')}\n`);
const report = await runFuzz({ seed, minutes, requestsPerRound: requests, concurrency, progress: (line) => process.stdout.write(line + '\n') });
process.stdout.write(formatReport(report) + '\n');
process.exit(report.violationCount === 0 ? 0 : 1);
