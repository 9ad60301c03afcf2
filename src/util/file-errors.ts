// A failed file operation in words for the operator: the path and the reason, no stack (the fix
// is in the file system, not in the code).

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a parent is not a directory',
  EISDIR: 'is a directory',
  ENOENT: 'no such file or directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
};

/** Whether `e` is a file system error the operator can act on (rather than a bug). */
export function isFileError(e: unknown): e is NodeJS.ErrnoException {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && code in REASONS;
}

/** "<path>: <reason> (<code>)"; the path from the error itself when it carries one. */
export function fileErrorMessage(e: unknown, path?: string): string {
  const err = e as NodeJS.ErrnoException;
  const reason = (err.code !== undefined && REASONS[err.code]) || err.message;
  return `${err.path ?? path ?? '?'}: ${reason}${err.code ? ` (${err.code})` : ''}`;
}
