// The node's one logger, on pino, to stderr (stdout carries only the start line). Verbosity follows
// geth: 0 silent, 1 error, 2 warn, 3 info (default), 4 debug, 5 trace; --log.vmodule sets it per
// module (`p2p=4,consensus=4`). Each module logs through its own child (`log.child('p2p')`, made
// where the module is built), so every line names its module.
//
// Two formats of the same records: JSON lines (pino's own; the default when stderr is not a
// terminal, or --log.format json) for machines, and a readable line on a terminal —
// `12:00:01.234 INFO  p2p: peer connected  peer=16Uiu2…` — formatted here from the record.
import { pino, type Logger as PinoLogger } from 'pino';
import { bytesToHex } from './hex.ts';

/** What explains a line: a block's number and hash, a peer, a round… */
export type LogFields = Record<string, string | number | bigint | boolean | Uint8Array | undefined>;

/** What a module logs through (tests and tools may hand any object of this shape). */
export interface Logger {
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
}

/** The node's logger (createLogger): what builds the modules makes each its child. */
export interface NodeLogger extends Logger {
  /** The logger of one module: its lines carry `module`, its level is --log.vmodule's for it if set (a child's child is a sibling). */
  child(module: string): NodeLogger;
}

export type LogFormat = 'json' | 'text';

export interface LogOptions {
  /** default: text on a terminal (and for a `write` of the caller's), else JSON */
  format?: LogFormat;
  /** module → verbosity, overriding the global one for that module's child */
  vmodule?: Readonly<Record<string, number>>;
}

const LEVELS = ['silent', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export const MAX_VERBOSITY = LEVELS.length - 1;

function level(verbosity: number): (typeof LEVELS)[number] {
  return LEVELS[Math.max(0, Math.min(MAX_VERBOSITY, verbosity))]!;
}

/**
 * `write` receives each line, newline included (tests capture them); by default they go to stderr.
 * A caller's `write` gets text unless `o.format` says json.
 */
export function createLogger(verbosity: number, write?: (line: string) => void, o: LogOptions = {}): NodeLogger {
  const out = write ?? ((l: string) => process.stderr.write(l));
  const format = o.format ?? (write === undefined && !process.stderr.isTTY ? 'json' : 'text');
  const root = pino(
    {
      level: level(verbosity),
      base: undefined, // no pid and hostname on every line
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    { write: format === 'json' ? out : (record: string) => out(textLine(record)) },
  );
  return wrap(root, root, verbosity, o.vmodule ?? {});
}

/** `p` logs the lines; children are made from `root`, so a module's child made from another module's logger names one module. */
function wrap(p: PinoLogger, root: PinoLogger, verbosity: number, vmodule: Readonly<Record<string, number>>): NodeLogger {
  const at = (fn: 'error' | 'warn' | 'info' | 'debug') => (msg: string, fields?: LogFields) => {
    if (fields === undefined) p[fn](msg);
    else p[fn](plain(fields), msg);
  };
  return {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    child(module: string): NodeLogger {
      const v = vmodule[module] ?? verbosity;
      return wrap(root.child({ module }, { level: level(v) }), root, verbosity, vmodule);
    },
  };
}

/** Fields as JSON can write them: bigints as numbers while exact (else digits), bytes as hex. */
function plain(fields: LogFields): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    if (typeof v === 'bigint') out[k] = v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
    else if (v instanceof Uint8Array) out[k] = bytesToHex(v);
    else out[k] = v;
  }
  return out;
}

const RECORD_KEYS = new Set(['level', 'time', 'module', 'msg']);

/**
 * pino's JSON record → `TIME LEVEL module: msg  key=value…`. The module is not repeated when the
 * message already starts with it (most messages were written `rpc: …` before modules had names).
 */
function textLine(record: string): string {
  const r = JSON.parse(record) as Record<string, unknown>;
  const msg = String(r.msg ?? '');
  const module = typeof r.module === 'string' && !msg.startsWith(`${r.module}:`) && !msg.startsWith(`${r.module} `) ? `${r.module}: ` : '';
  let fields = '';
  for (const [k, v] of Object.entries(r)) if (!RECORD_KEYS.has(k)) fields += ` ${k}=${typeof v === 'string' && !/[\s"=]/.test(v) ? v : JSON.stringify(v)}`;
  return `${String(r.time)} ${String(r.level).toUpperCase().padEnd(5)} ${module}${msg}${fields ? ' ' + fields : ''}\n`;
}
