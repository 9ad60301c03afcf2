// Loads uWebSockets.js (@trufflesuite/uws-js-unofficial 20.30, the build ganache shipped) lazily and
// never throws: a platform or Node version without a binary, or a binary the system cannot load,
// is a reason string, and the server falls back to node:http + ws (server.ts).
//
// The binary is required by its path rather than through the package's entry point: that entry
// point catches a failed load itself, prints a warning and substitutes a slow JavaScript emulation
// over `ws` — we have our own fallback and want to know. Only Node ABIs 93, 108 and 115 (Node 16,
// 18, 20) have binaries. The package stays external to the esbuild bundle (scripts/build.mjs).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Uws from '@trufflesuite/uws-js-unofficial';

/** What the typings of 20.30 leave out but the binary has. */
export interface UwsApp extends Omit<Uws.TemplatedApp, 'listen'> {
  /** listen(host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, cb): without the option Linux shares the port (SO_REUSEPORT). */
  listen(host: string, port: number, options: number, cb: (listenSocket: Uws.us_listen_socket | false) => void): UwsApp;
  /** Closes every socket of the app, listening and connected. */
  close(): void;
}

export interface UwsModule {
  App(): UwsApp;
  us_listen_socket_close(listenSocket: Uws.us_listen_socket): void;
  us_socket_local_port(socket: Uws.us_listen_socket): number;
  readonly DISABLED: number;
  readonly LIBUS_LISTEN_EXCLUSIVE_PORT: number;
}

export type { HttpRequest, HttpResponse, WebSocket as UwsWebSocket, us_listen_socket } from '@trufflesuite/uws-js-unofficial';

export type UwsLoad = { readonly uws: UwsModule } | { readonly reason: string };

const PACKAGE = '@trufflesuite/uws-js-unofficial';
let loaded: UwsLoad | undefined;

/** The binary this process would load, or why there is none. */
function binaryPath(): string | { reason: string } {
  const req = createRequire(import.meta.url);
  let dir: string;
  try {
    dir = dirname(req.resolve(`${PACKAGE}/package.json`));
  } catch {
    return { reason: `${PACKAGE} is not installed` };
  }
  const file = join(dir, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
  if (!existsSync(file)) {
    return { reason: `${PACKAGE} has no binary for ${process.platform}-${process.arch} on Node ${process.version} (ABI ${process.versions.modules}; it has 93, 108, 115)` };
  }
  return file;
}

/** uWebSockets.js, or why it does not load here; `binary` (tests) loads that file instead. The result is kept. */
export function loadUws(binary?: string): UwsLoad {
  if (binary === undefined && loaded) return loaded;
  const file = binary ?? binaryPath();
  let result: UwsLoad;
  if (typeof file !== 'string') result = file;
  else {
    try {
      const uws = createRequire(import.meta.url)(file) as UwsModule;
      result = typeof uws.App === 'function' ? { uws } : { reason: `${file} is not a uWebSockets.js binary` };
    } catch (e) {
      // e.g. "GLIBC_2.38 not found" (newer builds need a newer glibc than Debian 12's 2.36)
      result = { reason: `${PACKAGE} does not load: ${(e as Error).message.split('\n')[0]}` };
    }
  }
  if (binary === undefined) loaded = result;
  return result;
}
