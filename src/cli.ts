// chain-node command line: parse flags, start the node, print one start line, stop cleanly on
// SIGINT/SIGTERM (sockets closed, LMDB flushed). `chain-node db check` checks a datadir instead,
// `chain-node export` / `import` write and read the chain as a block file (src/chain/block-file.ts),
// `chain-node admin …` drives the system contracts of a running node (src/admin-command.ts).
// The node's modules load only to start a node: an admin command, a JSON-RPC client, starts in a
// quarter of the time without them.
import './node/debug-colors.ts'; // first: before any module that loads `debug`

async function main(): Promise<void> {
  if (process.argv[2] === 'admin') {
    const { runAdminCommand } = await import('./admin-command.ts');
    process.exitCode = await runAdminCommand(
      process.argv.slice(3),
      (line) => process.stdout.write(line + '\n'),
      (line) => process.stderr.write(line + '\n'),
    );
    return;
  }
  const [{ ConfigError, flagsHelp, parseFlags }, { startNode }, { GenesisError }, { StoreError }, { fileErrorMessage, isFileError }, { runDbCommand }] = await Promise.all([
    import('./node/config.ts'),
    import('./node/node.ts'),
    import('./chain/genesis.ts'),
    import('./store/lmdb-store.ts'),
    import('./util/file-errors.ts'),
    import('./db-command.ts'),
  ]);
  if (process.argv[2] === 'db') {
    process.exitCode = await runDbCommand(process.argv.slice(3), (line) => process.stdout.write(line + '\n'), [process.execPath, ...process.execArgv, process.argv[1]!]);
    return;
  }
  if (process.argv[2] === 'export' || process.argv[2] === 'import') {
    const run = process.argv[2] === 'export' ? (await import('./export-command.ts')).runExportCommand : (await import('./import-command.ts')).runImportCommand;
    process.exitCode = await run(
      process.argv.slice(3),
      (line) => process.stdout.write(line + '\n'),
      (line) => process.stderr.write(line + '\n'),
    );
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
    process.stdout.write(
      `usage: chain-node [flags]\n       chain-node db check [--datadir DIR]   check the stored chain and head state (exit 0: sound)\n       chain-node export FILE [FROM [TO]] [--datadir DIR]   write the chain's blocks to FILE (RLP blocks back to back; .gz: gzip)\n       chain-node import FILE [--datadir DIR] [--genesis FILE]   verify, execute and add the blocks of FILE to the datadir's chain\n       chain-node admin <command> …          roles, nodes and chain parameters of a running node (chain-node admin --help)\n\nflags:\n${flagsHelp()}\n`,
    );
    return;
  }
  let node;
  try {
    node = await startNode(config);
  } catch (e) {
    // the operator's to fix (a file, a port, the database, an account to unlock): said in words, without a stack
    if (e instanceof GenesisError || e instanceof StoreError || e instanceof ConfigError || (e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
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
      (node.metricsUrl ? `, metrics ${node.metricsUrl}` : '') +
      (config.http.docs ? `, status ${new URL('status', node.url).href}` : '') +
      (node.docsUrl ? `, API docs and playground ${node.docsUrl}` : '') +
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
