// Leveled logging to stderr (stdout carries only the start line). Verbosity follows geth:
// 0 silent, 1 error, 2 warn, 3 info (default), 4 debug.
export interface Logger {
  error(msg: string): void;
  warn(msg: string): void;
  info(msg: string): void;
  debug(msg: string): void;
}

export function createLogger(verbosity: number, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const at = (level: number, tag: string) => (msg: string) => {
    if (verbosity >= level) write(`${new Date().toISOString()} ${tag} ${msg}\n`);
  };
  return { error: at(1, 'ERROR'), warn: at(2, 'WARN '), info: at(3, 'INFO '), debug: at(4, 'DEBUG') };
}
