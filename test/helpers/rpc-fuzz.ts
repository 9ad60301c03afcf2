// Schema-driven fuzzing of a real node: params for every method of openrpc.json, valid ones drawn
// from the param schemas and invalid ones by mutation (test/helpers/schema-values.ts), plus broken
// envelopes, sent over HTTP and WebSocket, singly and in batches, to a node in a child process (its
// crash, hang, memory and log are its own) on a dev chain with some state: blocks, a funded test
// key, a contract with storage and logs. Which params are valid is what the generated validators
// say, as the dispatcher does. Invariants, each broken one a violation:
//  - every answer is well-formed JSON-RPC 2.0: the request's id, exactly one of result and error,
//    an integer code and a message;
//  - params the schema refuses get -32602 naming the argument; no answer is an internal error
//    (-32603: a handler threw what it did not mean to);
//  - every result validates against its method's result schema (the node runs with
//    --rpc.checkresults false: what the client sees is checked here);
//  - a phase of refused requests only changes nothing (head, state root, pool, accounts);
//  - every request is answered within a bound, the node never exits, never logs a stack or an
//    ERROR line, and its anonymous memory (RSS without the LMDB file's mapped pages, which grow
//    with the chain) stays within a bound.
// Requests are drawn from the seed (each worker from its own stream); values the node hands out —
// block and transaction hashes, filter ids — enter the draws as they appear, so a violation is
// reported with its request, which replays it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { Wallet, Transaction } from 'ethers';
import { rpcCall, spawnNode, type NodeProcess } from './process.ts';
import { prng } from './prng.ts';
import { SchemaValues, type Dictionary } from './schema-values.ts';
import { mined as minedOn, testKey, testAddress } from './node.ts';
import { methods, patternLabels } from '../../generated/methods.ts';
import { explainFailure, runValidator } from '../../src/codec/validation-message.ts';

const doc = JSON.parse(readFileSync(new URL('../../openrpc.json', import.meta.url), 'utf8'));

/** Methods never sent, and why: they change the world outside the node, or the harness's own footing. */
export const SKIPPED: Record<string, string> = {
  admin_addPeer: 'dials whatever enode it is given (hosts outside the test) and changes the peer set',
  admin_removePeer: 'changes the peer set; with no peers it only answers false',
  personal_unlockAccount: "a valid call re-locks the dev account after a random duration (keystore timing): the harness's eth_sendTransaction would start failing",
  personal_lockAccount: "locks the dev account the harness sends with",
  personal_openWallet: 'opens a Ledger over USB: a hardware boundary (tested with recorded APDUs in accounts-ledger.test.ts)',
};

/** runtime: SSTORE(0, calldata word) and LOG1 with it as the topic; init: copy the 15 bytes after its 12 and return them */
const RUNTIME = '60003560005560003560006000a100';
const INIT = '0x600f600c600039600f6000f3' + RUNTIME;

export interface FuzzOptions {
  seed: number;
  /** requests per round: the first 40 % refused-only (state compared around them), the rest mixed */
  requestsPerRound: number;
  /** rounds to run; with `minutes`, rounds run until the time is up */
  rounds?: number;
  minutes?: number;
  /** parallel senders: the even ones HTTP, the odd ones WebSocket (default 2) */
  concurrency?: number;
  /** the longest a request may take to be answered (default 15 s: --rpc.evmtimeout is 2 s) */
  answerBoundMs?: number;
  /** the most the node's anonymous memory may grow past the first round (default 200 MiB) */
  memoryGrowthBound?: number;
  /** a line after each round (the long run's progress) */
  progress?: (line: string) => void;
}

export interface Violation {
  kind: string;
  detail: string;
  request?: string;
  answer?: string;
}

export interface FuzzReport {
  seed: number;
  rounds: number;
  requests: number;
  http: number;
  ws: number;
  inBatches: number;
  /** requests whose params the schema accepts (sent as such) and refuses */
  valid: number;
  invalid: number;
  results: number;
  /** methods sent that never answered with a result (what the draws did not reach) */
  neverAResult: string[];
  errors: Map<number, number>;
  methods: number;
  slowestMs: number;
  slowest: string;
  /** the node's memory: at start, after the first round (warmed up), at the end, and the highest after a round */
  memory: { start: Memory; afterFirstRound: Memory; end: Memory; peak: Memory };
  stateChecks: number;
  violations: Violation[];
  violationCount: number;
  durationMs: number;
}

interface Prepared {
  /** the request object (or raw text for a broken envelope) */
  body: unknown;
  method: string;
  /** what the schema says of the params: 'valid', 'invalid', or 'envelope' (the request itself is broken) */
  verdict: 'valid' | 'invalid' | 'envelope';
  id: number | string | undefined;
}

type Answer = { text: string; ms: number } | { failed: string; ms: number };

const MAX_LISTED = 50;

export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const dir = mkdtempSync(join(tmpdir(), 'chain-node-fuzz-'));
  const node = await spawnNode(['--datadir', dir, '--http.port', '0', '--dev.period', '0', '--lightkdf', '--nodiscover', '--rpc.checkresults', 'false', '--rpc.evmtimeout', '2s', '--rpc.gascap', '10000000', '--verbosity', '3']);
  const report: FuzzReport = {
    seed: o.seed,
    rounds: 0,
    requests: 0,
    http: 0,
    ws: 0,
    inBatches: 0,
    valid: 0,
    invalid: 0,
    results: 0,
    neverAResult: [],
    errors: new Map(),
    methods: 0,
    slowestMs: 0,
    slowest: '',
    memory: { start: NO_MEMORY, afterFirstRound: NO_MEMORY, end: NO_MEMORY, peak: NO_MEMORY },
    stateChecks: 0,
    violations: [],
    violationCount: 0,
    durationMs: 0,
  };
  const violation = (v: Violation) => {
    if (report.violationCount++ < MAX_LISTED) report.violations.push(v);
  };
  const sockets: WsClient[] = [];
  const started = Date.now();
  answered.clear();
  try {
    const state = await prepareState(node.url);
    const { dictionary } = state;
    const concurrency = o.concurrency ?? 2;
    for (let w = 1; w < concurrency; w += 2) sockets.push(await WsClient.open(node.url.replace(/^http/, 'ws')));
    const bound = o.answerBoundMs ?? 15000;
    const seen = new Set<string>();
    report.memory.start = report.memory.peak = memoryOf(node);
    const deadline = o.minutes === undefined ? Infinity : started + o.minutes * 60_000;
    const rounds = o.rounds ?? (o.minutes === undefined ? 1 : Infinity);
    for (let round = 0; round < rounds && Date.now() < deadline; round++) {
      const refusedOnly = Math.round(o.requestsPerRound * 0.4);
      for (const phase of ['refused', 'mixed'] as const) {
        // the mixed phase's transactions are mined first: a block sealed meanwhile is not the refused requests' doing
        const before = phase === 'refused' ? await settledDigest(node.url) : undefined;
        const budget = phase === 'refused' ? refusedOnly : o.requestsPerRound - refusedOnly;
        let left = budget;
        await Promise.all(
          Array.from({ length: concurrency }, async (_, w) => {
            // one stream per worker, round and phase: the same seed draws the same requests
            const g = new SchemaValues(doc, prng(o.seed * 1009 + round * 101 + w * 7 + (phase === 'refused' ? 0 : 1)), dictionary);
            const ws = w % 2 === 1 ? sockets[(w - 1) / 2]! : undefined;
            while (left > 0 && !hasExited(node)) {
              const size = g.chance(0.2) ? 2 + g.int(7) : 1;
              const batch: Prepared[] = [];
              for (let i = 0; i < size && left > 0; i++, left--) batch.push(await prepare(g, phase, state));
              if (batch.length === 0) break;
              const text = size > 1 ? JSON.stringify(batch.map((b) => b.body)) : typeof batch[0]!.body === 'string' ? (batch[0]!.body as string) : JSON.stringify(batch[0]!.body);
              const answer = await (ws ? ws.send(text, bound) : postHttp(node.url, text, bound));
              report.requests += batch.length;
              if (ws) report.ws += batch.length;
              else report.http += batch.length;
              if (size > 1) report.inBatches += batch.length;
              for (const b of batch) {
                seen.add(b.method);
                if (b.verdict === 'valid') report.valid++;
                else report.invalid++;
              }
              if (answer.ms > report.slowestMs) {
                report.slowestMs = Math.round(answer.ms);
                report.slowest = batch.map((b) => b.method).join(', ');
              }
              if (answer.ms > bound || 'failed' in answer) {
                violation({ kind: 'no answer in time', detail: 'failed' in answer ? answer.failed : `${Math.round(answer.ms)} ms`, request: clip(text) });
                continue;
              }
              checkAnswer(answer.text, batch, size > 1, report, violation, dictionary);
            }
          }),
        );
        if (hasExited(node)) {
          violation({ kind: 'node exited', detail: `exit ${node.child.exitCode ?? node.child.signalCode}: ${clip(node.output().slice(-2000))}` });
          break;
        }
        if (before !== undefined) {
          report.stateChecks++;
          const after = await stateDigest(node.url);
          if (after !== before) violation({ kind: 'a refused-only phase changed state', detail: `before ${clip(before)}\nafter ${clip(after)}` });
        }
      }
      report.rounds++;
      const now = memoryOf(node);
      if (now.anon > report.memory.peak.anon) report.memory.peak = now;
      if (round === 0) report.memory.afterFirstRound = now;
      o.progress?.(`round ${round + 1}: ${report.requests} requests, ${report.violationCount} violations, ${memoryText(now)}, ${((Date.now() - started) / 1000).toFixed(0)} s`);
      if (hasExited(node)) break;
    }
    report.methods = seen.size;
    report.neverAResult = [...seen].filter((m) => !answered.has(m) && m !== '(envelope)').sort();
    report.memory.end = memoryOf(node);
    const growthBound = o.memoryGrowthBound ?? 200 * 2 ** 20;
    const grew = report.memory.end.anon - report.memory.afterFirstRound.anon;
    if (grew > growthBound) violation({ kind: 'memory', detail: `anonymous memory grew ${mib(grew)} MiB after the first round (bound ${mib(growthBound)} MiB)` });
    if (!hasExited(node)) {
      const alive = await postHttp(node.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }), bound);
      if ('failed' in alive) violation({ kind: 'node unresponsive after the run', detail: alive.failed });
    }
  } finally {
    for (const s of sockets) s.close();
    node.child.kill('SIGTERM');
    // a node that does not stop is a hang too
    const stopped = await Promise.race([node.exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 15_000).unref())]);
    if (!stopped) {
      violation({ kind: 'node did not stop on SIGTERM within 15 s', detail: '' });
      node.child.kill('SIGKILL');
      await node.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
  for (const line of logProblems(node.output())) violation({ kind: 'node log', detail: line });
  report.durationMs = Date.now() - started;
  return report;
}

/** The node's state the requests draw on. */
interface FuzzState {
  url: string;
  /** what the node knows, by component name (values that hit state) */
  dictionary: Dictionary;
  /** the funded test key that signs the raw transactions of the mixed phases */
  signer: Wallet;
  chainId: bigint;
  contract: string;
}

/** The node process ended (by itself or by a signal). */
function hasExited(node: NodeProcess): boolean {
  return node.child.exitCode !== null || node.child.signalCode !== null;
}

/** Funds a test key, deploys a contract and calls it; returns what the node now knows, for the draws. */
async function prepareState(url: string): Promise<FuzzState> {
  const call = (method: string, params: unknown[] = []) => rpcCall(url, method, params);
  const [dev] = (await call('eth_accounts')) as string[];
  const chainId = BigInt(await call('eth_chainId'));
  const mined = (hash: string) => minedOn({ rpc: call }, hash);
  const txHashes: string[] = [];
  txHashes.push(await call('eth_sendTransaction', [{ from: dev, to: testAddress(0), value: '0x' + (10n ** 24n).toString(16) }]));
  await mined(txHashes[0]!);
  const w = new Wallet(testKey(0));
  const sign = (nonce: number, fields: object) => w.signTransaction(Transaction.from({ nonce, gasLimit: 200000, gasPrice: 0, chainId, type: 0, ...fields }));
  const deploy = await call('eth_sendRawTransaction', [await sign(0, { data: INIT })]);
  const contract = (await mined(deploy)).contractAddress as string;
  txHashes.push(deploy);
  for (let i = 1; i <= 2; i++) {
    const h = await call('eth_sendRawTransaction', [await sign(i, { to: contract, data: '0x' + i.toString(16).padStart(64, '0') })]);
    await mined(h);
    txHashes.push(h);
  }
  const head = Number(await call('eth_blockNumber'));
  const blockHashes: string[] = [];
  for (let n = 0; n <= head; n++) blockHashes.push((await call('eth_getBlockByNumber', ['0x' + n.toString(16), false])).hash);
  const addresses = [dev, testAddress(0), testAddress(1), contract, '0x' + '0'.repeat(40), '0x' + '0'.repeat(36) + '0011'];
  const filterIds = [await call('eth_newBlockFilter'), await call('eth_newFilter', [{ address: contract }])];
  const word = '0x' + '2a'.padStart(64, '0');
  const dictionary = new Map<string, unknown[]>([
    ['Address', addresses],
    ['Hash32', [...blockHashes, ...txHashes, word]],
    ['Bytes32', [...txHashes, word]],
    ['Quantity', ['0x0', '0x1', '0x' + head.toString(16), '0x' + (head + 1).toString(16), '0x5208', '0xde0b6b3a7640000']],
    ['StorageKey', ['0x0', '0x1', word]],
    ['Data', ['0x', word, '0x' + RUNTIME]],
    ['FilterId', filterIds],
    ['SubscriptionId', [...filterIds]],
  ]);
  return { url, dictionary, signer: w, chainId, contract };
}

/** One request: a method (never a skipped one), its params valid or mutated, or now and then a broken envelope. */
async function prepare(g: SchemaValues, phase: 'refused' | 'mixed', ctx: FuzzState): Promise<Prepared> {
  const id = g.chance(0.1) ? `s-${g.int(1e9)}` : nextId++;
  if (g.chance(0.04)) return { body: brokenEnvelope(g, id), method: '(envelope)', verdict: 'envelope', id: undefined };
  const m = g.pick(FUZZED);
  const spec = methods.get(m.name)!;
  const wantValid = phase === 'mixed' && g.chance(0.5);
  let params: unknown = validParams(g, m);
  if (wantValid && /_sendRawTransaction$/.test(m.name) && g.chance(0.5)) params = [await freshRawTransaction(g, ctx)];
  if (!wantValid) params = mutate(g, m, params as unknown[]);
  const verdict = paramsVerdict(spec, params);
  // a refused-only phase sends nothing the schema accepts: a valid transaction would change state
  if (phase === 'refused' && verdict === 'valid') return prepare(g, phase, ctx);
  return { body: { jsonrpc: '2.0', id, method: m.name, params }, method: m.name, verdict, id };
}

let nextId = 1;
/** methods that answered a result at least once in the current run */
const answered = new Set<string>();

interface MethodDoc {
  name: string;
  params: { name: string; required?: boolean; schema: Record<string, unknown> }[];
  examples?: { params: { name: string; value: unknown }[] }[];
}

const FUZZED: MethodDoc[] = (doc.methods as MethodDoc[]).filter((m) => !(m.name in SKIPPED) && !(m.name.replace(/^chain_/, 'eth_') in SKIPPED));

function validParams(g: SchemaValues, m: MethodDoc): unknown[] {
  // now and then the document's own example, its addresses mostly the node's and its password
  // often the dev account's (''): values that mean something together (typed data, a signing)
  if (m.examples?.length && g.chance(0.25)) return g.pick(m.examples).params.map((p) => (p.name === 'password' && g.chance(0.5) ? '' : withKnownAddresses(g, p.value)));
  const spec = methods.get(m.name)!;
  // the optional ones given or not; a gap before a given one is null (geth's "not given")
  let n = spec.required;
  while (n < m.params.length && g.chance(0.6)) n++;
  return m.params.slice(0, n).map((p, i) => (i >= spec.required && g.chance(0.15) ? null : g.valid(p.schema)));
}

function withKnownAddresses(g: SchemaValues, value: unknown): unknown {
  if (typeof value === 'string') return /^0x[0-9a-fA-F]{40}$/.test(value) && g.chance(0.7) ? g.pick(g.known('Address')) : value;
  if (Array.isArray(value)) return value.map((v) => withKnownAddresses(g, v));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withKnownAddresses(g, v)]));
  return value;
}

/** The params changed so the schema should refuse them: one param wrong, one missing, one too many, not a list. */
function mutate(g: SchemaValues, m: MethodDoc, params: unknown[]): unknown {
  const spec = methods.get(m.name)!;
  const ways: (() => unknown)[] = [() => [...params, ...Array.from({ length: 1 + g.int(3) }, () => g.valid({}))].concat(params.length < m.params.length ? m.params.slice(params.length).map((p) => g.valid(p.schema)) : [])];
  if (m.params.length > 0) {
    ways.push(() => {
      const i = g.int(m.params.length);
      const out = m.params.map((p, k) => (k < params.length ? params[k] : g.valid(p.schema)));
      out[i] = g.invalid(m.params[i]!.schema);
      return out;
    });
    ways.push(() => {
      const i = g.int(m.params.length);
      const out = [...params];
      out[i] = g.invalid(m.params[i]!.schema);
      return out.map((v) => (v === undefined ? null : v));
    });
  }
  if (spec.required > 0) ways.push(() => params.slice(0, g.int(spec.required)));
  ways.push(() => g.pick([{ unknownName: 1 }, 'params', 7, true, { [m.params[0]?.name ?? 'x']: g.invalid(m.params[0]?.schema ?? {}) }]));
  return g.pick(ways)();
}

/** What the dispatcher will make of `params` (src/rpc/dispatch.ts checkParams and byName). */
function paramsVerdict(spec: NonNullable<ReturnType<typeof methods.get>>, params: unknown): 'valid' | 'invalid' | 'envelope' {
  let args: unknown[];
  if (params === undefined || params === null) args = [];
  else if (Array.isArray(params)) args = params;
  else if (typeof params === 'object') {
    const keys = Object.keys(params as object);
    if (keys.some((k) => !spec.params.includes(k))) return 'invalid';
    args = spec.params.map((name) => (Object.hasOwn(params as object, name) ? (params as Record<string, unknown>)[name] : undefined));
    while (args.length > 0 && args.at(-1) === undefined) args.pop();
  } else return 'envelope';
  if (args.length > spec.params.length || args.length < spec.required) return 'invalid';
  for (let i = 0; i < args.length; i++) {
    const v = args[i];
    if (v === undefined) {
      if (i < spec.required) return 'invalid';
      continue;
    }
    if (runValidator(spec.validateParams[i]!, v)) continue;
    if (v === null && i >= spec.required) continue;
    return 'invalid';
  }
  return 'valid';
}

/** A transaction the chain takes: the test key's next nonce, a random recipient, value and data. */
async function freshRawTransaction(g: SchemaValues, { url, signer: w, chainId, contract }: FuzzState): Promise<string> {
  const nonce = Number(await rpcCall(url, 'eth_getTransactionCount', [w.address, 'pending']));
  const to = g.pick([contract, testAddress(1), null]);
  const fees = g.chance(0.5) ? { type: 0, gasPrice: 0 } : { type: 2, maxFeePerGas: 0, maxPriorityFeePerGas: 0 };
  return w.signTransaction(Transaction.from({ nonce, gasLimit: 300000, chainId, ...fees, to, value: BigInt(g.int(1000)), data: to === null ? INIT : '0x' + g.int(2 ** 31).toString(16).padStart(64, '0') }));
}

/** A request that is not a valid JSON-RPC request object (or not JSON at all). */
function brokenEnvelope(g: SchemaValues, id: number | string): string {
  return g.pick([
    () => 'not json',
    () => '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"',
    () => '[]',
    () => '[1, "two", null]',
    () => JSON.stringify({ jsonrpc: '1.0', id, method: 'eth_chainId', params: [] }),
    () => JSON.stringify({ jsonrpc: '2.0', id: { nested: id }, method: 'eth_chainId', params: [] }),
    () => JSON.stringify({ jsonrpc: '2.0', id, method: 42, params: [] }),
    () => JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_' + 'x'.repeat(g.int(500)), params: [] }),
    () => JSON.stringify({ jsonrpc: '2.0', id, method: '__proto__', params: [] }),
    () => JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_getBalance', params: 'latest' }),
    () => '['.repeat(5000) + ']'.repeat(5000),
    () => JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_call', params: [JSON.parse('['.repeat(3000) + ']'.repeat(3000)), 'latest'] }),
  ])();
}

/** Checks one answer (a batch's: one per request, matched by id) against the invariants. */
function checkAnswer(text: string, batch: Prepared[], isBatch: boolean, report: FuzzReport, violation: (v: Violation) => void, dictionary: Dictionary): void {
  const request = () => clip(isBatch ? JSON.stringify(batch.map((b) => b.body)) : typeof batch[0]!.body === 'string' ? (batch[0]!.body as string) : JSON.stringify(batch[0]!.body));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    violation({ kind: 'answer is not JSON', detail: '', request: request(), answer: clip(text) });
    return;
  }
  if (isBatch && batch.some((b) => b.verdict === 'envelope')) {
    // a broken entry inside a batch: only the shape of the whole answer is checked
    if (!Array.isArray(parsed) && !isErrorObject(parsed)) violation({ kind: 'malformed batch answer', detail: '', request: request(), answer: clip(text) });
    for (const a of Array.isArray(parsed) ? parsed : []) envelopeProblem(a, undefined, report, violation, request, text);
    return;
  }
  if (!isBatch) {
    checkOne(parsed, batch[0]!, report, violation, request, text, dictionary);
    return;
  }
  if (!Array.isArray(parsed) || parsed.length !== batch.length) {
    violation({ kind: 'malformed batch answer', detail: `want ${batch.length} answers`, request: request(), answer: clip(text) });
    return;
  }
  const byId = new Map(parsed.map((a) => [JSON.stringify((a as { id?: unknown })?.id), a]));
  for (const b of batch) {
    const a = byId.get(JSON.stringify(b.id));
    // a problem is shown with the entry it concerns
    if (a === undefined) violation({ kind: 'batch answer lacks an id', detail: String(b.id), request: request(), answer: clip(text) });
    else checkOne(a, b, report, violation, () => `(in a batch) ${clip(JSON.stringify(b.body))}`, JSON.stringify(a), dictionary);
  }
}

function checkOne(a: any, b: Prepared, report: FuzzReport, violation: (v: Violation) => void, request: () => string, text: string, dictionary: Dictionary): void {
  if (b.verdict === 'envelope') {
    if (Array.isArray(a)) for (const x of a) envelopeProblem(x, undefined, report, violation, request, text);
    else envelopeProblem(a, undefined, report, violation, request, text);
    return;
  }
  if (!envelopeProblem(a, b.id, report, violation, request, text)) return;
  const say = (kind: string, detail: string) => violation({ kind: `${b.method}: ${kind}`, detail, request: request(), answer: clip(text) });
  if ('error' in a) {
    const { code, message } = a.error;
    if (b.verdict === 'invalid' && code !== -32602) say('params the schema refuses got another error than -32602', `${code} ${message}`);
    else if (b.verdict === 'invalid' && !/argument|params/.test(message)) say('an invalid-params error that names no argument', message);
    return;
  }
  report.results++;
  answered.add(b.method);
  if (b.verdict === 'invalid') say('params the schema refuses were accepted', '');
  const spec = methods.get(b.method)!;
  if (!runValidator(spec.validateResult, a.result)) {
    const { path, message } = explainFailure(spec.validateResult, patternLabels);
    say('result fails its schema', `${path} ${message}`);
  }
  // what the node hands out is drawn from next
  if (/_new(Block|PendingTransaction)?Filter$|_subscribe$/.test(b.method) && typeof a.result === 'string') dictionary.get('FilterId')!.push(a.result);
  if (/_send(Raw)?Transaction$/.test(b.method) && typeof a.result === 'string') dictionary.get('Hash32')!.push(a.result);
}

/** Whether `a` is a well-formed answer to the request with `id` (undefined: any id); a violation when not. */
function envelopeProblem(a: any, id: number | string | undefined, report: FuzzReport, violation: (v: Violation) => void, request: () => string, text: string): boolean {
  const say = (detail: string) => {
    violation({ kind: 'malformed answer', detail, request: request(), answer: clip(text) });
    return false;
  };
  if (typeof a !== 'object' || a === null || a.jsonrpc !== '2.0') return say('not a JSON-RPC 2.0 object');
  if (id !== undefined && a.id !== id) return say(`id ${JSON.stringify(a.id)}, the request's is ${JSON.stringify(id)}`);
  if (('result' in a) === ('error' in a)) return say('needs exactly one of result and error');
  if ('error' in a) {
    if (!Number.isInteger(a.error?.code) || typeof a.error.message !== 'string' || a.error.message === '') return say('error needs an integer code and a message');
    report.errors.set(a.error.code, (report.errors.get(a.error.code) ?? 0) + 1);
    if (a.error.code === -32603) violation({ kind: 'internal error', detail: a.error.message, request: request(), answer: clip(text) });
  }
  return true;
}

function isErrorObject(a: any): boolean {
  return typeof a === 'object' && a !== null && a.jsonrpc === '2.0' && typeof a.error?.code === 'number';
}

/** What the node holds that a refused request must not change. */
async function stateDigest(url: string): Promise<string> {
  const [head, pool, accounts, wallets] = await Promise.all([
    rpcCall(url, 'eth_getBlockByNumber', ['latest', false]),
    rpcCall(url, 'txpool_content'),
    rpcCall(url, 'eth_accounts'),
    rpcCall(url, 'personal_listWallets'),
  ]);
  return JSON.stringify({ number: head.number, hash: head.hash, stateRoot: head.stateRoot, pool, accounts, wallets });
}

/** The digest once no transaction is pending and the head has stood still for a moment (at most 10 s). */
async function settledDigest(url: string): Promise<string> {
  let last = '';
  for (const end = Date.now() + 10_000; Date.now() < end; ) {
    const [digest, status] = await Promise.all([stateDigest(url), rpcCall(url, 'txpool_status')]);
    if (digest === last && status.pending === '0x0') break;
    last = digest;
    await new Promise((r) => setTimeout(r, 100));
  }
  return last;
}

/** Lines of the node's log that user input must never cause: stack frames and ERROR lines. */
function logProblems(log: string): string[] {
  const frame = /(\\n|^)\s+at \S.*:\d+:\d+\)?/;
  const lines = log.split('\n');
  const out: string[] = [];
  let last = -1; // the line the latest problem was reported at
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/ ERROR |"level":(50|60)/.test(line)) {
      out.push(clip(line, 800));
      last = i;
    } else if (frame.test(line) && !frame.test(lines[i - 1] ?? '')) {
      // a stack's first frame, with the line it follows (once: an ERROR line's own is appended)
      if (last === i - 1) out[out.length - 1] += '\n' + clip(line, 300);
      else out.push(clip(`${lines[i - 1] ?? ''}\n${line}`, 800));
    }
  }
  return out;
}

async function postHttp(url: string, text: string, boundMs: number): Promise<Answer> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text, signal: AbortSignal.timeout(boundMs) });
    return { text: await res.text(), ms: performance.now() - t0 };
  } catch (e) {
    return { failed: `HTTP: ${(e as Error).message}`, ms: performance.now() - t0 };
  }
}

/**
 * One WebSocket connection that sends any text (a batch, a broken envelope) and takes the next
 * answer that is not a subscription notification as its reply: one request in flight at a time.
 * (test/helpers/ws-rpc.ts sends only single well-formed calls.)
 */
class WsClient {
  private waiting: ((text: string) => void) | undefined;
  private closed: string | undefined;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const text = data.toString();
      if (isNotification(text)) return;
      const w = this.waiting;
      this.waiting = undefined;
      w?.(text);
    });
    ws.on('close', (code, reason) => {
      this.closed = `the node closed the WebSocket (${code} ${reason})`;
      this.waiting?.('');
    });
  }

  static open(url: string): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { maxPayload: 256 * 2 ** 20 });
      ws.once('open', () => resolve(new WsClient(ws)));
      ws.once('error', reject);
    });
  }

  /** Every body sent has a request with an id: each gets an answer (a body of notifications only would not). */
  async send(text: string, boundMs: number): Promise<Answer> {
    const t0 = performance.now();
    if (this.closed) return { failed: this.closed, ms: 0 };
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        resolve({ failed: `WebSocket: no answer within ${boundMs} ms`, ms: performance.now() - t0 });
      }, boundMs);
      this.waiting = (answer) => {
        clearTimeout(timer);
        resolve(this.closed ? { failed: this.closed, ms: performance.now() - t0 } : { text: answer, ms: performance.now() - t0 });
      };
      this.ws.send(text);
    });
  }

  close(): void {
    this.ws.close();
  }
}

/** A subscription's push (eth_subscription / chain_subscription): no id, a method. */
function isNotification(text: string): boolean {
  if (!text.startsWith('{') || !text.includes('_subscription"')) return false;
  try {
    const msg = JSON.parse(text) as { id?: unknown; method?: unknown };
    return msg.id === undefined && typeof msg.method === 'string';
  } catch {
    return false;
  }
}

/** Resident memory in bytes: all of it, and the anonymous part (heap, stacks, buffers: not mapped files). */
interface Memory {
  rss: number;
  anon: number;
}

const NO_MEMORY: Memory = { rss: 0, anon: 0 };

/** The child's memory from Linux /proc; zeros where it cannot be read. */
function memoryOf(node: NodeProcess): Memory {
  try {
    const status = readFileSync(`/proc/${node.child.pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), anon: kb('RssAnon') };
  } catch {
    return NO_MEMORY;
  }
}

function memoryText(m: Memory): string {
  return `RSS ${mib(m.rss)} MiB (anonymous ${mib(m.anon)})`;
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(0);
}

function clip(s: string, max = 400): string {
  return s.length > max ? s.slice(0, max) + `… (${s.length} chars)` : s;
}

/** The report in a few lines (the test's failure message, the long run's summary). */
export function formatReport(r: FuzzReport): string {
  const codes = [...r.errors].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c}×${n}`).join(' ');
  const lines = [
    `seed ${r.seed}: ${r.requests} requests in ${r.rounds} round(s), ${(r.durationMs / 1000).toFixed(1)} s — ${r.methods} methods; HTTP ${r.http}, WebSocket ${r.ws}; ${r.inBatches} in batches`,
    `params valid ${r.valid}, refused by the schema ${r.invalid}; results ${r.results}; errors ${codes}`,
    `never a result: ${r.neverAResult.join(', ') || 'none'}`,
    `slowest answer ${r.slowestMs} ms (${r.slowest}); refused-only phases with state compared: ${r.stateChecks}`,
    `node ${memoryText(r.memory.start)} at start, ${memoryText(r.memory.afterFirstRound)} after round 1, ${memoryText(r.memory.end)} at the end; peak anonymous ${mib(r.memory.peak.anon)} MiB`,
    `violations: ${r.violationCount}`,
  ];
  for (const v of r.violations) lines.push(`  - ${v.kind}: ${v.detail}${v.request ? `\n      request: ${v.request}` : ''}${v.answer ? `\n      answer:  ${v.answer}` : ''}`);
  return lines.join('\n');
}
