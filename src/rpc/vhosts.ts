// Which Host names the node answers (--http.vhosts), for HTTP, WebSocket upgrades and the docs page
// alike: geth's virtualHostHandler rule.
//
// The Origin check (origin.ts) cannot stop DNS rebinding: a page on attacker.example whose name
// then resolves to 127.0.0.1 is same-origin with the node as far as the browser knows, and sends
// `Host: attacker.example:PORT` with a matching Origin. Its Host header is the one thing that gives
// it away, so a name that is not listed is refused. Requests without Host (HTTP/1.0 tools) and
// requests that name the node by IP address are served: rebinding needs a DNS name.
import { isIP } from 'node:net';

/** geth's default: names other than localhost must be listed. */
export const DEFAULT_VHOSTS: readonly string[] = ['localhost'];

export class VirtualHosts {
  private readonly any: boolean;
  private readonly names: ReadonlySet<string>;

  constructor(hosts: readonly string[]) {
    this.any = hosts.includes('*');
    this.names = new Set(hosts.map((h) => h.trim().toLowerCase()));
  }

  /** True when a request with this Host header (undefined or empty: none) is served. */
  allows(host: string | undefined): boolean {
    if (!host || this.any) return true;
    const name = hostName(host).toLowerCase();
    return isIP(name) !== 0 || this.names.has(name);
  }
}

/** The name of a Host header without its port: "a.example:80" → "a.example", "[::1]:80" → "::1". */
function hostName(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end < 0 ? host : host.slice(1, end);
  }
  const colon = host.indexOf(':');
  // more than one colon: an IPv6 address without brackets (and so without a port)
  return colon < 0 || host.indexOf(':', colon + 1) >= 0 ? host : host.slice(0, colon);
}
