// --unlock / --password (geth's flags, src/node/unlock-accounts.ts): keystore accounts unlocked at
// start until the node stops — what `npm run network`'s node 1 does with the funded account.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keystore } from '../src/accounts/keystore.ts';
import { runCli, spawnNode, rpcCall } from './helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'chain-node-unlock-'));
const passwords = join(dir, 'passwords');
let first: string;
let second: string;

test.before(async () => {
  const keystore = new Keystore(join(dir, 'keystore'), true);
  first = await keystore.newAccount('one');
  second = await keystore.newAccount('two');
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

const start = (...args: string[]) => ['--datadir', dir, '--http.port', '0', '--p2p.port', '0', '--lightkdf', ...args];

test('each account takes its line of the password file; both sign at once and stay unlocked', async () => {
  writeFileSync(passwords, 'one\ntwo\n');
  const node = await spawnNode(start('--unlock', `${first},${second}`, '--password', passwords));
  try {
    for (const from of [first, second]) {
      const hash = await rpcCall(node.url, 'eth_sendTransaction', [{ from, to: from, value: '0x0' }]);
      assert.match(hash, /^0x[0-9a-f]{64}$/);
    }
  } finally {
    node.child.kill('SIGTERM');
    await node.exited;
  }
});

test('a wrong password, an account without a key file, an unreadable password file: the node does not start and says why', async () => {
  writeFileSync(passwords, 'two\n');
  // one after another: each opens the same datadir
  const wrong = await runCli(start('--unlock', first, '--password', passwords));
  const unknown = await runCli(start('--unlock', '0x' + '12'.repeat(20), '--password', passwords));
  const missing = await runCli(start('--unlock', first, '--password', join(dir, 'nowhere')));
  assert.is(wrong.exit, 1);
  assert.match(wrong.output, `chain-node: --unlock ${first}: could not decrypt key with given password`);
  assert.is(unknown.exit, 1);
  assert.match(unknown.output, `--unlock: the keystore ${join(dir, 'keystore')} holds no key file for 0x${'12'.repeat(20)}`);
  assert.is(missing.exit, 1);
  assert.match(missing.output, /--password: cannot read .*nowhere/);
});

test('not an address, or HTTP beyond loopback without --allow-insecure-unlock: a usage error', async () => {
  const [bad, exposed] = await Promise.all([runCli(start('--unlock', 'alice')), runCli(start('--unlock', first, '--http.addr', '0.0.0.0'))]);
  assert.is(bad.exit, 2);
  assert.match(bad.output, '--unlock: "alice" is not an address');
  assert.is(exposed.exit, 2);
  assert.match(exposed.output, '--unlock with HTTP listening on 0.0.0.0, not loopback, needs --allow-insecure-unlock');
});

test.run();
