// The bundled node (npm start, the chain-node bin, the bench): scripts/build.mjs makes a CommonJS
// bundle and a launcher that runs it through a V8 code cache (A14). Nothing
// else runs the bundle, so this checks that it works as the sources do — native modules, scrypt on
// the thread pool (light cost) and in its worker (standard cost), signing, a serving thread — and
// that its code cache is written, accepted by the next start, and replaced when damaged, never
// trusted blindly; and that it also runs required (the launcher's --enable-source-maps path).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';
import { CHILD_TIMEOUT_MS, spawnNode, rpcCall, type NodeProcess } from './helpers/process.ts';
import { encodeWasmCall, encodeWasmDeploy, parseWasmAbi } from '../src/codec/wasm-abi.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { paced, slowdown } from './helpers/pace.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const SINK = '0x' + '5'.repeat(40);
/** bn254 pairing pairs e(G1, G2) and e(−G1, G2) (EIP-197 encoding): any number of them holds */
const BN254_PAIRS =
  '0000000000000000000000000000000000000000000000000000000000000001' +
  '0000000000000000000000000000000000000000000000000000000000000002' +
  '198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c21800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed' +
  '090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa' +
  '0000000000000000000000000000000000000000000000000000000000000001' +
  '30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd45' +
  '198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c21800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed' +
  '090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The bundle is built inside the repository (.tmp/ is ignored) so that it finds node_modules. */
function buildBundle(): string {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const outdir = mkdtempSync(join(ROOT, '.tmp', 'bundle-'));
  execFileSync(process.execPath, ['scripts/build.mjs', '--outdir', outdir, '--no-warm'], { cwd: ROOT, stdio: 'pipe' });
  return outdir;
}

function cacheFiles(outdir: string): string[] {
  return readdirSync(outdir).filter((f) => f.endsWith('.v8cache')).map((f) => join(outdir, f));
}

async function waitFor<T>(what: string, get: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  for (const t0 = Date.now(); Date.now() - t0 < timeoutMs; await sleep(50)) {
    const v = get();
    if (v !== undefined) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function sendFromDevAccount(url: string, value: bigint): Promise<{ blockHash: string; status: string }> {
  return sendFromDev(url, { to: SINK, value: '0x' + value.toString(16) });
}

async function sendFromDev(url: string, tx: object): Promise<{ blockHash: string; status: string; contractAddress?: string }> {
  const [dev] = (await rpcCall(url, 'eth_accounts')) as string[];
  const hash = await rpcCall(url, 'eth_sendTransaction', [{ from: dev, ...tx }]);
  for (let i = 0; i < 250; i++, await sleep(20)) {
    const r = await rpcCall(url, 'eth_getTransactionReceipt', [hash]);
    if (r) return r;
  }
  throw new Error(`${hash} was not mined`);
}

async function stop(node: NodeProcess): Promise<void> {
  node.child.kill('SIGTERM');
  assert.is(await node.exited, 0, 'exit code 0 on SIGTERM');
}

test('the bundled node signs and seals, writes a code cache the next start accepts, and replaces a damaged one', async () => {
  const outdir = buildBundle();
  const datadir = mkdtempSync(join(tmpdir(), 'chain-node-bundle-'));
  const launcher = [join(outdir, 'chain-node.mjs')];
  const args = ['--datadir', datadir, '--http.port', '0', '--verbosity', '1', '--dev.period', '0'];
  let node: NodeProcess | undefined;
  try {
    assert.equal(cacheFiles(outdir), [], 'built with --no-warm: no cache yet');

    // a new dev chain: the dev account's key file (light scrypt), signing (native secp256k1, keccak)
    node = await spawnNode(args, CHILD_TIMEOUT_MS, launcher);
    const first = await sendFromDevAccount(node.url, 7n);
    assert.is(first.status, '0x1');
    // libp2p (ESM-only, bundled into CommonJS) listens: its port takes a TCP connection
    const p2p = await rpcCall(node.url, 'admin_nodeInfo');
    assert.ok(p2p.ports.listener > 0 && (await rpcCall(node.url, 'net_listening')) === true);
    const socket = connect(p2p.ports.listener, '127.0.0.1');
    await once(socket, 'connect');
    socket.destroy();
    // geth's standard scrypt cost runs in the worker, whose module the bundle must still find
    const created = await rpcCall(node.url, 'personal_newAccount', ['bundle-pw']);
    assert.ok(await rpcCall(node.url, 'personal_unlockAccount', [created, 'bundle-pw', 1]), 'the new key file opens with its password');
    const [cache] = await waitFor('the code cache', () => (cacheFiles(outdir).length ? cacheFiles(outdir) : undefined));
    await stop(node);

    // the next start runs from the cache: V8 accepts it, so it is not written again
    const written = statSync(cache!).mtimeMs;
    node = await spawnNode(args, CHILD_TIMEOUT_MS, launcher);
    assert.is(BigInt(await rpcCall(node.url, 'eth_getBalance', [SINK, 'latest'])), 7n);
    assert.is((await rpcCall(node.url, 'eth_getBlockByNumber', ['latest', false])).hash, first.blockHash);
    assert.is((await sendFromDevAccount(node.url, 5n)).status, '0x1');
    await sleep(1500); // longer than the launcher waits before it writes a cache
    assert.is(statSync(cache!).mtimeMs, written, 'an accepted cache is left as it is');
    await stop(node);

    // a damaged cache: V8 rejects it, the node starts from the source and writes a good one
    const garbage = Buffer.alloc(statSync(cache!).size, 0x5a);
    writeFileSync(cache!, garbage);
    node = await spawnNode(args, CHILD_TIMEOUT_MS, launcher);
    assert.is(BigInt(await rpcCall(node.url, 'eth_getBalance', [SINK, 'latest'])), 12n);
    assert.is((await sendFromDevAccount(node.url, 1n)).status, '0x1');
    await waitFor('the cache to be rewritten', () => (readFileSync(cache!).equals(garbage) ? undefined : true));
    await stop(node);

    // with --enable-source-maps the launcher require()s the bundle, which then calls itself
    // (scripts/build.mjs, SELF_WRAPPED): the same node, stack traces mapped to the sources
    node = await spawnNode(args, CHILD_TIMEOUT_MS, ['--enable-source-maps', ...launcher]);
    assert.is(BigInt(await rpcCall(node.url, 'eth_getBalance', [SINK, 'latest'])), 13n);
    await stop(node);

    // worker threads run from the bundle's sibling modules: a serving thread (dist/rpc-thread.cjs,
    // A19), a sender-recovery thread (dist/recovery-thread.cjs, A20), a precompile thread
    // (dist/precompile-thread.cjs: a bn254 pairing of 4 pairs, 181,000 gas, is above its threshold)
    // and a wasm thread (dist/wasm-thread.cjs: every wasm message runs on one)
    node = await spawnNode(['--datadir', datadir, '--http.port', '0', '--dev.period', '0', '--verbosity', '4', '--http.threads', '1', '--txpool.recoverythreads', '1', '--rpc.evmtimeout', '2s'], CHILD_TIMEOUT_MS, launcher);
    const started = node;
    await waitFor('the serving thread', () => (/rpc: rpc thread 1 serves on port \d+/.test(started.output()) ? true : undefined));
    const answers = await Promise.all(Array.from({ length: 32 }, () => rpcCall(started.url, 'eth_getBalance', [SINK, 'latest'])));
    assert.equal(new Set(answers.map((a) => BigInt(a))), new Set([13n]), 'every connection, on either thread, answers the same');
    assert.not.match(started.output(), /does not serve|rpc thread 1 failed/);
    assert.is((await sendFromDevAccount(node.url, 1n)).status, '0x1', 'the sender recovered on the recovery thread');
    assert.not.match(started.output(), /sender-recovery thread stopped/);
    // the thread answers exactly, and a pairing of 880 pairs (12–23 s inline) ends at --rpc.evmtimeout
    const pairing = (pairs: number) => ({ to: '0x' + '08'.padStart(40, '0'), data: '0x' + BN254_PAIRS.repeat(pairs / 2), gas: '0x1c9c380' });
    assert.is(await rpcCall(started.url, 'eth_call', [pairing(4), 'latest']), '0x' + '1'.padStart(64, '0'));
    const pace = await slowdown();
    const t0 = performance.now();
    const timedOut = await rpcCall(started.url, 'eth_call', [pairing(880), 'latest']).catch((e: Error) => e.message);
    assert.match(timedOut, /execution aborted \(timeout = 2s\)/);
    const ms = performance.now() - t0;
    const bound = await paced(5000, pace);
    assert.ok(ms < bound, `the pairing ended after ${ms.toFixed(0)} ms (bound ${bound.toFixed(0)} ms at this machine's pace)`);
    const wasm = (await wabtInit()).parseWat('answer.wat', '(module (memory (export "memory") 1) (func (export "init")) (func (export "answer") (result i64) i64.const 42))').toBinary({}).buffer;
    const abi = '[{"name":"init","inputs":[],"outputs":[],"type":"function"},{"name":"answer","inputs":[],"outputs":[{"name":"","type":"int64"}],"type":"function"}]';
    const deployed = await sendFromDev(started.url, { data: bytesToHex(encodeWasmDeploy(wasm, abi)), gas: '0x7a1200' });
    assert.is(deployed.status, '0x1', 'a wasm deploy (init() on a wasm thread)');
    const answer = await rpcCall(started.url, 'eth_call', [{ to: deployed.contractAddress, data: bytesToHex(encodeWasmCall(parseWasmAbi(abi), 'answer', [])) }, 'latest']);
    assert.is(BigInt(answer), 42n);
    await stop(node);
  } finally {
    if (node && node.child.exitCode === null && node.child.signalCode === null) {
      node.child.kill('SIGKILL'); // a failed assertion left it running
      await node.exited;
    }
    rmSync(datadir, { recursive: true, force: true });
    rmSync(outdir, { recursive: true, force: true });
  }
});

test('npm start builds only when an input changed (build.mjs --if-stale)', () => {
  const outdir = buildBundle();
  const build = (...flags: string[]) => execFileSync(process.execPath, ['scripts/build.mjs', '--outdir', outdir, '--no-warm', ...flags], { cwd: ROOT, stdio: 'pipe' });
  const built = () => statSync(join(outdir, 'chain-node.cjs')).mtimeMs;
  const inputsFile = join(outdir, 'build-inputs.json');
  try {
    const first = built();
    const made = JSON.parse(readFileSync(inputsFile, 'utf8')) as { inputs: Record<string, [number, number]> };
    assert.ok(made.inputs['src/cli.ts'] && made.inputs['openrpc.json'], 'the sources and the interface are inputs');
    build('--if-stale');
    assert.is(built(), first, 'nothing changed: nothing built');

    // an input whose modification time differs from the recorded one (as after an edit)
    made.inputs['src/cli.ts']![1] -= 1000;
    writeFileSync(inputsFile, JSON.stringify(made));
    build('--if-stale');
    const second = built();
    assert.ok(second > first, 'a changed input: built again');
    assert.is((JSON.parse(readFileSync(inputsFile, 'utf8')) as typeof made).inputs['src/cli.ts']![1], statSync(join(ROOT, 'src/cli.ts')).mtimeMs);

    // an output gone
    rmSync(join(outdir, 'rpc-thread.cjs'));
    build('--if-stale');
    assert.ok(existsSync(join(outdir, 'rpc-thread.cjs')), 'a missing output: built again');

    // without the flag (npm run build, npm install) it always builds
    const third = built();
    build();
    assert.ok(built() > third);

    // an input changed while the build ran (its time is after the build began): not trusted
    const cli = join(ROOT, 'src/cli.ts');
    const was = statSync(cli);
    try {
      utimesSync(cli, was.atime, new Date(Date.now() + 60_000));
      build();
      assert.is((JSON.parse(readFileSync(inputsFile, 'utf8')) as { inputs: Record<string, unknown> }).inputs['src/cli.ts'], null);
    } finally {
      utimesSync(cli, was.atime, was.mtime);
    }
    const fourth = built();
    build('--if-stale');
    assert.ok(built() > fourth, 'an input recorded as unknown: built again');
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
});

test.run();
