// Node settings and the command-line flags that set them (geth's names where geth has the flag).
import { parseIrisTestModes, type IrisTestModes } from '../consensus/iris/test-modes.ts';
import { parseArgs } from 'node:util';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { DEFAULT_TXPOOL_CONFIG, DEFAULT_TX_JOURNAL, type TxPoolConfig } from '../txpool/config.ts';
import type { LedgerTransports } from '../accounts/ledger.ts';
import type { LogLimits } from '../filters/limits.ts';
import type { TransportChoice } from '../rpc/server.ts';
import { MAX_VERBOSITY, type LogFormat } from '../util/logger.ts';
import { parseCidr } from '../util/cidr.ts';
import { parseDurationMs } from '../util/duration.ts';

export const ALL_NAMESPACES = ['personal', 'iris', 'eth', 'chain', 'admin', 'txpool', 'net', 'web3', 'debug'] as const;
/**
 * What a listener others can reach serves unless --http.api says otherwise: geth's eth,net,web3,
 * plus chain, the spec's alias of eth (the same handlers, so nothing eth does not already expose).
 */
export const REMOTE_NAMESPACES = ['eth', 'chain', 'net', 'web3'] as const;

/** An --http.addr only this machine can reach (127.0.0.0/8, ::1, localhost). */
export function isLoopback(addr: string): boolean {
  return addr === 'localhost' || addr === '::1' || (isIP(addr) === 4 && addr.startsWith('127.'));
}

export interface NodeConfig {
  datadir: string;
  genesisFile?: string;
  http: {
    addr: string;
    port: number;
    api: string[];
    corsDomains: string[];
    /** Host names served (--http.vhosts; default localhost; IP addresses always) */
    vhosts?: string[];
    maxBodyBytes: number;
    maxBatch: number;
    /** most bytes of one answer, and of a batch's answers together (--rpc.batch-response-max-size; default 25,000,000; 0: no limit) */
    maxResponseBytes?: number;
    /** serve the API docs page (generated/docs/index.html) at GET / and /docs (default: on for dev chains) */
    docs?: boolean;
    /** not a flag: unsent bytes one WebSocket may queue before its subscriptions are dropped (default 16 MiB) */
    wsMaxBufferedBytes?: number;
    /** HTTP/WebSocket server implementation (default auto: uWebSockets.js when it loads, else node:http + ws) */
    transport?: TransportChoice;
    /** most open HTTP/WebSocket connections (--http.maxconns; default 80 % of the open-files limit, at most 10,000) */
    maxConns?: number;
    /** time to receive one whole request (--http.readtimeout; default 30 s, geth's HTTPTimeouts.ReadTimeout) */
    readTimeoutMs?: number;
    /** serving threads beside the main one (uWebSockets.js only; default: 1 on a machine with more than one core, else 0) */
    threads?: number;
  };
  /** validate every handler result against its schema (on for dev chains and tests) */
  checkResults: boolean;
  verbosity: number;
  /** json or text lines (--log.format; absent: text on a terminal, else json) */
  logFormat?: LogFormat;
  /** verbosity per module, over --verbosity (--log.vmodule p2p=4,consensus=4) */
  logVmodule?: Record<string, number>;
  minGasPrice: bigint;
  sealEmpty: boolean;
  devPeriod: number;
  lightKdf: boolean;
  allowInsecureUnlock: boolean;
  /** keystore accounts unlocked at start, for the life of the process (--unlock; geth's flag) */
  unlock?: string[];
  /** the passwords of `unlock`, one a line in its order (--password; geth's flag; absent: empty passwords) */
  passwordFile?: string;
  gasCap: bigint;
  /** most time one eth_call / eth_estimateGas may take, ms (--rpc.evmtimeout; 0: none; default 5 s) */
  evmTimeoutMs?: number;
  /** most execution time one transaction may take in a block this node proposes, ms (--miner.txtimeout; 0: none; default 5 s) */
  txBudgetMs?: number;
  /** most execution time a block this node proposes may take, ms (--miner.buildtime; 0: none; default a third of istanbul.timeout) */
  buildMs?: number;
  /** the p2p listening port (--p2p.port; 0 = a free port) */
  p2pPort: number;
  /** the network (src/p2p); absent: none (tests that run one node) — the command line always has one */
  p2p?: P2pConfig;
  /** pool limits (--txpool.*); what is left out keeps geth's default */
  txpool?: Partial<TxPoolConfig>;
  /** the transaction journal, a file in the datadir or an absolute path; '' turns it off (--txpool.journal; default transactions.rlp) */
  txJournal?: string;
  /** how often the journal is rewritten from the pool, in ms (--txpool.rejournal; default 1 h) */
  txRejournalMs?: number;
  /** the transactions this node signs get no local treatment, and there is no journal (--txpool.nolocals) */
  txNoLocals?: boolean;
  /** threads recovering the senders of submitted transactions (--txpool.recoverythreads; default: set by the cores) */
  recoveryThreads?: number;
  /** not a flag: the USB side of Ledger support, for tests that replay recorded APDU exchanges (default: node-hid) */
  ledgerTransports?: LedgerTransports;
  /** bounds of getLogs, filters and subscriptions (--rpc.logs.*, --rpc.filter.*); absent fields take DEFAULT_LOG_LIMITS */
  logs?: Partial<LogLimits>;
  /** not a flag: whether plain value transfers skip @ethereumjs's runTx (default: when the chain seals on a period, P8); tests compare both */
  directTransfers?: boolean;
  /** Prometheus metrics at GET /metrics on a listener of their own (--metrics, --metrics.addr, --metrics.port); absent: off */
  metrics?: { addr: string; port: number };
  /** not a flag: whether eth_call / estimateGas use the view interpreter (default: on, A17); tests compare both */
  fastViews?: boolean;
  /** for tests only, not a flag: CHAIN_NODE_IRIS_TEST's crash cues and lies (src/consensus/iris/test-modes.ts, I12) */
  irisTest?: IrisTestModes;
}

export interface P2pConfig {
  /** listen address (--p2p.addr; default: 127.0.0.1 on a dev chain, 0.0.0.0 on a genesis-file chain) */
  addr?: string;
  /** enode URLs or multiaddrs dialled at start and redialled when they drop (--bootnodes) */
  bootnodes: string[];
  /** most connected peers (--maxpeers) */
  maxPeers: number;
  /** inbound connections a second per address (--p2p.inboundrate; default 5, 0: no limit) */
  inboundRate?: number;
  /** CIDRs not held to it (--p2p.inboundrate.exempt) */
  inboundExempt?: string[];
  /** for tests: the fault file (--p2p.faults, or CHAIN_NODE_P2P_FAULTS; src/p2p/faults.ts) */
  faults?: string;
  /** how a node far behind catches up (--syncmode; geth's name): `full` executes every block, `snap` state-syncs to a pivot first (N16); default full */
  syncMode?: 'full' | 'snap';
}

/** geth's --metrics.addr / --metrics.port defaults. */
export const DEFAULT_METRICS_ADDR = '127.0.0.1';
export const DEFAULT_METRICS_PORT = 6060;

/** Venachain's (and the dev genesis') p2p port: node k of its scripts listens on 16791 + k. */
export const DEFAULT_P2P_PORT = 16791;

export const FLAGS = {
  datadir: { type: 'string', default: './data', help: 'data directory (chain, keystore, node key)' },
  genesis: { type: 'string', help: 'genesis file (Venachain format) used when the datadir is new; without it a dev chain is created' },
  'http.addr': { type: 'string', default: '127.0.0.1', help: 'HTTP/WebSocket listen address' },
  'http.port': { type: 'string', default: '6791', help: 'HTTP/WebSocket port (0 picks a free port)' },
  'http.api': { type: 'string', help: `namespaces served, comma-separated (default: all on a loopback --http.addr, else ${REMOTE_NAMESPACES.join(',')})` },
  'http.corsdomain': { type: 'string', default: '', help: 'allowed CORS origins, comma-separated (* for any); CORS is off when empty' },
  'http.vhosts': { type: 'string', default: 'localhost', help: 'Host header names served, comma-separated (* for any; IP addresses always): others get 403 (DNS rebinding)' },
  'http.docs': { type: 'string', help: 'serve the API docs page at GET / and /docs and the status page at GET /status (true|false; default true on dev chains)' },
  'http.maxconns': { type: 'string', help: 'most open HTTP/WebSocket connections; past it new ones are refused at once (default: 80% of the open-files limit, at most 10000)' },
  'http.readtimeout': { type: 'string', default: '30s', help: 'time to receive one whole request, body included (e.g. 30s, 2m); a slower one gets 408 and its connection is closed' },
  'http.maxbody': { type: 'string', default: String(5 * 1024 * 1024), help: 'largest request body in bytes' },
  'http.threads': { type: 'string', help: 'extra threads serving HTTP/WebSocket on the same port, answering repeated reads at the same head themselves (uws transport only; default: with 3+ cores one per core beyond the first, at most 4, else 0)' },
  'http.transport': { type: 'string', default: 'auto', help: 'HTTP/WebSocket server: auto (uWebSockets.js where it loads, else node), uws or node (node:http + ws)' },
  'rpc.batchlimit': { type: 'string', default: '1000', help: 'most requests in one batch' },
  'rpc.batch-response-max-size': { type: 'string', default: '25000000', help: 'most bytes of a batch\'s answers together, and of one answer; past it entries get error -32003 "response too large" (0: no limit)' },
  'rpc.gascap': { type: 'string', default: '50000000', help: 'most gas one eth_call / eth_estimateGas / debug_traceCall may use' },
  'rpc.evmtimeout': { type: 'string', default: '5s', help: 'most time one eth_call / eth_estimateGas (its whole search) / traced transaction may take (e.g. 5s, 500ms; 0: no limit)' },
  'rpc.logs.maxrange': { type: 'string', default: '10000', help: 'most blocks one eth_getLogs / eth_getFilterLogs range may span' },
  'rpc.logs.maxresults': { type: 'string', default: '10000', help: 'most logs one eth_getLogs / eth_getFilterLogs answer may carry' },
  'rpc.filter.timeout': { type: 'string', default: '5m', help: 'remove a filter not polled for this long (e.g. 5m, 90s; WebSocket filters never time out)' },
  'rpc.filter.max': { type: 'string', default: '10000', help: 'most installed filters, and separately most WebSocket subscriptions' },
  'rpc.filter.maxperconnection': { type: 'string', default: '1000', help: 'most filters, and separately subscriptions, one WebSocket connection may hold' },
  'rpc.filter.maxperaddress': { type: 'string', default: '2000', help: 'most filters, and separately subscriptions, one client IP address may hold over HTTP and all its WebSockets (loopback clients are one address)' },
  'rpc.checkresults': { type: 'string', help: 'validate results against openrpc.json (true|false; default true on dev chains)' },
  'p2p.port': { type: 'string', default: String(DEFAULT_P2P_PORT), help: 'p2p listening port (0 picks a free port)' },
  'p2p.addr': { type: 'string', help: 'p2p listening address (default 127.0.0.1 on a dev chain, 0.0.0.0 on a genesis-file chain)' },
  bootnodes: { type: 'string', default: '', help: 'peers dialled at start and redialled when they drop, comma-separated: enode://<128 hex>@ip:port URLs or multiaddrs with /p2p/<peer id> (the genesis firstValidatorNode is always one)' },
  maxpeers: { type: 'string', default: '50', help: 'most connected peers' },
  'p2p.inboundrate': { type: 'string', default: '5', help: 'inbound p2p connections a second from one address, loopback included (a burst of twice that; a connection whose peer is refused costs a second\'s worth; 0: no limit)' },
  'p2p.inboundrate.exempt': { type: 'string', default: '', help: 'IP networks not held to --p2p.inboundrate, comma-separated CIDRs (e.g. 127.0.0.0/8 for peers that all arrive through a local proxy)' },
  'p2p.faults': { type: 'string', help: 'for tests only: a JSON file of faults to inject (gossip from peers dropped, delayed, duplicated, reordered; partitions; state answers corrupted or slowed), re-read when it changes; also CHAIN_NODE_P2P_FAULTS=FILE' },
  syncmode: { type: 'string', default: 'full', help: 'how a node far behind catches up: full (download and execute every block) or snap (store the blocks to a pivot 64 below the best peer\'s head without executing them, fetch the pivot\'s state as proven ranges, then execute from there; used when the peer is more than 192 blocks ahead)' },
  nodiscover: { type: 'boolean', default: false, help: 'accepted for Venachain scripts: the node never runs discovery (peers are bootnodes, static peers and NodeManagement\'s registered nodes)' },
  metrics: { type: 'boolean', default: false, help: 'serve Prometheus metrics at GET /metrics on --metrics.addr:--metrics.port (a listener of their own)' },
  'metrics.addr': { type: 'string', default: DEFAULT_METRICS_ADDR, help: 'metrics listen address' },
  'metrics.port': { type: 'string', default: String(DEFAULT_METRICS_PORT), help: 'metrics port (0 picks a free port)' },
  verbosity: { type: 'string', default: '3', help: 'log level 0-5 (silent, error, warn, info, debug, trace)' },
  'log.vmodule': { type: 'string', default: '', help: 'per-module log level over --verbosity, comma-separated module=level (e.g. p2p=4,consensus=4; modules: chain, txpool, accounts, consensus, import, p2p, sync, rpc, filters, docs, metrics, wasm)' },
  'log.format': { type: 'string', help: 'log line format: json (one JSON object a line) or text (default: text on a terminal, else json)' },
  gasprice: { type: 'string', default: '0', help: 'minimum gas price in wei (also what eth_gasPrice reports)' },
  'txpool.pricebump': { type: 'string', default: String(DEFAULT_TXPOOL_CONFIG.priceBump), help: 'percent a replacement (same sender and nonce) must raise the gas price by' },
  'txpool.accountslots': { type: 'string', default: String(DEFAULT_TXPOOL_CONFIG.accountSlots), help: 'executable transactions per account kept even when the pool is over --txpool.globalslots' },
  'txpool.globalslots': { type: 'string', default: String(DEFAULT_TXPOOL_CONFIG.globalSlots), help: 'executable (pending) transactions in total' },
  'txpool.accountqueue': { type: 'string', default: String(DEFAULT_TXPOOL_CONFIG.accountQueue), help: 'non-executable (queued) transactions per account' },
  'txpool.globalqueue': { type: 'string', default: String(DEFAULT_TXPOOL_CONFIG.globalQueue), help: 'non-executable (queued) transactions in total' },
  'txpool.recoverythreads': { type: 'string', help: 'threads that recover the senders of submitted transactions from their signatures (0: the main thread does; default: set by the cores)' },
  'txpool.lifetime': { type: 'string', default: '3h', help: 'how long queued transactions wait without progress before they are dropped (e.g. 3h, 90m, 30s)' },
  'txpool.journal': { type: 'string', default: DEFAULT_TX_JOURNAL, help: "file (in the datadir unless absolute) keeping every transaction answered with a hash until it is mined: synced before the answer, replayed at start ('' turns it off)" },
  'txpool.rejournal': { type: 'string', default: '1h', help: 'how often the journal is rewritten with the transactions still in the pool (at least 1s; e.g. 1h, 10m)' },
  'txpool.nolocals': { type: 'boolean', default: false, help: 'no local treatment (exemption from eviction and limits) for the transactions this node signs, and no journal' },
  'miner.txtimeout': { type: 'string', default: '5s', help: 'most execution time one transaction may take in a block this node proposes; a slower one is left out, dropped from the pool and refused when sent again (0: no limit)' },
  'miner.buildtime': { type: 'string', help: 'most execution time a block this node proposes may take: past it the block is sealed with the transactions that ran (0: no limit; default a third of the genesis istanbul.timeout)' },
  'seal.empty': { type: 'boolean', default: false, help: 'seal empty blocks every period' },
  'dev.period': { type: 'string', default: '1', help: 'block period of a new dev chain: seconds, or a duration such as 250ms (0: seal when transactions arrive); a block every period, empty ones too' },
  lightkdf: { type: 'boolean', default: false, help: 'cheap scrypt for new key files (tests and dev only)' },
  unlock: { type: 'string', default: '', help: 'keystore accounts unlocked at start until the node stops, comma-separated addresses (passwords from --password)' },
  password: { type: 'string', help: "file of --unlock's passwords, one a line in the same order, the last line serving the accounts beyond it (default: empty passwords)" },
  'allow-insecure-unlock': { type: 'boolean', default: false, help: 'on a non-loopback HTTP listener: allow personal_unlockAccount and password signing, and unlock the dev account' },
  help: { type: 'boolean', default: false, help: 'print the flags' },
} as const;

export class ConfigError extends Error {}

function int(v: string, flag: string, min = 0): number {
  if (!/^\d+$/.test(v) || Number(v) < min) throw new ConfigError(`--${flag} must be an integer ≥ ${min}, got "${v}"`);
  return Number(v);
}

function bigint(v: string, flag: string): bigint {
  if (!/^\d+$/.test(v)) throw new ConfigError(`--${flag} must be a non-negative integer, got "${v}"`);
  return BigInt(v);
}

function irisTestModes(v: string | undefined): IrisTestModes | undefined {
  try {
    return parseIrisTestModes(v);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}

/** `env`: where CHAIN_NODE_P2P_FAULTS and CHAIN_NODE_IRIS_TEST are read (the process' environment). */
export function parseFlags(argv: string[], env: NodeJS.ProcessEnv = process.env): NodeConfig | 'help' {
  let values;
  try {
    const options = Object.fromEntries(Object.entries(FLAGS).map(([k, f]) => [k, { type: f.type, ...('default' in f ? { default: f.default } : {}) }]));
    ({ values } = parseArgs({ args: argv, options: options as never, strict: true, allowPositionals: false }));
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  const v = values as Record<string, string | boolean | undefined>;
  if (v.help) return 'help';
  const addr = String(v['http.addr']);
  const api = v['http.api'] === undefined ? [...(isLoopback(addr) ? ALL_NAMESPACES : REMOTE_NAMESPACES)] : list(String(v['http.api']));
  for (const ns of api) if (!(ALL_NAMESPACES as readonly string[]).includes(ns)) throw new ConfigError(`--http.api: unknown namespace "${ns}" (known: ${ALL_NAMESPACES.join(', ')})`);
  const check = v['rpc.checkresults'];
  if (check !== undefined && check !== 'true' && check !== 'false') throw new ConfigError('--rpc.checkresults must be true or false');
  const docs = v['http.docs'];
  if (docs !== undefined && docs !== 'true' && docs !== 'false') throw new ConfigError('--http.docs must be true or false');
  const transport = String(v['http.transport']);
  if (transport !== 'auto' && transport !== 'uws' && transport !== 'node') throw new ConfigError(`--http.transport must be auto, uws or node, got "${transport}"`);
  const genesisFile = v.genesis as string | undefined;
  const unlock = list(String(v.unlock));
  for (const a of unlock) if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw new ConfigError(`--unlock: "${a}" is not an address (0x and 40 hex digits)`);
  // geth's rule, as for personal_unlockAccount: a key unlocked behind a listener others can reach signs for anyone there
  if (unlock.length > 0 && !isLoopback(addr) && v['allow-insecure-unlock'] !== true) {
    throw new ConfigError(`--unlock with HTTP listening on ${addr}, not loopback, needs --allow-insecure-unlock: anyone who reaches it could sign with the account`);
  }
  const passwordFile = v.password as string | undefined;
  return {
    datadir: resolve(String(v.datadir)),
    genesisFile: genesisFile ? resolve(genesisFile) : undefined,
    http: {
      addr,
      port: int(String(v['http.port']), 'http.port'),
      api,
      corsDomains: list(String(v['http.corsdomain'])),
      vhosts: vhosts(String(v['http.vhosts'])),
      maxBodyBytes: int(String(v['http.maxbody']), 'http.maxbody', 1024),
      maxBatch: int(String(v['rpc.batchlimit']), 'rpc.batchlimit', 1),
      maxResponseBytes: int(String(v['rpc.batch-response-max-size']), 'rpc.batch-response-max-size'),
      docs: docs === undefined ? !genesisFile : docs === 'true',
      transport,
      maxConns: v['http.maxconns'] === undefined ? undefined : int(String(v['http.maxconns']), 'http.maxconns', 1),
      readTimeoutMs: durationMs(String(v['http.readtimeout']), 'http.readtimeout'),
      threads: v['http.threads'] === undefined ? undefined : int(String(v['http.threads']), 'http.threads', 0),
    },
    checkResults: check === undefined ? !genesisFile : check === 'true',
    verbosity: verbosity(String(v.verbosity), 'verbosity'),
    logFormat: logFormat(v['log.format'] as string | undefined),
    logVmodule: vmodule(String(v['log.vmodule'])),
    minGasPrice: bigint(String(v.gasprice), 'gasprice'),
    sealEmpty: v['seal.empty'] === true,
    devPeriod: String(v['dev.period']) === '0' ? 0 : durationMs(String(v['dev.period']), 'dev.period') / 1000,
    lightKdf: v.lightkdf === true,
    allowInsecureUnlock: v['allow-insecure-unlock'] === true,
    unlock,
    passwordFile: passwordFile ? resolve(passwordFile) : undefined,
    gasCap: BigInt(int(String(v['rpc.gascap']), 'rpc.gascap', 21000)),
    evmTimeoutMs: durationMs(String(v['rpc.evmtimeout']), 'rpc.evmtimeout'),
    txBudgetMs: durationMs(String(v['miner.txtimeout']), 'miner.txtimeout'),
    buildMs: v['miner.buildtime'] === undefined ? undefined : durationMs(String(v['miner.buildtime']), 'miner.buildtime'),
    p2pPort: int(String(v['p2p.port']), 'p2p.port'),
    irisTest: irisTestModes(env.CHAIN_NODE_IRIS_TEST),
    metrics: v.metrics === true ? { addr: metricsAddr(String(v['metrics.addr'])), port: int(String(v['metrics.port']), 'metrics.port') } : undefined,
    p2p: {
      addr: v['p2p.addr'] === undefined ? undefined : p2pAddr(String(v['p2p.addr'])),
      bootnodes: list(String(v.bootnodes)),
      maxPeers: int(String(v.maxpeers), 'maxpeers'),
      inboundRate: int(String(v['p2p.inboundrate']), 'p2p.inboundrate'),
      inboundExempt: cidrs(String(v['p2p.inboundrate.exempt'])),
      faults: faultsFile((v['p2p.faults'] as string | undefined) ?? env.CHAIN_NODE_P2P_FAULTS),
      syncMode: syncMode(String(v.syncmode)),
    },
    txpool: {
      priceBump: int(String(v['txpool.pricebump']), 'txpool.pricebump', 1),
      accountSlots: int(String(v['txpool.accountslots']), 'txpool.accountslots', 1),
      globalSlots: int(String(v['txpool.globalslots']), 'txpool.globalslots', 1),
      accountQueue: int(String(v['txpool.accountqueue']), 'txpool.accountqueue', 1),
      globalQueue: int(String(v['txpool.globalqueue']), 'txpool.globalqueue', 1),
      lifetimeMs: durationMs(String(v['txpool.lifetime']), 'txpool.lifetime'),
    },
    txJournal: String(v['txpool.journal']),
    txRejournalMs: rejournalMs(String(v['txpool.rejournal'])),
    txNoLocals: v['txpool.nolocals'] === true,
    recoveryThreads: v['txpool.recoverythreads'] === undefined ? undefined : int(String(v['txpool.recoverythreads']), 'txpool.recoverythreads', 0),
    logs: {
      maxRange: int(String(v['rpc.logs.maxrange']), 'rpc.logs.maxrange', 1),
      maxResults: int(String(v['rpc.logs.maxresults']), 'rpc.logs.maxresults', 1),
      filterTimeoutMs: durationMs(String(v['rpc.filter.timeout']), 'rpc.filter.timeout'),
      maxFilters: int(String(v['rpc.filter.max']), 'rpc.filter.max', 1),
      maxFiltersPerConnection: int(String(v['rpc.filter.maxperconnection']), 'rpc.filter.maxperconnection', 1),
      maxFiltersPerAddress: int(String(v['rpc.filter.maxperaddress']), 'rpc.filter.maxperaddress', 1),
    },
  };
}

function verbosity(v: string, flag: string): number {
  const n = int(v, flag);
  if (n > MAX_VERBOSITY) throw new ConfigError(`--${flag} must be 0-${MAX_VERBOSITY}, got "${v}"`);
  return n;
}

function logFormat(v: string | undefined): LogFormat | undefined {
  if (v !== undefined && v !== 'json' && v !== 'text') throw new ConfigError(`--log.format must be json or text, got "${v}"`);
  return v;
}

/** `p2p=4,consensus=4` → { p2p: 4, consensus: 4 } */
function vmodule(v: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of list(v)) {
    const m = /^([a-z][a-z0-9_-]*)=(\d+)$/.exec(item);
    if (!m) throw new ConfigError(`--log.vmodule: "${item}" is not module=level (e.g. p2p=4)`);
    out[m[1]!] = verbosity(m[2]!, `log.vmodule ${m[1]}`);
  }
  return out;
}

function metricsAddr(v: string): string {
  if (isIP(v) === 0 && v !== 'localhost') throw new ConfigError(`--metrics.addr must be an IP address or localhost, got "${v}"`);
  return v;
}

function syncMode(v: string): 'full' | 'snap' {
  if (v !== 'full' && v !== 'snap') throw new ConfigError(`--syncmode must be full or snap, got "${v}"`);
  return v;
}

function faultsFile(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (v === '') throw new ConfigError('--p2p.faults (or CHAIN_NODE_P2P_FAULTS) must name a file');
  return resolve(v);
}

function cidrs(v: string): string[] {
  const out = list(v);
  for (const c of out) {
    try {
      parseCidr(c);
    } catch (e) {
      throw new ConfigError(`--p2p.inboundrate.exempt: ${(e as Error).message}`);
    }
  }
  return out;
}

function p2pAddr(v: string): string {
  if (isIP(v) === 0) throw new ConfigError(`--p2p.addr must be an IP address, got "${v}"`);
  return v;
}

/** A comma-separated flag's items, blanks dropped. */
function list(v: string): string[] {
  return v.split(',').map((s) => s.trim()).filter(Boolean);
}

function vhosts(v: string): string[] {
  const names = list(v);
  if (names.length === 0) throw new ConfigError('--http.vhosts must name at least one host (* for any)');
  for (const n of names) if (n !== '*' && !/^[A-Za-z0-9._-]+$/.test(n)) throw new ConfigError(`--http.vhosts: "${n}" is not a host name (no port, no scheme)`);
  return names;
}


/** geth-style durations: "3h", "1h30m", "90s", "500ms"; a bare number is seconds (so "0" is 0, where a flag allows none). */
export function durationMs(v: string, flag: string): number {
  const ms = parseDurationMs(v);
  if (ms === undefined) throw new ConfigError(`--${flag} must be a positive duration such as 3h, 90m, 30s or 500ms, got "${v}"`);
  return ms;
}

/** geth raises a rejournal interval below a second to one; refusing it says so instead */
function rejournalMs(v: string): number {
  const ms = durationMs(v, 'txpool.rejournal');
  if (ms < 1000) throw new ConfigError(`--txpool.rejournal must be at least 1s, got "${v}"`);
  return ms;
}

export function flagsHelp(): string {
  return Object.entries(FLAGS)
    .map(([k, f]) => `  --${k.padEnd(24)} ${f.help}${'default' in f && f.default !== '' && f.default !== false ? ` (default ${f.default})` : ''}`)
    .join('\n');
}
