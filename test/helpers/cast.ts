// Foundry's `cast` (the @foundry-rs/cast dev dependency) run as a user runs it: a child process,
// asynchronously, since the node under test serves from this process's event loop.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CAST = fileURLToPath(new URL('../../node_modules/.bin/cast', import.meta.url));

/**
 * `cast <command> --rpc-url <rpcUrl> args…`: its standard output, trimmed. Options go before the
 * arguments (`cast send --create` takes everything after the code as constructor arguments). It
 * rejects with cast's error output: some errors (a bad argument) still exit 0.
 */
export function runCast(rpcUrl: string, command: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const argv = [command, '--rpc-url', rpcUrl, ...args];
    execFile(CAST, argv, { env: { ...process.env, FOUNDRY_DISABLE_NIGHTLY_WARNING: '1', NO_COLOR: '1' }, timeout: 60_000 }, (err, stdout, stderr) =>
      err || /^error/m.test(stderr) ? reject(new Error(`cast ${argv.join(' ')}: ${stderr || err?.message}${err?.killed ? ` (killed after 60 s; it printed: ${stdout}${stderr})` : ''}`)) : resolve(stdout.trim()),
    );
  });
}
