// The process's file descriptors as Linux reports them in /proc: how many are open and how many
// may be. Connections are descriptors, so these bound how many the RPC server can hold before
// accept() fails with EMFILE (where uSockets would spin, S7). Elsewhere both are
// unknown (undefined) and the caller does without.
import { readFileSync, readdirSync, statSync } from 'node:fs';

/** The soft "Max open files" limit (ulimit -n), or undefined where /proc has none or it is unlimited. */
export function openFileLimit(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A counter of open descriptors, and whether it is cheap: since Linux 6.2 stat() of /proc/self/fd
 * gives the count as its size (~25 µs); before, the directory must be listed (~12 ms at 10,000).
 * Undefined where there is no /proc.
 */
export function openFileCounter(): { readonly count: () => number; readonly cheap: boolean } | undefined {
  try {
    if (statSync('/proc/self/fd').size > 0) return { count: () => statSync('/proc/self/fd').size, cheap: true };
    readdirSync('/proc/self/fd');
    return { count: () => readdirSync('/proc/self/fd').length, cheap: false };
  } catch {
    return undefined;
  }
}
