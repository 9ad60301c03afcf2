// npm run bench: starts a real node (child process, its own datadir) and measures each workload,
// printing one markdown table and writing it to bench/results/latest.md.
//   --quick        shorter runs (3 s per rate row, 2,000 transfers)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureRate, hasWrk } from './load.ts';
import { cpuMicros, rssMiB } from './proc.ts';
import { RpcClient, runIngest, signTransfers } from './ingest.ts';
import { nodeKeyFrom, enodeUrl } from '../src/node-key.ts';
import { addressOf } from '../src/crypto/secp256k1.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import { makeTxCommon } from '../src/exec/common.ts';
import { signLegacyTx } from '../src/accounts/signing.ts';
import { compile } from '../test/helpers/solc.ts';

const quick = process.argv.includes('--quick');
const SECONDS = quick ? 3 : 10;
const CONNECTIONS = 32;
const SENDERS = 100;
const PER_SENDER = quick ? 20 : 100;
const root = fileURLToPath(new URL('..', import.meta.url));

interface Started {
  child: ChildProcess;
  url: string;
  startupMs: number;
}

function startProcess(args: string[]): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /serving JSON-RPC on (http:\/\/\S+)/.exec(out);
      if (m) {
        // start-up = until the first request is answered
        fetch(m[1]!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' })
          .then(() => resolve({ child, url: m[1]!, startupMs: performance.now() - t0 }), reject);
      }
    });
    child.on('exit', (code) => reject(new Error(`process exited (${code}) before serving:\n${out}`)));
  });
}

function stop(p: Started): Promise<void> {
  return new Promise((resolve) => {
    p.child.once('exit', () => resolve());
    p.child.kill('SIGTERM');
  });
}

const body = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

async function rateRow(p: Started, name: string, reqBody: string) {
  const cpu0 = cpuMicros(p.child.pid!);
  const r = await measureRate(p.url, reqBody, CONNECTIONS, SECONDS);
  const cpu = cpuMicros(p.child.pid!) - cpu0;
  const total = r.reqPerSec * SECONDS;
  return { name, value: `${Math.round(r.reqPerSec).toLocaleString('en-US')} req/s`, extra: `${(cpu / total).toFixed(1)} µs CPU/req${r.errors ? `, ${r.errors} errors` : ''}` };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'chain-node-bench-'));
  const rows: { name: string; value: string; extra: string }[] = [];
  try {
    const nodeKeyHex = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
    const senderKeys = Array.from({ length: SENDERS + 1 }, (_, i) => hexToBytes((i + 1).toString(16).padStart(64, '0')));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'nodekey'), nodeKeyHex);
    writeFileSync(
      join(dir, 'genesis.in.json'),
      JSON.stringify({
        config: { chainId: 300, istanbul: { period: 0, firstValidatorNode: enodeUrl(nodeKeyFrom(hexToBytes(nodeKeyHex)), '127.0.0.1', 16791) } },
        alloc: Object.fromEntries(senderKeys.map((k) => [bytesToHex(addressOf(k)), { balance: (10n ** 24n).toString() }])),
      }),
    );
    const nodeArgs = ['--import', 'tsx', 'src/cli.ts', '--datadir', dir, '--genesis', join(dir, 'genesis.in.json'), '--http.port', '0', '--verbosity', '1', '--rpc.checkresults', 'false'];

    // dispatch overhead: the same row against bare node:http
    const bare = await startProcess(['--import', 'tsx', 'bench/bare-server.ts']);
    const bareRow = await rateRow(bare, 'bare node:http baseline', body('web3_clientVersion', []));
    await stop(bare);

    let node = await startProcess(nodeArgs);
    rows.push({ name: 'start-up, new datadir (until the first answer)', value: `${Math.round(node.startupMs)} ms`, extra: '' });
    const client = new RpcClient(node.url, 4);
    const deployer = senderKeys[SENDERS]!;
    const initcode = hexToBytes(compile(VIEW_SOURCE).V!.bytecode);
    const tx = signLegacyTx({ nonce: 0n, gasPrice: 0n, gasLimit: 1_000_000n, value: 0n, data: initcode }, deployer, makeTxCommon(300n));
    await client.call('eth_sendRawTransaction', [bytesToHex(tx.serialize())]);
    let receipt;
    while (!(receipt = await client.call('eth_getTransactionReceipt', [bytesToHex(tx.hash())]))) await new Promise((r) => setTimeout(r, 10));
    const contract = receipt.contractAddress as string;

    rows.push(bareRow);
    rows.push(await rateRow(node, 'web3_clientVersion', body('web3_clientVersion', [])));
    rows.push(await rateRow(node, 'eth_blockNumber', body('eth_blockNumber', [])));
    rows.push(await rateRow(node, 'eth_getBalance', body('eth_getBalance', [bytesToHex(addressOf(senderKeys[0]!)), 'latest'])));
    rows.push(await rateRow(node, 'eth_call (view, identical calls)', body('eth_call', [{ to: contract, data: '0x6d4ce63c' }, 'latest'])));

    const txs = signTransfers(senderKeys.slice(0, SENDERS), PER_SENDER, 300n);
    const ingest = await runIngest(node.url, txs, CONNECTIONS);
    rows.push({
      name: `ingest: ${ingest.count.toLocaleString('en-US')} transfers, ${SENDERS} senders, ${CONNECTIONS} in flight, until all receipts`,
      value: `${Math.round(ingest.count / ingest.seconds).toLocaleString('en-US')} tx/s`,
      extra: `${ingest.seconds.toFixed(2)} s`,
    });
    rows.push({ name: 'resident memory after the run', value: `${Math.round(rssMiB(node.child.pid!))} MiB`, extra: '' });
    client.close();
    await stop(node);
    node = await startProcess(nodeArgs);
    rows.push({ name: 'start-up, existing datadir (until the first answer)', value: `${Math.round(node.startupMs)} ms`, extra: '' });
    await stop(node);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, load generator: ${hasWrk() ? 'wrk' : 'node client'} (${CONNECTIONS} connections, ${SECONDS} s per rate row)`;
  const table = [`| workload | result | notes |`, `|---|---|---|`, ...rows.map((r) => `| ${r.name} | ${r.value} | ${r.extra} |`)].join('\n');
  const md = `Measured ${new Date().toISOString().slice(0, 10)} with \`npm run bench${quick ? ' -- --quick' : ''}\` on ${machine}.\n\n${table}\n`;
  process.stdout.write(md);
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(join(root, 'bench/results/latest.md'), md);
}

/** The eth_call target: `get()` (selector 0x6d4ce63c) is a view returning a storage word. */
const VIEW_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract V { uint256 x = 42; function get() external view returns (uint256) { return x; } }`;

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
