// chain-node command line: parse flags, start the node, print one start line, stop cleanly on
// SIGINT/SIGTERM (sockets closed, LMDB flushed). `chain-node db check` checks a datadir instead.
import './node/debug-colors.ts'; // first: before any module that loads `debug`
import { ConfigError, flagsHelp, parseFlags } from './node/config.ts';
import { startNode } from './node/node.ts';
import { GenesisError } from './chain/genesis.ts';
import { StoreError } from './store/lmdb-store.ts';
import { fileErrorMessage, isFileError } from './util/file-errors.ts';
import { runDbCommand } from './db-command.ts';

async function main(): Promise<void> {
  if (process.argv[2] === 'db') {
    process.exitCode = await runDbCommand(process.argv.slice(3), (line) => process.stdout.write(line + '\n'));
    return;
  }
  let config;
  try {
    config = parseFlags(process.argv.slice(2));
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`chain-node: ${e.message}\n\nflags:\n${flagsHelp()}\n`);
      process.exit(2);
    }
    throw e;
  }
  if (config === 'help') {
    process.stdout.write(`usage: chain-node [flags]\n       chain-node db check [--datadir DIR]   check the stored chain and head state (exit 0: sound)\n\nflags:\n${flagsHelp()}\n`);
    return;
  }
  let node;
  try {
    node = await startNode(config);
  } catch (e) {
    // the operator's to fix (a file, a port, the database): said in words, without a stack
    if (e instanceof GenesisError || e instanceof StoreError || (e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      process.stderr.write(`chain-node: ${(e as Error).message}\n`);
      process.exit(1);
    }
    if (isFileError(e)) {
      process.stderr.write(`chain-node: cannot use ${fileErrorMessage(e)}\n`);
      process.exit(1);
    }
    throw e;
  }
  const c = node.core;
  process.stdout.write(
    `chain-node serving JSON-RPC on ${node.url} (WebSocket ${node.wsUrl}), chain ${c.config.chainId}, head #${c.chain.headNumber}, datadir ${config.datadir}` +
      (node.devAccount ? `, dev account ${node.devAccount}` : '') +
      '\n',
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`chain-node: ${signal}, shutting down\n`);
    node.close().then(
      () => process.exit(0),
      (e) => {
        process.stderr.write(`chain-node: shutdown failed: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((e) => {
  process.stderr.write(`chain-node: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
