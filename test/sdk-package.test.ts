// The SDK as a package (src/client/, its runtime beside it): `npm pack` of it (its prepack builds dist/), installed from
// the tarball into a temporary project with no registry (`npm install --offline`; `ws`, which Node
// 20 needs, linked from this repository's node_modules), then used as its users would against a
// real dev node: plain `node` as ESM and as CommonJS, type-checked by tsc with the package's own
// .d.ts, and bundled by esbuild for a browser and run in headless Chromium (skipped without it).
import { execFile, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { promisify } from 'node:util';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build } from 'esbuild';
import { ALL_NAMESPACES } from '../src/node/config.ts';
import { encodeWasmCall, parseWasmAbi } from '../src/codec/wasm-abi.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { startTestNode, type TestNode } from './helpers/node.ts';
import { chromiumMissing, launchChromium } from './helpers/chromium.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const SDK = join(root, 'src/client');
const sdkPackage = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')) as { name: string; version: string };
const TSC = join(root, 'node_modules/typescript/bin/tsc');

/** A wasm contract's ABI the consumers encode a call for (the SDK's wasm helpers). */
const WASM_ABI_JSON = JSON.stringify([{ name: 'inc', inputs: [{ name: 'by', type: 'uint32' }], outputs: [{ name: '', type: 'uint32' }], constant: 'true', type: 'function' }]);

/** What every consumer does, in the SDK's own words: HTTP calls, a batch, a newHeads over WebSocket, a typed error, a wasm call's data. */
const USE = `
  const WASM_ABI = ${WASM_ABI_JSON};
  const http = ChainClient.http(url);
  const [chainId, balance] = await http.batch((api) => [api.eth.chainId(), api.eth.getBalance(dev, 'latest')]);
  const ws = ChainClient.ws(url.replace('http', 'ws'));
  let gotHead;
  const nextHead = new Promise((resolve) => (gotHead = resolve));
  await ws.subscribe('newHeads', (h) => gotHead(h));
  await ws.eth.sendTransaction({ from: dev, to: dev, value: toQuantity(1n) });
  const head = await nextHead;
  let invalid;
  try { await http.eth.getBalance('0x12', 'latest'); } catch (e) { invalid = e instanceof RpcError ? e.code : String(e); }
  await ws.close();
  const wasmCall = wasmContract(WASM_ABI).encodeCall('inc', [5]);
  const result = { chainId, devChain: devChain.id, balance: fromQuantity(balance) > 0n, head: head.number, invalid, wasmCall };`;

const ESM = `import { ChainClient, RpcError, devChain, fromQuantity, toQuantity, wasmContract } from '${sdkPackage.name}';
const [url, dev] = process.argv.slice(2);
${USE}
console.log(JSON.stringify(result));
`;
const CJS = `const { ChainClient, RpcError, devChain, fromQuantity, toQuantity, wasmContract } = require('${sdkPackage.name}');
(async () => {
  const [url, dev] = process.argv.slice(2);
  ${USE}
  console.log(JSON.stringify(result));
})();
`;
const BROWSER = `import { ChainClient, RpcError, devChain, fromQuantity, toQuantity, wasmContract } from '${sdkPackage.name}';
window.runSdk = async (url, dev) => {
  ${USE}
  return result;
};
`;
/** Type-checked, not run: the package's types must accept the right calls and refuse wrong ones. */
const TYPED = `import { ChainClient, RpcError, devChain, devNetwork, toQuantity, type BlockHeader, type ClientEvents } from '${sdkPackage.name}';
export async function typed(client: ChainClient): Promise<bigint> {
  const balance: string = await client.eth.getBalance('0x0000000000000000000000000000000000000000', 'latest');
  // @ts-expect-error: getBalance takes an address, not a number
  await client.eth.getBalance(1, 'latest');
  // @ts-expect-error: no such method
  await client.eth.getBalanc('0x0000000000000000000000000000000000000000');
  const sub = await client.subscribe('newHeads', (h: BlockHeader) => h.number);
  client.on('reconnect', (e: ClientEvents['reconnect']) => e.subscriptions);
  await client.with({ signal: AbortSignal.timeout(1000) }).eth.blockNumber();
  const chainId: 300 = devChain.id;
  const name: string = devNetwork.name;
  void [sub.id, chainId, name, toQuantity(1n), RpcError];
  return BigInt(balance);
}
`;

let node: TestNode;
let project: string;
test.before(async () => {
  node = await startTestNode({
    dev: true,
    // the browser consumer runs on an opaque origin: its requests are cross-origin
    config: { http: { addr: '127.0.0.1', port: 0, api: [...ALL_NAMESPACES], corsDomains: ['*'], maxBodyBytes: 5 * 1024 * 1024, maxBatch: 1000 } },
  });
  project = mkdtempSync(join(tmpdir(), 'sdk-consumer-'));
});
test.after(async () => {
  await node?.stop();
  if (!process.env.KEEP_SDK_CONSUMER) rmSync(project, { recursive: true, force: true });
});

const expected = () => ({ chainId: '0x12c', devChain: 300, balance: true, invalid: -32602, wasmCall: bytesToHex(encodeWasmCall(parseWasmAbi(WASM_ABI_JSON), 'inc', [5])) });

test('npm pack, then npm install --offline from the tarball into a new project', () => {
  let t = performance.now();
  const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const packed = npm(['pack', '--pack-destination', project, '--json'], SDK);
  const [{ filename, files }] = JSON.parse(packed.slice(packed.indexOf('['))) as [{ filename: string; files: { path: string }[] }];
  const packMs = Math.round(performance.now() - t);
  const paths = files.map((f) => f.path);
  for (const p of ['package.json', 'README.md', 'dist/esm/index.mjs', 'dist/cjs/index.cjs', 'dist/types/generated/client/index.d.ts']) assert.ok(paths.includes(p), `packed: ${p}`);
  assert.not.ok(paths.some((p) => p.endsWith('.ts') && !p.endsWith('.d.ts')), 'no TypeScript sources');
  assert.ok(filename.endsWith(`-${sdkPackage.version}.tgz`));

  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'sdk-consumer',
      private: true,
      dependencies: { [sdkPackage.name]: `file:./${filename}`, ws: `file:${resolve(root, 'node_modules/ws')}` },
    }),
  );
  t = performance.now();
  npm(['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'], project);
  const installMs = Math.round(performance.now() - t);
  const installed = JSON.parse(readFileSync(join(project, 'node_modules', sdkPackage.name, 'package.json'), 'utf8')) as { version: string; dependencies?: object };
  assert.is(installed.version, sdkPackage.version);
  assert.is(installed.dependencies, undefined, 'no dependencies: the node, tsx and the bundled libraries are not needed');
  assert.equal(readdirSync(join(project, 'node_modules')).filter((n) => !n.startsWith('.')).sort(), ['@chain-node', 'ws']);
  console.log(`sdk-package: npm pack (build included) ${packMs} ms, npm install --offline ${installMs} ms`);
});

test('plain node, as ESM and as CommonJS', async () => {
  writeFileSync(join(project, 'app.mjs'), ESM);
  writeFileSync(join(project, 'app.cjs'), CJS);
  for (const app of ['app.mjs', 'app.cjs']) {
    // not execFileSync: the node under test runs in this process and must keep answering
    const { stdout: out } = await promisify(execFile)(process.execPath, [app, node.url, node.devAccount!], { cwd: project, encoding: 'utf8', timeout: 90_000 });
    const result = JSON.parse(out) as Record<string, unknown>;
    assert.match(String(result.head), /^0x[1-9a-f][0-9a-f]*$/, `${app}: a new head`);
    delete result.head;
    assert.equal(result, expected(), app);
  }
});

test('tsc type-checks a consumer with the package’s declarations (no skipLibCheck)', () => {
  writeFileSync(join(project, 'typed.ts'), TYPED);
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [], noEmit: true, skipLibCheck: false }, files: ['typed.ts'] }),
  );
  execFileSync(process.execPath, [TSC, '-p', project], { cwd: project, encoding: 'utf8' });
  // and the check bites: a wrong type in the consumer is an error
  writeFileSync(join(project, 'typed.ts'), TYPED.replace("const chainId: 300 = devChain.id;", "const chainId: 301 = devChain.id;"));
  try {
    execFileSync(process.execPath, [TSC, '-p', project], { cwd: project, encoding: 'utf8' });
    assert.unreachable('tsc accepted a wrong type');
  } catch (e) {
    assert.match(String((e as { stdout?: string }).stdout), /Type '300' is not assignable to type '301'/);
  }
});

const missing = chromiumMissing();
if (missing) {
  console.log(`sdk-package: browser test skipped: ${missing}`);
  test.skip('bundled by esbuild for a browser, run in headless Chromium');
} else {
  test('bundled by esbuild for a browser, run in headless Chromium', async () => {
    writeFileSync(join(project, 'browser.mjs'), BROWSER);
    const bundle = await build({ entryPoints: [join(project, 'browser.mjs')], absWorkingDir: project, bundle: true, platform: 'browser', format: 'iife', write: false, logLevel: 'silent' });
    const js = bundle.outputFiles[0]!.text;
    assert.not.match(js, 'ws does not work in the browser', 'the ws package is not in a browser bundle');
    // The web app's own server (another loopback origin than the node's: its calls are cross-origin,
    // as a real app's are). Chromium refuses an opaque origin (about:blank) calls to a local address.
    const app = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><script>${js}</script>`));
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    const browser = await launchChromium();
    try {
      const page = await browser.open(`http://127.0.0.1:${(app.address() as { port: number }).port}/`);
      const result = await browser.evaluate<Record<string, unknown>>(`window.runSdk(${JSON.stringify(node.url)}, ${JSON.stringify(node.devAccount)})`);
      assert.match(String(result.head), /^0x[1-9a-f][0-9a-f]*$/, 'a new head over the browser’s WebSocket');
      delete result.head;
      assert.equal(result, expected());
      assert.equal(page.logs.filter((l) => /error|exception/i.test(l)), []);
      console.log(`sdk-package: browser bundle ${(js.length / 1024).toFixed(0)} KiB`);
    } finally {
      await browser.close();
      await new Promise((r) => app.close(r));
    }
  });
}

test.run();
