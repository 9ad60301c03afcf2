// `npm run network`: a local network of nodes in one command, each node its own process on
// loopback. A first run creates DIR (src/network/layout.ts), then every run builds the node if its
// bundle is stale (as `npm start`), starts every node (src/network/node-process.ts), brings node 1's
// chain to the network's governance (src/network/registration.ts), waits until every node is peered
// and has the validators' head (src/network/readiness.ts), and prints one JSON line per node, then
// `network ready`. It runs until SIGINT/SIGTERM, which stop every node it started (exit 0).
// stdout carries only those lines, for scripts and tests; what happens meanwhile goes to stderr.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ChainClient } from '../generated/client/index.ts';
import { bytesToHex } from './util/hex.ts';
import { DEFAULT_P2P_PORT } from './node/config.ts';
import { NetworkSetupError, prepareLayout, type NetworkOptions } from './network/layout.ts';
import { spawnNode, untilAnswering, type NodeProcess } from './network/node-process.ts';
import { registerNetwork } from './network/registration.ts';
import { untilInStep } from './network/readiness.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DEFAULT_HTTP_PORT = 6791;
/** a node still running this long after SIGTERM is killed */
const STOP_GRACE_MS = 10_000;

const USAGE = `usage: npm run network -- [--nodes N] [--validators V] [--period S] [--timeout MS] [--dir DIR] [--http.port BASE] [--p2p.port BASE] [--faults]

  --nodes N          nodes in the network (default: as many as DIR has, else 4); more than DIR has adds nodes
  --validators V     how many of them validate (default 1): nodes 1…V, which run iris once promoted
  --period S         block period in seconds of a new network (default 1; an existing one keeps its own)
  --timeout MS       iris' first round timeout in ms of a new network (default 10000; an existing one keeps its own)
  --dir DIR          where the network lives (default ./network); an existing one is restarted
  --http.port BASE   node k serves JSON-RPC on BASE + k - 1 (default ${DEFAULT_HTTP_PORT}; 0: free ports)
  --p2p.port BASE    node k listens for peers on BASE + k - 1 (default ${DEFAULT_P2P_PORT}; 0: free ports)
  --faults           for tests: node k injects the faults DIR/node-k/faults.json names (chain-node --p2p.faults)

Ports are chosen once, when a node is made, and kept: they are in the chain (genesis, node records).`;

class UsageError extends Error {}

function count(text: string | undefined, flag: string, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new UsageError(`--${flag} must be an integer from ${min} to ${max}, got "${text}"`);
  return Number(text);
}

/** How many nodes DIR holds already (its network.json), so that a bare re-run restarts them all. */
function nodesIn(dir: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, 'network.json'), 'utf8')) as { ports: unknown[] }).ports.length;
  } catch {
    return undefined;
  }
}

function parseOptions(argv: string[]): NetworkOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        nodes: { type: 'string' },
        validators: { type: 'string' },
        period: { type: 'string' },
        timeout: { type: 'string' },
        faults: { type: 'boolean', default: false },
        dir: { type: 'string', default: './network' },
        'http.port': { type: 'string' },
        'p2p.port': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return 'help';
  const dir = resolve(values.dir);
  const nodes = count(values.nodes, 'nodes', nodesIn(dir) ?? 4, 1, 1000);
  const validators = count(values.validators, 'validators', 1, 1, nodes);
  return {
    nodes,
    validators,
    period: values.period === undefined ? undefined : count(values.period, 'period', 1, 0, 3600),
    timeout: values.timeout === undefined ? undefined : count(values.timeout, 'timeout', 10_000, 100, 3_600_000),
    faults: values.faults === true,
    dir,
    httpBase: count(values['http.port'], 'http.port', DEFAULT_HTTP_PORT, 0, 65535),
    p2pBase: count(values['p2p.port'], 'p2p.port', DEFAULT_P2P_PORT, 0, 65535),
  };
}

const say = (line: string) => process.stderr.write(`network: ${line}\n`);

async function stopAll(running: readonly NodeProcess[]): Promise<void> {
  await Promise.all(
    running.map(async (p) => {
      if (p.child.exitCode !== null || p.child.signalCode !== null) return;
      p.child.kill('SIGTERM');
      const killer = setTimeout(() => p.child.kill('SIGKILL'), STOP_GRACE_MS);
      await p.exited;
      clearTimeout(killer);
    }),
  );
}

async function main(): Promise<number> {
  let o;
  try {
    o = parseOptions(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`network: ${e.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (o === 'help') {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (build.status !== 0 || !existsSync(join(ROOT, 'dist', 'chain-node.mjs'))) {
    say('building the node (scripts/build.mjs) failed');
    return 1;
  }
  let layout;
  try {
    layout = await prepareLayout(o);
  } catch (e) {
    if (!(e instanceof NetworkSetupError)) throw e;
    say(e.message);
    return 1;
  }
  const running = layout.nodes.map((slot) => spawnNode(layout, slot, ROOT));
  let stopping = false;
  const stopped = new Promise<void>((done) => {
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      say(`${signal}: stopping ${running.length} node(s)`);
      void stopAll(running).then(done);
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
  for (const p of running) {
    void p.exited.then((exit) => {
      if (!stopping) say(`node ${p.slot.index} (pid ${p.child.pid}) exited (${exit}); its log: ${p.log}`);
    });
  }
  try {
    await Promise.race([Promise.all(running.map((p) => untilAnswering(p))), stopped]);
    if (!stopping) {
      const client = ChainClient.http(running[0]!.http);
      try {
        const sent = await Promise.race([registerNetwork(client, layout.account, layout.nodes, o.validators), stopped]);
        if (typeof sent === 'number' && sent > 0) say(`${sent} governance transaction(s) mined on node 1`);
      } finally {
        await client.close();
      }
    }
    if (!stopping) await untilInStep(running, o.validators, say, stopped);
  } catch (e) {
    if (!stopping) {
      stopping = true;
      say((e as Error).message);
      await stopAll(running);
      return 1;
    }
  }
  if (!stopping) {
    for (const p of running) {
      const line = {
        node: p.slot.index,
        pid: p.child.pid,
        http: p.http,
        ws: p.ws,
        enode: p.slot.enode,
        address: bytesToHex(p.slot.key.address),
        validator: p.slot.index <= o.validators,
        datadir: p.slot.datadir,
        command: p.command,
      };
      process.stdout.write(JSON.stringify(line) + '\n');
    }
    process.stdout.write('network ready\n');
  }
  await stopped;
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    say((e as Error).stack ?? String(e));
    process.exit(1);
  },
);
