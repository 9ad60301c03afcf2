// The contract check: every example of every method of openrpc.json, called on the fixture chain,
// must get a result that its generated result validator accepts — and that has the documented
// shape where a fresh chain can reproduce it (null stays null, a value stays a value, a boolean
// keeps its value, an empty list stays empty). A method passes when at least one example does.
import { methods as methodTable, patternLabels } from '../../generated/methods.ts';
import { resultProblem } from '../../src/rpc/result-check.ts';
import type { JsonRpcResponse } from '../../src/client/transport.ts';
import type { Document, Example, Fixture } from './fixtures.ts';

export type Send = (method: string, params: readonly unknown[]) => Promise<JsonRpcResponse>;

export interface CallOutcome {
  readonly example: string;
  /** Empty when the call passed. */
  readonly problem: string;
}

export interface MethodReport {
  readonly method: string;
  readonly calls: readonly CallOutcome[];
  readonly passed: number;
}

export interface ContractReport {
  readonly methods: readonly MethodReport[];
  /** Methods of the document without a passing call. */
  readonly uncovered: readonly string[];
}

/**
 * Documented results a fresh single-node chain cannot reproduce in shape (method suffix/example →
 * why); their calls are still made and schema-checked.
 */
const SHAPE_EXEMPT: Readonly<Record<string, string>> = {
  'pendingTransactions/one': 'nothing stays pending on a chain that seals as soon as a transaction arrives',
  'peers/onePeer': 'a single node has no peers',
  'listening/listening': 'the fixture node runs no network',
  'addPeer/enode': 'the fixture node runs no network, so it adds no peer',
  'removePeer/enode': 'the fixture node runs no network, so it has no peer to remove',
  'getEquivocations/doubleVote': 'a fixture of honest validators holds no equivocation (test/iris-byzantine.test.ts makes one)',
};

export async function runContract(doc: Document, fixture: Fixture, send: Send, only?: ReadonlySet<string>): Promise<ContractReport> {
  const reports: MethodReport[] = [];
  for (const m of doc.methods) {
    if (only && !only.has(m.name)) continue;
    const calls: CallOutcome[] = [];
    for (const ex of m.examples ?? []) calls.push({ example: ex.name, problem: await callExample(m.name, ex, fixture, send) });
    if (calls.length === 0) calls.push({ example: '(none)', problem: 'the method has no example' });
    reports.push({ method: m.name, calls, passed: calls.filter((c) => c.problem === '').length });
  }
  return { methods: reports, uncovered: reports.filter((r) => r.passed === 0).map((r) => r.method) };
}

async function callExample(method: string, ex: Example, fixture: Fixture, send: Send): Promise<string> {
  const spec = methodTable.get(method);
  if (!spec) return 'not in the generated method table (run npm run codegen)';
  const written = ex.params.map((p) => p.value);
  const unknown = fixture.unknownValues(written);
  if (unknown.length > 0) return `names ${unknown.join(', ')}, which the fixture does not provide (test/contract/fixtures.ts)`;
  let response: JsonRpcResponse;
  try {
    response = await send(method, await fixture.prepare(method, written));
  } catch (e) {
    return `no answer: ${(e as Error).message}`;
  }
  if (response.error) return `error ${response.error.code}: ${response.error.message}`;
  if (!('result' in response)) return 'answer has neither result nor error';
  const problem = resultProblem(spec.validateResult, response.result, patternLabels);
  if (problem) return `result does not match its schema: ${problem}`;
  const key = `${method.slice(method.indexOf('_') + 1)}/${ex.name}`;
  if (ex.result && !(key in SHAPE_EXEMPT)) return shapeProblem(ex.result.value, response.result);
  return '';
}

/** '' when `live` has the documented result's shape as far as a fresh chain reproduces it. */
function shapeProblem(documented: unknown, live: unknown): string {
  const show = (v: unknown) => (JSON.stringify(v) ?? String(v)).slice(0, 80);
  if ((documented === null) !== (live === null)) return `documented ${show(documented)}, got ${show(live)}`;
  if (typeof documented === 'boolean' && documented !== live) return `documented ${documented}, got ${show(live)}`;
  if (Array.isArray(documented) && Array.isArray(live) && (documented.length === 0) !== (live.length === 0)) {
    return `documented ${documented.length === 0 ? 'an empty' : 'a non-empty'} list, got ${show(live)}`;
  }
  return '';
}

/** `method/example: problem` for every call that did not pass (what the suite requires to be empty). */
export function failures(report: ContractReport): string[] {
  return report.methods.flatMap((r) => r.calls.filter((c) => c.problem !== '').map((c) => `${r.method}/${c.example}: ${c.problem}`));
}

/** One line per method: ✓/✗, passing calls, and each failing example with its problem. */
export function formatReport(report: ContractReport): string {
  const width = Math.max(...report.methods.map((r) => r.method.length));
  const lines = report.methods.map((r) => {
    const mark = r.passed > 0 ? '✓' : '✗';
    const failed = r.calls.filter((c) => c.problem !== '').map((c) => `\n      ${c.example}: ${c.problem}`);
    return `  ${mark} ${r.method.padEnd(width)}  ${r.passed}/${r.calls.length} examples pass${failed.join('')}`;
  });
  const covered = report.methods.length - report.uncovered.length;
  lines.push(`  ${covered}/${report.methods.length} methods covered (${((100 * covered) / Math.max(1, report.methods.length)).toFixed(0)}%)`);
  return lines.join('\n');
}
