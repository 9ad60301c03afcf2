// Which browser origins may talk to the node (--http.corsdomain), for HTTP and WebSocket alike.
//
// Requests without an Origin header (curl, scripts, other nodes) are always served. A browser
// request from another origin is served only when that origin is listed: we accept text/plain and
// form-encoded bodies (curl's default), which browsers send cross-origin without a preflight, and
// browsers do not apply CORS to WebSockets at all — so without this check any web page could make
// the node sign with an unlocked account. Same-origin requests (a docs page served by this node)
// are always served.

/** false: refuse; '': serve without CORS headers; otherwise the Access-Control-Allow-Origin value. */
export type OriginDecision = false | string;

export class OriginPolicy {
  private readonly any: boolean;
  private readonly exact = new Set<string>();
  private readonly patterns: RegExp[] = [];

  constructor(domains: readonly string[]) {
    this.any = domains.includes('*');
    for (const d of domains) {
      const norm = d.trim().toLowerCase().replace(/\/+$/, '');
      if (norm === '' || norm === '*') continue;
      if (norm.includes('*')) {
        // "https://*.example.com": one label-or-more wildcard, like geth's (rs/cors) matching.
        const re = norm.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*');
        this.patterns.push(new RegExp(`^${re}$`));
      } else this.exact.add(norm);
    }
  }

  /** True when CORS is configured at all (some origin may get CORS headers). */
  get enabled(): boolean {
    return this.any || this.exact.size > 0 || this.patterns.length > 0;
  }

  decide(origin: string | undefined, host: string | undefined): OriginDecision {
    if (origin === undefined) return '';
    if (this.any) return '*';
    const o = origin.toLowerCase();
    if (this.exact.has(o)) return origin;
    for (const re of this.patterns) if (re.test(o)) return origin;
    if (host !== undefined && sameHost(o, host.toLowerCase())) return '';
    return false;
  }
}

/** "http://127.0.0.1:6791" against the Host header "127.0.0.1:6791". */
function sameHost(origin: string, host: string): boolean {
  const at = origin.indexOf('://');
  return at > 0 && origin.slice(at + 3) === host;
}
