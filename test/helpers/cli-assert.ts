// What an operator CLI run must show: success with its line, or a refusal in words (no stack trace).
import * as assert from 'uvu/assert';
import type { CliRun } from './process.ts';

export function succeeded(run: CliRun, line: RegExp): void {
  assert.is(run.exit, 0, run.output);
  assert.match(run.output, line);
}

/** One line of words, a non-zero exit, no stack trace. */
export function refused(run: CliRun, line: RegExp, exit = 1): void {
  assert.is(run.exit, exit, run.output);
  assert.match(run.output, line);
  assert.not.match(run.output, /\n\s+at /);
}
