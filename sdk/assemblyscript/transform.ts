// The AssemblyScript transform that makes a contract file deployable like a BCWasm contract and
// writes its ABI. Given the entry file's exported functions and `@event` declarations:
//
//  - each exported function is exported through a generated wrapper with the chain's calling
//    convention: a string argument arrives as a pointer to NUL-terminated UTF-8 (converted to an
//    AssemblyScript string), a string result leaves as one; numbers and bool pass as they are;
//  - `@event declare function Name(a: T, …): void` gets a body that logs one event: topic
//    keccak256("Name"), data RLP([a, …]) (BCWasm's event encoding);
//  - `malloc` (what the node copies string arguments through) and an empty `init` are exported
//    when the file does not export them;
//  - no start section: AssemblyScript's start function (top-level initialisers, e.g.
//    `const balances = new Storage<…>(…)`) runs at the top of each export instead, once per
//    instance (its own guard), as the node refuses a module with a start section;
//  - the ABI (Venachain's JSON: functions in source order, then events; not `init` and `malloc`,
//    which no transaction calls) is built from the declarations' types; `@constant` marks a
//    function that only reads. Exported names differing only in case are refused (Venachain
//    matches a call's function name without case).
//
// Types map by name (i32 → int32, u64 → uint64, bool, string, f64 → float64, …); any other type in
// an exported signature is an error naming the function and parameter.
// The compiler's modules are given to the constructor, not imported: compile-process.mjs imports
// them outside tsx's loader, which makes importing them ~10× slower.
import type * as Compiler from 'assemblyscript';
import type { DecoratorNode, FunctionDeclaration, Parser, Source, Statement, TypeNode } from 'assemblyscript';
import type Binaryen from 'assemblyscript/binaryen';
import type { WasmAbiEntry } from '../../src/codec/wasm-abi.ts';

/** AssemblyScript's CommonFlags (a const enum in its declarations). */
const FLAG_EXPORT = 2;
const FLAG_DECLARE = 4;
/** SourceKind.UserEntry */
const USER_ENTRY = 1;

/** The SDK's package name, as contracts import it. */
export const SDK_PACKAGE = '@chain-node/wasm-contract';
/** The export AssemblyScript's start function gets (--exportStart); removed again after compiling. */
export const START_EXPORT = '__contract_start';

/** AssemblyScript type → Venachain ABI type. isize/usize are 32 bits (wasm32). */
const ABI_TYPES: Readonly<Record<string, string>> = {
  i8: 'int8', u8: 'uint8', i16: 'int16', u16: 'uint16',
  i32: 'int32', u32: 'uint32', isize: 'int32', usize: 'uint32',
  i64: 'int64', u64: 'uint64',
  f32: 'float32', f64: 'float64',
  bool: 'bool', string: 'string',
};

export class ContractError extends Error {}

interface ExportedFunction {
  name: string;
  params: { name: string; type: string }[];
  /** AssemblyScript return type name; 'void' for none */
  returns: string;
  constant: boolean;
}

function typeName(as: typeof Compiler, node: TypeNode, where: string): string {
  if (!(node instanceof as.NamedTypeNode) || node.name.next !== null || node.hasTypeArguments || node.isNullable) {
    throw new ContractError(`${where}: only ${Object.keys(ABI_TYPES).join(', ')} (and void for results) cross into a contract call`);
  }
  return node.name.identifier.text;
}

function abiType(asType: string, where: string): string {
  const t = Object.hasOwn(ABI_TYPES, asType) ? ABI_TYPES[asType] : undefined;
  if (t === undefined) throw new ContractError(`${where}: type ${asType} cannot cross into a contract call (use one of ${Object.keys(ABI_TYPES).join(', ')})`);
  return t;
}

function decoratorName(d: DecoratorNode): string {
  return 'text' in d.name && typeof d.name.text === 'string' ? d.name.text : '';
}

/** Takes the decorator `name` off `decl`; whether it had it. */
function takeDecorator(decl: FunctionDeclaration, name: string): boolean {
  const list = decl.decorators;
  if (!list) return false;
  const i = list.findIndex((d) => decoratorName(d) === name);
  if (i < 0) return false;
  list.splice(i, 1);
  if (list.length === 0) decl.decorators = null;
  return true;
}

function signatureOf(as: typeof Compiler, decl: FunctionDeclaration, what: string): ExportedFunction {
  const name = decl.name.text;
  if (decl.typeParameters?.length) throw new ContractError(`${what} ${name}: a generic function cannot be exported`);
  const params = decl.signature.parameters.map((p) => {
    const where = `${what} ${name}, parameter ${p.name.text}`;
    return { name: p.name.text, type: typeName(as, p.type, where) };
  });
  for (const p of params) abiType(p.type, `${what} ${name}, parameter ${p.name}`);
  const returns = typeName(as, decl.signature.returnType, `${what} ${name}, result`);
  if (returns !== 'void') abiType(returns, `${what} ${name}, result`);
  return { name, params, returns, constant: false };
}

/** The wrapper exported under `f.name`: converts strings at the boundary and calls the contract's function. */
function wrapperSource(f: ExportedFunction): string {
  const params = f.params.map((p, i) => `a${i}: ${p.type === 'string' ? 'usize' : p.type}`).join(', ');
  const args = f.params.map((p, i) => (p.type === 'string' ? `__contract_string_in(a${i})` : `a${i}`)).join(', ');
  const call = `${f.name}(${args})`;
  const wrapper = `__contract_export_${f.name}`;
  const body = f.returns === 'void' ? `${call};` : f.returns === 'string' ? `return __contract_string_out(${call});` : `return ${call};`;
  const result = f.returns === 'string' ? 'usize' : f.returns;
  return `function ${wrapper}(${params}): ${result} { ${body} }\nexport { ${wrapper} as ${f.name} };\n`;
}

function eventSource(e: ExportedFunction): string {
  const params = e.params.map((p) => `${p.name}: ${p.type}`).join(', ');
  const adds = e.params.map((p) => `.add<${p.type}>(${p.name})`).join('');
  return `function ${e.name}(${params}): void { __contract_emit(${JSON.stringify(e.name)}, __contract_rlp()${adds}); }\n`;
}

/** The ABI entries of a contract's functions and events (Venachain's JSON shape). */
function abiOf(functions: ExportedFunction[], events: ExportedFunction[]): WasmAbiEntry[] {
  const entry = (f: ExportedFunction, type: 'function' | 'event'): WasmAbiEntry => ({
    name: f.name,
    inputs: f.params.map((p) => ({ name: p.name, type: abiType(p.type, f.name) })),
    outputs: f.returns === 'void' ? [] : [{ name: '', type: abiType(f.returns, f.name) }],
    constant: f.constant ? 'true' : 'false',
    type,
  });
  return [...functions.map((f) => entry(f, 'function')), ...events.map((e) => entry(e, 'event'))];
}

export class ContractTransform {
  /** The contract's ABI, once the entry file has been parsed. */
  abi: WasmAbiEntry[] | undefined;

  constructor(
    private readonly as: typeof Compiler,
    private readonly binaryen: typeof Binaryen,
  ) {}

  afterParse(parser: Parser): void {
    // the runtime (~lib/rt/index-stub) is parsed as an entry too
    const entries = parser.sources.filter((s) => (s.sourceKind as number) === USER_ENTRY && !s.normalizedPath.startsWith('~lib/'));
    if (entries.length !== 1) throw new ContractError(`a contract is one entry file (got ${entries.map((s) => s.normalizedPath).join(', ')})`);
    const source = entries[0]!;
    const wrapped: ExportedFunction[] = [];
    const events: ExportedFunction[] = [];
    const exported = new Set<string>();
    const isFunction = (s: Statement): s is FunctionDeclaration => s instanceof this.as.FunctionDeclaration;
    for (const statement of source.statements) {
      if (!isFunction(statement)) continue;
      if (takeDecorator(statement, 'event')) {
        if (!statement.is(FLAG_DECLARE) || statement.body !== null) throw new ContractError(`@event ${statement.name.text}: declare it without a body (\`@event declare function ${statement.name.text}(…): void\`)`);
        const e = signatureOf(this.as, statement, '@event');
        if (e.returns !== 'void') throw new ContractError(`@event ${e.name}: an event returns void`);
        events.push(e);
        continue;
      }
      const constant = takeDecorator(statement, 'constant');
      if (!statement.is(FLAG_EXPORT)) {
        if (constant) throw new ContractError(`@constant ${statement.name.text}: only an exported function is called from outside`);
        continue;
      }
      const f = signatureOf(this.as, statement, 'exported function');
      f.constant = constant;
      // the wrapper takes the export's name; the function itself stays callable inside the file
      statement.flags &= ~FLAG_EXPORT;
      // Venachain finds a function by its name without case
      const clash = [...exported].find((n) => n.toLowerCase() === f.name.toLowerCase());
      if (clash !== undefined) throw new ContractError(`exported functions ${clash} and ${f.name} differ only in case: Venachain matches names without case`);
      exported.add(f.name);
      if (f.name === 'init' && (f.params.length || f.returns !== 'void')) throw new ContractError('init takes no arguments and returns void (the deploy runs it)');
      wrapped.push(f);
    }
    // not in the ABI: the deploy runs init, the node calls malloc; no transaction can
    const functions = wrapped.filter((f) => f.name !== 'init' && f.name !== 'malloc');
    let text = `import "${SDK_PACKAGE}";\n` + wrapped.map(wrapperSource).join('') + events.map(eventSource).join('');
    if (!exported.has('init')) text += 'export function init(): void {}\n';
    if (!exported.has('malloc')) text += 'export function malloc(size: usize): usize { return __contract_malloc(size); }\n';
    this.abi = abiOf(functions, events);

    const generatedPath = source.normalizedPath.replace(/\.ts$/, '') + '.contract.ts';
    parser.parseFile(text, generatedPath, false);
    const generated = parser.sources.find((s) => s.normalizedPath === generatedPath)!;
    replaceEvents(source, generated, new Set(events.map((e) => e.name)), isFunction);
    // what was generated belongs to the contract's file (its functions, its exports); the import
    // of the SDK stays behind in the generated file, so the SDK's globals are loaded
    const isImport = (s: Statement): boolean => s instanceof this.as.ImportStatement;
    const moved = generated.statements.filter((s) => !isImport(s));
    generated.statements = generated.statements.filter(isImport);
    source.statements.push(...moved);
  }

  /** Runs AssemblyScript's start function at the top of each export and drops its own export. */
  afterCompile(module: Binaryen.Module): void {
    const binaryen = this.binaryen;
    const start = module.getExport(START_EXPORT);
    if (!start) return;
    const startName = binaryen.getExportInfo(start).value;
    module.removeExport(START_EXPORT);
    for (let i = 0, n = module.getNumExports(); i < n; i++) {
      const info = binaryen.getExportInfo(module.getExportByIndex(i));
      if (info.kind !== binaryen.ExternalFunction) continue;
      const fn = module.getFunction(info.value);
      const { body, results } = binaryen.getFunctionInfo(fn);
      setBody(binaryen, fn, module.block(null, [module.call(startName, [], binaryen.none), body], results));
    }
  }
}

/** Each `@event declare function` of the contract's file is replaced by its generated body. */
function replaceEvents(source: Source, generated: Source, events: Set<string>, isFunction: (s: Statement) => s is FunctionDeclaration): void {
  const bodies = new Map<string, FunctionDeclaration>();
  for (const s of generated.statements) if (isFunction(s) && events.has(s.name.text)) bodies.set(s.name.text, s);
  source.statements = source.statements.map((s) => {
    const body = isFunction(s) && s.is(FLAG_DECLARE) ? bodies.get(s.name.text) : undefined;
    if (body === undefined) return s;
    generated.statements = generated.statements.filter((g) => g !== body);
    return body;
  });
}

/** binaryen.js has Function.setBody; its declarations put Function on Module instances instead. */
function setBody(binaryen: typeof Binaryen, fn: Binaryen.FunctionRef, body: Binaryen.ExpressionRef): void {
  (binaryen as unknown as { Function: { setBody(fn: Binaryen.FunctionRef, body: Binaryen.ExpressionRef): void } }).Function.setBody(fn, body);
}
