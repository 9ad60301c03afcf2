// A stopped test node's chain copied the way an operator would: `chain-node export` of its datadir,
// then `chain-node import` into a fresh one, which re-executes every block.
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { runExportCommand } from '../../src/export-command.ts';
import { runImportCommand } from '../../src/import-command.ts';

/** Exports the chain in `dir` (its node stopped) and imports it into `dir`/fresh; answers that datadir. */
export async function importedCopy(dir: string): Promise<string> {
  const file = join(dir, 'chain.rlp');
  const fresh = join(dir, 'fresh');
  let output = '';
  const out = (l: string) => (output += l + '\n');
  assert.is(await runExportCommand([file, '--datadir', dir], out, out), 0, output);
  assert.is(await runImportCommand([file, '--datadir', fresh, '--genesis', join(dir, 'test-genesis.json')], out, out), 0, output);
  return fresh;
}
