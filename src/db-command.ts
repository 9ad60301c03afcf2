// `chain-node db check --datadir DIR`: walks the stored chain and the head state
// (src/chain/db-check.ts) and prints what is wrong in words; exit code 0 when the database is
// sound, 1 when it is not, 2 for a usage error. It opens LMDB read-only, so it writes nothing and
// may run beside a node serving the same datadir (LMDB readers share the environment across
// processes). The walk is synchronous, so it reads one snapshot — the head as it was when the check
// began (lmdb-js renews its read transaction only between event-loop turns); meanwhile the node's
// LMDB cannot reuse pages freed after that snapshot, so a long check lets the data file grow by what
// the node writes during it.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { openStoreForCommand } from './store/lmdb-store.ts';
import { checkDatabase } from './chain/db-check.ts';

const USAGE = 'usage: chain-node db check --datadir DIR';

export async function runDbCommand(argv: string[], out: (line: string) => void): Promise<number> {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: { datadir: { type: 'string', default: './data' } }, allowPositionals: true, strict: true }));
  } catch (e) {
    out(`chain-node db: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (positionals.length !== 1 || positionals[0] !== 'check') {
    out(USAGE);
    return 2;
  }
  const datadir = resolve(values.datadir);
  const store = openStoreForCommand(datadir, 'chain-node db check', out);
  if (!store) return 1;
  try {
    const started = Date.now();
    const r = checkDatabase(store, (line) => out(`chain-node db check: ${line}`));
    const counts = `${r.blocks} blocks, ${r.transactions} transactions, ${r.accounts} accounts (${r.contracts} contracts), ${r.slots} storage slots, ${r.trieNodes} trie nodes, ${((Date.now() - started) / 1000).toFixed(1)} s`;
    if (r.problemCount === 0) {
      out(`chain-node db check: database ${datadir} is sound: ${counts}`);
      return 0;
    }
    for (const p of r.problems) out(`chain-node db check: ${p}`);
    const more = r.problemCount - r.problems.length;
    out(`chain-node db check: database ${datadir} is damaged: ${r.problemCount} problem${r.problemCount === 1 ? '' : 's'}${more > 0 ? ` (${more} not listed)` : ''}; checked ${counts}`);
    return 1;
  } finally {
    await store.close();
  }
}
