// Side effect only; the CLI imports it before anything else. @ethereumjs (and libp2p) create a
// `debug` logger per object — every trie, journal and state cache — and `debug` calls
// tty.isatty(stderr) for each one unless DEBUG_COLORS is set: a syscall per object made, 0.2–0.5 ms
// of every sealed block here (--cpu-prof of the WebSocket fan-out bench). Deciding it once, the
// same way `debug` would (colors when stderr is a terminal), removes those calls; DEBUG=… output
// is unchanged.
import { isatty } from 'node:tty';

process.env.DEBUG_COLORS ??= isatty(2) ? 'true' : 'false';
