// startNode: the chain core plus the JSON-RPC server in front of it. Used by the CLI and by tests
// (which start real nodes on random loopback ports with real LMDB in a temp dir).
import { isIP } from 'node:net';
import { ChainCore } from './core.ts';
import { createLogger, type Logger } from './logger.ts';
import type { NodeConfig } from './config.ts';
import { buildHandlers } from '../api/index.ts';
import { clientVersion } from '../api/node-info.ts';
import { Dispatcher } from '../rpc/dispatch.ts';
import { startRpcServer } from '../rpc/server.ts';
import { docsPageRoutes } from './docs-page.ts';
import { methods, patternLabels } from '../../generated/methods.ts';
import type { Handlers } from '../../generated/handlers.ts';

// JSON imports, not file reads relative to this module: the esbuild bundle (npm start) inlines them.
import pkg from '../../package.json' with { type: 'json' };
import document from '../../openrpc.json' with { type: 'json' };

export interface RunningNode {
  readonly url: string;
  readonly wsUrl: string;
  readonly port: number;
  readonly core: ChainCore;
  readonly devAccount: string | undefined;
  close(): Promise<void>;
}

function isLoopback(addr: string): boolean {
  return addr === 'localhost' || addr === '::1' || (isIP(addr) === 4 && addr.startsWith('127.'));
}

export async function startNode(config: NodeConfig, log: Logger = createLogger(config.verbosity)): Promise<RunningNode> {
  const core = await ChainCore.open({
    datadir: config.datadir,
    genesisFile: config.genesisFile,
    devPeriod: config.devPeriod,
    sealEmpty: config.sealEmpty,
    minGasPrice: config.minGasPrice,
    lightKdf: config.lightKdf,
    p2pPort: config.p2pPort,
    txpool: config.txpool,
    log,
    ledgerTransports: config.ledgerTransports,
    directTransfers: config.directTransfers,
    fastViews: config.fastViews,
  });
  const handlers = buildHandlers(
    {
      core,
      datadir: config.datadir,
      clientVersion: clientVersion(pkg.version),
      p2pPort: config.p2pPort,
      httpHost: config.http.addr,
      httpLoopback: isLoopback(config.http.addr),
      allowInsecureUnlock: config.allowInsecureUnlock,
    },
    { gasCap: config.gasCap },
    { limits: config.logs, log },
  ) satisfies Handlers;
  const dispatcher = new Dispatcher({
    methods,
    patternLabels,
    handlers,
    enabledNamespaces: new Set(config.http.api),
    checkResults: config.checkResults,
    maxBatch: config.http.maxBatch,
    discover: () => document,
    log,
  });
  let server;
  try {
    server = await startRpcServer({
      host: config.http.addr,
      port: config.http.port,
      transport: config.http.transport,
      dispatcher,
      corsDomains: config.http.corsDomains,
      maxBodyBytes: config.http.maxBodyBytes,
      wsMaxBufferedBytes: config.http.wsMaxBufferedBytes,
      staticRoutes: config.http.docs ? docsPageRoutes(log) : undefined,
      log,
    });
  } catch (e) {
    await core.close();
    throw e;
  }
  let closing: Promise<void> | undefined;
  return {
    url: server.url,
    wsUrl: server.wsUrl,
    port: server.port,
    core,
    devAccount: core.devAccount,
    close() {
      closing ??= (async () => {
        await server.close();
        await core.close();
      })();
      return closing;
    },
  };
}
