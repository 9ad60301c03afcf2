// One node of `npm run network` as its own process: the bundled node (dist/chain-node.mjs, as
// `npm start` runs it) with its datadir, the network's genesis, its ports and node 1 as bootnode.
// Its output goes to DIR/node-k/node.log, not through this process: a node must outlive a pipe to
// a network command that was killed, and a log file is where a user looks for what a node did.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NETWORK_HOST, type NetworkLayout, type NodeSlot } from './layout.ts';

/** The bundled node, relative to the project root (the `command` printed is run from there). */
const NODE_ENTRY = 'dist/chain-node.mjs';

export interface NodeProcess {
  slot: NodeSlot;
  child: ChildProcess;
  /** argv that starts this node alone from the project root */
  command: string[];
  http: string;
  ws: string;
  log: string;
  /** resolves with the exit code, or the signal that ended it */
  exited: Promise<number | string>;
}

function nodeCommand(layout: NetworkLayout, slot: NodeSlot): string[] {
  const first = layout.nodes[0]!;
  return [
    'node',
    NODE_ENTRY,
    '--datadir', slot.datadir,
    '--genesis', layout.genesisFile,
    '--http.port', String(slot.httpPort),
    '--p2p.port', String(slot.p2pPort),
    // a genesis-file chain listens on every interface by default: a local network stays local
    '--p2p.addr', NETWORK_HOST,
    ...(slot === first ? ['--unlock', layout.account, '--password', layout.passwordFile] : ['--bootnodes', first.enode]),
    ...(layout.faults ? ['--p2p.faults', faultFile(slot.datadir)] : []),
  ];
}

/** Where a node of a network run with --faults reads its injected faults (a test writes it). */
export function faultFile(datadir: string): string {
  return join(datadir, 'faults.json');
}

/** Starts the node, its output appended to its node.log; `root` is the project root. */
export function spawnNode(layout: NetworkLayout, slot: NodeSlot, root: string): NodeProcess {
  const command = nodeCommand(layout, slot);
  const log = join(slot.datadir, 'node.log');
  const fd = openSync(log, 'a');
  // this node's executable, whatever `node` is on the PATH
  const child = spawn(process.execPath, command.slice(1), { cwd: root, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<number | string>((done) => child.once('exit', (code, signal) => done(code ?? signal ?? -1)));
  const url = `${NETWORK_HOST}:${slot.httpPort}`;
  return { slot, child, command, http: `http://${url}`, ws: `ws://${url}`, log, exited };
}

/** The last lines of a node's log, to say why it did not start. */
function logTail(p: NodeProcess, lines = 15): string {
  try {
    return readFileSync(p.log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Resolves once the node answers JSON-RPC; rejects when it exits first or does not answer within
 * `timeoutMs` (a first start also initializes the chain).
 */
export async function untilAnswering(p: NodeProcess, timeoutMs = 30_000): Promise<void> {
  let exit: number | string | undefined;
  void p.exited.then((e) => (exit = e));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exit !== undefined) throw new Error(`node ${p.slot.index} exited (${exit}) before answering; the end of ${p.log}:\n${logTail(p)}`);
    try {
      const res = await fetch(p.http, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`node ${p.slot.index} did not answer on ${p.http} within ${timeoutMs / 1000} s; the end of ${p.log}:\n${logTail(p)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
