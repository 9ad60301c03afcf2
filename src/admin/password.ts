// Reads a password from the terminal without echoing it (geth's prompt): the operator CLI's
// --keyfile without --password-file.
export function readPassword(prompt: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) return Promise.reject(new Error('--keyfile needs --password-file when stdin is not a terminal'));
  // no echo before the prompt shows: a password typed ahead of it must not appear either
  input.setRawMode(true);
  process.stderr.write(prompt);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (result: () => void) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      result();
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(() => resolve(typed));
        if (ch === '\u0003') return done(() => reject(new Error('interrupted')));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    input.on('data', onData);
  });
}
