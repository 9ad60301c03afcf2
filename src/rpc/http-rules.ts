// The HTTP rules both transports apply (node:http in http.ts, uWebSockets.js in uws-server.ts):
// which requests are served, which are refused and with what JSON-RPC error body, and how a POST
// body becomes a response. Transports only read the request and write the answer.
//
// Everything that is not a well-formed POST gets a JSON-RPC error body with a fitting status, never
// an HTML page and never a dropped socket; a malformed JSON body is a -32700 with status 200, like
// geth.
import { readFileSync } from 'node:fs';
import { INTERNAL_ERROR, INVALID_REQUEST } from '../codec/jsonrpc-errors.ts';
import type { OriginPolicy } from './origin.ts';
import type { VirtualHosts } from './vhosts.ts';
import { NULL_ID, errorResponse } from './response.ts';
import type { ConnectionContext, Logger, RpcHandler, RpcReply } from './types.ts';

/** A fixed GET page (e.g. the generated docs page). */
export interface StaticRoute {
  readonly contentType: string;
  readonly body: string | Uint8Array;
  /** The file the body is read from (fileRoute), so that a serving thread can read it too. */
  readonly file?: string;
}

/**
 * A page read from `path` on its first request (and kept), so that a start-up never pays for a
 * page it does not serve. A file gone or unreadable since is a short HTML note, never a throw.
 */
export function fileRoute(contentType: string, path: string): StaticRoute {
  let body: Uint8Array | undefined;
  return {
    contentType,
    file: path,
    get body() {
      try {
        return (body ??= readFileSync(path));
      } catch (e) {
        // try again next time
        return `<!doctype html><p>page unavailable: ${(e as Error).message.replace(/[<&]/g, '')}</p>`;
      }
    },
  };
}

/** A complete response for the transport to write. */
export interface HttpAnswer {
  readonly status: number;
  /** Absent: no body (204). */
  readonly body?: string | Uint8Array;
  /** Content-Type of the body (JSON unless a static page). */
  readonly contentType?: string;
  /** Access-Control-Allow-Origin value; '' for none. */
  readonly cors: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** HEAD: announce the body's length, send no body. */
  readonly headOnly?: boolean;
}

/** Reads one request header by its lower-case name; undefined when absent. */
export type HeaderOf = (name: string) => string | undefined;

export const JSON_TYPE = 'application/json';

/**
 * An HTTP request's context (HTTP has no push and no connection lifetime). The client's address is
 * read when something asks for it (the filter quotas), not up front: uWS makes it as an ArrayBuffer
 * per read, which cost every request ~6 µs of server CPU (eth_blockNumber 16 → 24 µs under wrk).
 */
export function httpContext(readAddress: () => string): ConnectionContext {
  return new HttpContext(readAddress);
}

class HttpContext implements ConnectionContext {
  readonly transport = 'http';
  private address: string | undefined;

  constructor(private readonly readAddress: () => string) {}

  get remoteAddress(): string {
    return (this.address ??= this.readAddress());
  }
}

// Media types a JSON body arrives under. Missing, text/plain and form-encoded are accepted too:
// curl -d sends form-encoded, simple fetch() calls send text/plain. (See origin.ts for why that
// is safe.) Anything else — multipart/form-data, image/png — is clearly not a JSON-RPC body.
const ACCEPTED_TYPES = new Set([
  'application/json',
  'application/json-rpc',
  'application/jsonrequest',
  'text/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  '*/*',
]);

export function contentTypeAccepted(header: string | undefined): boolean {
  if (header === undefined) return true;
  if (header === 'application/json') return true; // the fast path
  const semi = header.indexOf(';');
  const type = (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
  return type === '' || ACCEPTED_TYPES.has(type) || type.endsWith('+json');
}

export interface HttpRulesOptions {
  readonly dispatcher: RpcHandler;
  readonly origins: OriginPolicy;
  readonly vhosts: VirtualHosts;
  readonly maxBodyBytes: number;
  readonly staticRoutes: ReadonlyMap<string, StaticRoute> | undefined;
  readonly log: Logger;
}

export class HttpRules {
  readonly maxBodyBytes: number;
  /** The Allow header: what this server answers. */
  private readonly allow: string;
  private readonly tooLargeBody: string;

  constructor(private readonly o: HttpRulesOptions) {
    this.maxBodyBytes = o.maxBodyBytes;
    this.allow = o.staticRoutes && o.staticRoutes.size > 0 ? 'POST, GET, HEAD, OPTIONS' : 'POST, OPTIONS';
    this.tooLargeBody = errorResponse(NULL_ID, INVALID_REQUEST, `request body too large (limit ${o.maxBodyBytes} bytes)`);
  }

  /**
   * Decides a request from its head. A string is the CORS value of a POST to serve: read the body
   * (at most maxBodyBytes, else answer tooLarge) and pass it to dispatch(). Anything else is the
   * complete answer.
   */
  route(method: string, url: string, header: HeaderOf): string | HttpAnswer {
    const host = header('host');
    if (!this.o.vhosts.allows(host)) return this.hostRefused(host!);
    const origin = header('origin');
    const cors = origin === undefined ? '' : this.o.origins.decide(origin, host);
    if (cors === false) {
      return this.fail(403, `invalid request: origin ${JSON.stringify(origin!.slice(0, 200))} is not allowed (--http.corsdomain)`, '');
    }
    if (method === 'POST') {
      const type = header('content-type');
      if (!contentTypeAccepted(type)) {
        return this.fail(415, `invalid request: unsupported content type ${JSON.stringify(type!.slice(0, 100))}, send application/json`, cors);
      }
      // Refuse before reading when the client says up front that the body is too big.
      const declared = header('content-length');
      if (declared !== undefined && Number(declared) > this.o.maxBodyBytes) return this.tooLarge(cors);
      return cors;
    }
    if (method === 'OPTIONS') {
      // CORS preflight: only an allowed cross-origin request gets the Access-Control-* answer.
      const headers: Record<string, string> = { Allow: this.allow };
      if (cors !== '') {
        headers['Access-Control-Allow-Methods'] = this.allow;
        headers['Access-Control-Allow-Headers'] = (header('access-control-request-headers') ?? 'Content-Type').slice(0, 1000);
        headers['Access-Control-Max-Age'] = '600';
      }
      return { status: 204, cors, headers };
    }
    if ((method === 'GET' || method === 'HEAD') && this.o.staticRoutes) {
      const q = url.indexOf('?');
      const route = this.o.staticRoutes.get(q < 0 ? url : url.slice(0, q));
      if (route) return { status: 200, body: route.body, contentType: route.contentType, cors: '', headOnly: method === 'HEAD' };
    }
    return this.fail(405, `invalid request: HTTP method ${method.slice(0, 20)} is not supported, send JSON-RPC requests with POST`, cors, { Allow: this.allow });
  }

  /** 413: the body is over maxBodyBytes (declared up front, or counted while it streams in). */
  tooLarge(cors: string): HttpAnswer {
    return { status: 413, body: this.tooLargeBody, contentType: JSON_TYPE, cors };
  }

  /**
   * The response to a POST body: at once when it is ready at once (a kept answer), else a promise.
   * Reads `body` before returning (a transport may reuse its memory afterwards); never rejects.
   * `readAddress` gives the client's IP (per-client quotas), read only if asked for.
   */
  dispatch(body: Buffer, cors: string, readAddress: () => string): HttpAnswer | Promise<HttpAnswer> {
    let text = body.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a UTF-8 BOM some editors write
    const { dispatcher } = this.o;
    const ctx = httpContext(readAddress);
    const reply = dispatcher.handleNow ? dispatcher.handleNow(text, ctx) : dispatcher.handle(text, ctx);
    if (typeof reply === 'string') return this.replied(reply, cors);
    return reply.then(
      (r): HttpAnswer => this.replied(r, cors),
      (e: unknown): HttpAnswer => {
        // handle() never rejects by contract; if it does anyway, the client still gets JSON.
        this.o.log.error(`rpc: dispatcher failed: ${e instanceof Error ? e.stack : String(e)}`);
        return this.internalError(cors);
      },
    );
  }

  /** A JSON-RPC response as HTTP: 200 with it, or 204 when there is none (notifications only). */
  private replied(reply: RpcReply | undefined, cors: string): HttpAnswer {
    return reply === undefined ? { status: 204, cors } : { status: 200, body: reply, contentType: JSON_TYPE, cors };
  }

  /** 408: a body still arriving `ms` after its first part (the connection is closed after it). */
  bodyTimedOut(cors: string, ms: number): HttpAnswer {
    return this.fail(408, `invalid request: request body not complete within ${ms / 1000} s (--http.readtimeout)`, cors);
  }

  /** 400: more than one Content-Length header (the connection is closed after it: where the body ends is unknown). */
  duplicateContentLength(cors: string): HttpAnswer {
    return this.fail(400, 'invalid request: more than one Content-Length header', cors);
  }

  /** 500, for what should never happen (logged by the caller). */
  internalError(cors: string): HttpAnswer {
    return { status: 500, body: errorResponse(NULL_ID, INTERNAL_ERROR, 'internal error'), contentType: JSON_TYPE, cors };
  }

  /** A WebSocket handshake this server refuses (403 foreign host or origin, 503 shutting down), or undefined. */
  upgradeRefusal(closing: boolean, origin: string | undefined, host: string | undefined): HttpAnswer | undefined {
    if (closing) return this.fail(503, 'invalid request: server shutting down', '');
    if (!this.o.vhosts.allows(host)) return this.hostRefused(host!);
    if (origin !== undefined && this.o.origins.decide(origin, host) === false) return this.fail(403, 'invalid request: origin not allowed (--http.corsdomain)', '');
    return undefined;
  }

  /** 403 for a Host name not in --http.vhosts (geth's words first). */
  private hostRefused(host: string): HttpAnswer {
    return this.fail(403, `invalid host specified: ${JSON.stringify(host.slice(0, 200))} is not allowed (--http.vhosts)`, '');
  }

  /** 503: a WebSocket handshake while the connections are over --http.maxconns. */
  tooManyConnections(): HttpAnswer {
    return this.fail(503, 'invalid request: too many open connections (--http.maxconns), try again later', '');
  }

  /** An Upgrade header that is not a WebSocket handshake. */
  notWebSocket(): HttpAnswer {
    return this.fail(400, 'invalid request: Upgrade is only supported for WebSocket handshakes', '');
  }

  private fail(status: number, message: string, cors: string, headers?: Record<string, string>): HttpAnswer {
    return { status, body: errorResponse(NULL_ID, INVALID_REQUEST, message), contentType: JSON_TYPE, cors, headers };
  }
}

/** The answer as raw HTTP/1.1 text, for writing on a socket no HTTP library owns any more. */
export function rawAnswer(a: HttpAnswer, statusText: string): string {
  const body = typeof a.body === 'string' ? a.body : '';
  return (
    `HTTP/1.1 ${a.status} ${statusText}\r\nContent-Type: ${a.contentType ?? JSON_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
