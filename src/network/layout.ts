// What `npm run network` keeps in its directory, made on first use and read again on every later
// run: one datadir per node (DIR/node-1, …) with its node key, one Venachain-format genesis
// (DIR/genesis.json) whose firstValidatorNode is node 1, the funded account's key file in node 1's
// keystore with its (empty) password file, and DIR/network.json, the ports each node was given.
// The ports are kept because they are written into the chain: node 1's in the genesis, every
// node's in its NodeManagement record; a later run with other bases keeps them for the nodes it has.
// The genesis is written once node 1's key exists (it names node 1); keys are made on first use.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import { Keystore } from '../accounts/keystore.ts';
import { DEFAULT_GAS_LIMIT, DEFAULTS } from '../chain/genesis.ts';
import { enodeUrl, loadOrCreateNodeKey, type NodeKey } from '../crypto/node-key.ts';

/** Every node of the local network listens on loopback only. */
export const NETWORK_HOST = '127.0.0.1';
/** The funded account's balance: 10^9 ether, as the dev chain's. */
const FUNDED_BALANCE = 10n ** 27n;

export interface NetworkOptions {
  nodes: number;
  validators: number;
  /** block period in seconds (the genesis' istanbul.period); absent: the network's, 1 for a new one */
  period?: number;
  /** the genesis' istanbul.timeout in ms (iris' first round timeout); absent: the network's, 10000 for a new one */
  timeout?: number;
  /** every node reads injected faults from DATADIR/faults.json (for tests: src/p2p/faults.ts) */
  faults: boolean;
  dir: string;
  /** node k's HTTP port is httpBase + k − 1; 0: free ports */
  httpBase: number;
  /** node k's p2p port is p2pBase + k − 1; 0: free ports */
  p2pBase: number;
}

/** DIR/network.json */
interface NetworkFile {
  period: number;
  /** absent in a network made before it could be chosen: the default */
  timeout?: number;
  /** the funded account, whose key file node 1 holds */
  account: string;
  /** node k at index k − 1 */
  ports: { http: number; p2p: number }[];
}

export interface NodeSlot {
  /** 1-based */
  index: number;
  name: string;
  datadir: string;
  key: NodeKey;
  httpPort: number;
  p2pPort: number;
  enode: string;
}

export interface NetworkLayout {
  genesisFile: string;
  account: string;
  /** node 1's file of the account's password (empty) */
  passwordFile: string;
  nodes: NodeSlot[];
  faults: boolean;
}

export class NetworkSetupError extends Error {}

/**
 * Ports free now on loopback (the nodes take them a moment later). Every probe stays bound until
 * all are picked: a port closed after its probe may be handed out again by the next one, and two
 * listeners of one node would then ask for the same port.
 */
async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((done, fail) => {
        server.once('error', fail);
        server.listen(0, NETWORK_HOST, () => done());
      });
    }
    return servers.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  }
}

async function portsFor(first: number, count: number, o: NetworkOptions): Promise<{ http: number; p2p: number }[]> {
  const free = await freePorts((o.httpBase === 0 ? count : 0) + (o.p2pBase === 0 ? count : 0));
  const ports = [];
  for (let k = first; k < first + count; k++) {
    const http = o.httpBase === 0 ? free.shift()! : o.httpBase + k - 1;
    const p2p = o.p2pBase === 0 ? free.shift()! : o.p2pBase + k - 1;
    if (http > 65535 || p2p > 65535) throw new NetworkSetupError(`node ${k} would listen on port ${Math.max(http, p2p)}, past 65535: lower --http.port or --p2p.port`);
    ports.push({ http, p2p });
  }
  return ports;
}

function writeAtomic(path: string, text: string): void {
  writeFileSync(path + '.tmp', text);
  renameSync(path + '.tmp', path);
}

function readNetworkFile(path: string): NetworkFile {
  let file: NetworkFile;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as NetworkFile;
  } catch (e) {
    throw new NetworkSetupError(`${path} is not this command's network file (${(e as Error).message}): use another --dir or remove it`);
  }
  if (!Array.isArray(file.ports) || typeof file.account !== 'string' || typeof file.period !== 'number') throw new NetworkSetupError(`${path} is not this command's network file: use another --dir or remove it`);
  return file;
}

function genesis(first: NodeSlot, file: NetworkFile): object {
  const { account, period, timeout = DEFAULTS.timeout } = file;
  return {
    config: {
      chainId: Number(DEFAULTS.chainId),
      interpreter: DEFAULTS.interpreter,
      istanbul: { timeout, period, policy: DEFAULTS.policy, firstValidatorNode: first.enode },
    },
    timestamp: '0x' + Math.floor(Date.now() / 1000).toString(16),
    extraData: '0x00',
    gasLimit: '0x' + DEFAULT_GAS_LIMIT.toString(16),
    alloc: { [account]: { balance: FUNDED_BALANCE.toString() } },
  };
}

/**
 * The network in `o.dir`, made or extended to `o.nodes` nodes. A first run creates everything; a
 * later one keeps what is there (genesis, keys, ports) and adds the nodes beyond the last one made.
 */
export async function prepareLayout(o: NetworkOptions): Promise<NetworkLayout> {
  const dir = resolve(o.dir);
  const networkFile = join(dir, 'network.json');
  const genesisFile = join(dir, 'genesis.json');
  const passwordFile = join(dir, 'node-1', 'password');
  let file: NetworkFile;
  if (existsSync(networkFile)) {
    file = readNetworkFile(networkFile);
    if (o.period !== undefined && file.period !== o.period) throw new NetworkSetupError(`the network in ${dir} was made with --period ${file.period}: a chain's period is in its genesis (use another --dir for ${o.period})`);
    const timeout = file.timeout ?? DEFAULTS.timeout;
    if (o.timeout !== undefined && timeout !== o.timeout) throw new NetworkSetupError(`the network in ${dir} was made with --timeout ${timeout}: a chain's timeout is in its genesis (use another --dir for ${o.timeout})`);
    if (o.nodes > file.ports.length) {
      file.ports.push(...(await portsFor(file.ports.length + 1, o.nodes - file.ports.length, o)));
      writeAtomic(networkFile, JSON.stringify(file, null, 2) + '\n');
    }
  } else {
    if (existsSync(dir) && readdirSync(dir).length > 0) throw new NetworkSetupError(`${dir} is not empty and holds no network.json, so it is no network this command made: use another --dir`);
    const ports = await portsFor(1, o.nodes, o);
    mkdirSync(join(dir, 'node-1'), { recursive: true });
    // light scrypt, as the dev account's: the password is empty, a high cost would only slow every start
    const account = await new Keystore(join(dir, 'node-1', 'keystore'), true).newAccount('');
    writeFileSync(passwordFile, '', { mode: 0o600 });
    file = { period: o.period ?? 1, timeout: o.timeout ?? DEFAULTS.timeout, account, ports };
    // first, right after the account: what follows is made again by a run this one leaves unfinished
    writeAtomic(networkFile, JSON.stringify(file, null, 2) + '\n');
  }
  const nodes = file.ports.slice(0, o.nodes).map(({ http, p2p }, i): NodeSlot => {
    const datadir = join(dir, `node-${i + 1}`);
    mkdirSync(datadir, { recursive: true });
    const key = loadOrCreateNodeKey(datadir);
    return { index: i + 1, name: `node${i + 1}`, datadir, key, httpPort: http, p2pPort: p2p, enode: enodeUrl(key, NETWORK_HOST, p2p) };
  });
  if (!existsSync(genesisFile)) writeAtomic(genesisFile, JSON.stringify(genesis(nodes[0]!, file), null, 2) + '\n');
  return { genesisFile, account: file.account, passwordFile, nodes, faults: o.faults };
}
