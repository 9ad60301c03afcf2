// iris at scale, in the simulator (src/iris-sim, I15): N validators on a WAN (20–200 ms
// one way, 1 % loss), each spending the measured cost of checking a signed message (133 µs) on
// every consensus message it receives, blocks back to back (period 0). Per N: block time,
// consensus messages and bytes each validator sends per block, round changes per 1,000 blocks,
// and the messages all validators send per block beside Istanbul's 2N² − N − 1.
//   node --import tsx bench/iris-scale.ts [--sizes 4,7,16,31,64,100] [--blocks B] [--seeds S] [--out FILE.md]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runSeed } from '../src/iris-sim/run.ts';

const { values } = parseArgs({ options: { sizes: { type: 'string' }, blocks: { type: 'string' }, seeds: { type: 'string' }, out: { type: 'string' } } });
const sizes = (values.sizes ?? '4,7,16,31,64,100').split(',').map(Number);
const seeds = Number(values.seeds ?? 2);
/** fewer blocks for the large sets: the simulator's own cost per block grows as N² */
const blocksFor = (n: number) => Number(values.blocks ?? (n <= 7 ? 200 : n <= 16 ? 100 : n <= 31 ? 30 : n <= 64 ? 10 : 6));
const RECEIVE_COST_MS = 0.133;

const rows: string[] = [];
const json: object[] = [];
for (const n of sizes) {
  let blocks = 0, timeMs = 0, messages = 0, bytes = 0, rounds = 0, wall = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const t = performance.now();
    const r = await runSeed({
      validators: n, seed, heights: blocksFor(n), faults: new Set(['delay', 'loss']), windowMs: 0, lasting: true, periodSeconds: 0, timeoutMs: 10_000,
      livenessMs: 600_000, profile: 'wan', loss: 0.01, receiveCostMs: RECEIVE_COST_MS,
    });
    wall += performance.now() - t;
    if (!r.ok) throw new Error(`N=${n} seed ${seed}: ${r.violations[0]!.text}`);
    blocks += r.blocks;
    timeMs += r.blockTimeMs * (r.blocks - 1);
    messages += r.messagesPerBlock * r.blocks;
    bytes += r.bytesPerBlock * r.blocks;
    rounds += r.roundChanges;
  }
  const perValidator = messages / blocks;
  const row = {
    validators: n, blocks, blockTimeMs: timeMs / (blocks - seeds), messagesPerValidatorPerBlock: perValidator, kbPerValidatorPerBlock: bytes / blocks / 1024,
    roundChangesPer1000Blocks: (rounds / blocks) * 1000, messagesPerBlock: perValidator * n, istanbulMessagesPerBlock: 2 * n * n - n - 1, wallSeconds: wall / 1000,
  };
  json.push(row);
  rows.push(`| ${n} | ${row.blockTimeMs.toFixed(0)} | ${row.messagesPerValidatorPerBlock.toFixed(1)} | ${row.kbPerValidatorPerBlock.toFixed(1)} | ${row.roundChangesPer1000Blocks.toFixed(0)} | ${Math.round(row.messagesPerBlock)} / ${row.istanbulMessagesPerBlock} | ${blocks} |`);
  console.log(JSON.stringify(row));
}
const md = [
  `iris in the simulator, WAN 20–200 ms one way, 1 % loss, 133 µs per message received, period 0, ${seeds} seeds per size`,
  `(node --import tsx bench/iris-scale.ts${process.argv.slice(2).length ? ' ' + process.argv.slice(2).join(' ') : ''}, ${new Date().toISOString().slice(0, 10)})`,
  '',
  '| validators | block time ms | msgs sent / validator / block | KB sent / validator / block | round changes / 1,000 blocks | msgs / block: iris / Istanbul 2N²−N−1 | blocks |',
  '|---|---|---|---|---|---|---|',
  ...rows,
].join('\n');
console.log(md);
if (values.out) writeFileSync(values.out, md + '\n\n```json\n' + JSON.stringify(json, null, 1) + '\n```\n');
