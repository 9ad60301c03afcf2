// What every `chain-node admin` command shares: its options, its context, sending a write and
// saying what became of it, reading arguments. The commands are in role-, node- and
// param-commands.ts, the dispatch in src/admin-command.ts.
import { fromQuantity, type ChainClient } from '../../generated/client/index.ts';
import { encodeSystemCall, hasSystemMethod, type SystemCall, type SystemContractName, type SystemOutcome } from '../client/system-contracts.ts';
import type { Sender } from './sender.ts';

/** A mistake in the command line: exit code 2. */
export class UsageError extends Error {}

export const OPTIONS = {
  rpc: { type: 'string' },
  from: { type: 'string' },
  keyfile: { type: 'string' },
  'password-file': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  type: { type: 'string' },
  desc: { type: 'string' },
  delayNum: { type: 'string' },
  p2pPort: { type: 'string' },
  rpcPort: { type: 'string' },
  abi: { type: 'string' },
} as const;

export type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

/** What a command has to work with. */
export interface Context {
  client: ChainClient;
  values: Values;
  out: (line: string) => void;
  err: (line: string) => void;
  sender(): Promise<Sender>;
}

export interface Command {
  /** positional arguments after the command's name: [required, optional] */
  args: [number, number];
  /** node-specific options it takes */
  options?: (keyof Values)[];
  run(ctx: Context, args: string[]): Promise<number>;
}

/** --json's document: integers as JSON numbers (as decimal strings past 2^53, which a number would round). */
export function json(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => (typeof v !== 'bigint' ? v : v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString()), 2);
}

/** Sends a write, waits for it to be mined and says what became of it: `<done> (block N, tx 0x…)`, or why it failed. */
export async function write(ctx: Context, call: SystemCall, done: string): Promise<number> {
  const outcome: SystemOutcome = await (await ctx.sender()).send(call);
  const { receipt } = outcome;
  const where = `block ${fromQuantity(receipt.blockNumber)}, tx ${receipt.transactionHash}`;
  if (ctx.values.json) {
    ctx.out(json({ ok: outcome.ok, from: receipt.from, block: fromQuantity(receipt.blockNumber), tx: receipt.transactionHash, status: receipt.status, reason: outcome.reason, events: outcome.events }));
    return outcome.ok ? 0 : 1;
  }
  if (outcome.ok) {
    ctx.out(`${done} (${where})`);
    return 0;
  }
  const failing = outcome.events.find((e) => e.code !== 0n);
  ctx.err(`failed: ${outcome.reason} (${receipt.status === '0x1' ? `code ${failing?.code}` : 'status 0'}, ${where})`);
  return 1;
}

/** A call through the SDK's run-time checked encoder; a method this build's table lacks is the operator's to know, in words. */
export function call(contract: SystemContractName, method: string, ...args: unknown[]): SystemCall {
  if (!hasSystemMethod(contract, method)) throw new Error(`this build of chain-node has no ${contract}.${method}`);
  return encodeSystemCall(contract, method, args);
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export function address(text: string, what = 'address'): string {
  if (!ADDRESS.test(text)) throw new UsageError(`${what}: not an address (0x and 40 hex digits): ${JSON.stringify(text)}`);
  return text;
}

export function integer(text: string, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(text) || Number(text) > max) throw new UsageError(`${what}: not an integer from 0 to ${max}: ${JSON.stringify(text)}`);
  return Number(text);
}
