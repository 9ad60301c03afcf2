// HTTP side of the transport: one POST = one JSON-RPC body (single or batch). Everything that is
// not a well-formed POST gets a JSON-RPC error body with a fitting status, never an HTML page and
// never a dropped socket; a malformed JSON body is a -32700 with status 200, like geth.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { INTERNAL_ERROR, INVALID_REQUEST } from './errors.ts';
import type { OriginDecision, OriginPolicy } from './origin.ts';
import { NULL_ID, errorResponse } from './response.ts';
import type { ConnectionContext, Logger, RpcHandler } from './types.ts';

/** A fixed GET page (e.g. the generated docs page). */
export interface StaticRoute {
  readonly contentType: string;
  readonly body: string | Uint8Array;
}

export interface HttpHandlerOptions {
  readonly dispatcher: RpcHandler;
  readonly origins: OriginPolicy;
  readonly maxBodyBytes: number;
  readonly staticRoutes: ReadonlyMap<string, StaticRoute> | undefined;
  readonly log: Logger;
  /** True once the server is shutting down: responses then close their connection. */
  readonly closing: () => boolean;
}

/** Every HTTP request shares this one context: HTTP has no push and no connection lifetime. */
const HTTP_CONTEXT: ConnectionContext = Object.freeze({ transport: 'http' });

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

function ignoreError(): void {
  // The request stream's errors (client aborted, socket reset) end the request; the 'close'
  // that follows is all we need. Listening here keeps them from becoming uncaught.
}

export function createRequestListener(o: HttpHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { dispatcher, origins, maxBodyBytes, staticRoutes, log, closing } = o;
  const tooLarge = errorResponse(NULL_ID, INVALID_REQUEST, `request body too large (limit ${maxBodyBytes} bytes)`);
  const allow = staticRoutes && staticRoutes.size > 0 ? 'POST, GET, HEAD, OPTIONS' : 'POST, OPTIONS';

  /** Writes a complete JSON response unless the client is already gone. */
  const send = (res: ServerResponse, status: number, body: string | undefined, cors: string, extra?: Record<string, string>): void => {
    if (res.headersSent || res.destroyed) return;
    if (cors !== '') {
      res.setHeader('Access-Control-Allow-Origin', cors);
      if (cors !== '*') res.setHeader('Vary', 'Origin');
    }
    if (extra) for (const k in extra) res.setHeader(k, extra[k]!);
    if (closing()) res.setHeader('Connection', 'close');
    if (body === undefined) {
      res.writeHead(status);
      res.end();
      return;
    }
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };

  const fail = (res: ServerResponse, status: number, message: string, cors: string, extra?: Record<string, string>): void => {
    send(res, status, errorResponse(NULL_ID, INVALID_REQUEST, message), cors, extra);
  };

  const post = (req: IncomingMessage, res: ServerResponse, cors: string): void => {
    const type = req.headers['content-type'];
    if (!contentTypeAccepted(type)) {
      fail(res, 415, `invalid request: unsupported content type ${JSON.stringify(type!.slice(0, 100))}, send application/json`, cors);
      return;
    }
    const declared = req.headers['content-length'];
    // Refuse before reading when the client says up front that the body is too big. The unread
    // rest of the body is drained by node:http, so the client reads our answer, not a reset.
    if (declared !== undefined && Number(declared) > maxBodyBytes) {
      send(res, 413, tooLarge, cors);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (size < 0) return;
      size += chunk.length;
      if (size > maxBodyBytes) {
        size = -1; // chunked body over the limit: answer now, discard the rest
        chunks.length = 0;
        send(res, 413, tooLarge, cors);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (size < 0) return;
      let text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a UTF-8 BOM some editors write
      dispatcher.handle(text, HTTP_CONTEXT).then(
        (reply) => send(res, reply === undefined ? 204 : 200, reply, cors),
        (e: unknown) => {
          // handle() never rejects by contract; if it does anyway, the client still gets JSON.
          log.error(`rpc: dispatcher failed: ${e instanceof Error ? e.stack : String(e)}`);
          send(res, 500, errorResponse(NULL_ID, INTERNAL_ERROR, 'internal error'), cors);
        },
      );
    });
  };

  return (req, res) => {
    req.on('error', ignoreError);
    const cors = decide(origins, req);
    if (cors === false) {
      fail(res, 403, `invalid request: origin ${JSON.stringify(String(req.headers.origin).slice(0, 200))} is not allowed (--http.corsdomain)`, '');
      return;
    }
    const method = req.method;
    if (method === 'POST') return post(req, res, cors);
    if (method === 'OPTIONS') {
      // CORS preflight: only an allowed cross-origin request gets the Access-Control-* answer.
      const extra: Record<string, string> = { Allow: allow };
      if (cors !== '') {
        extra['Access-Control-Allow-Methods'] = allow;
        extra['Access-Control-Allow-Headers'] = String(req.headers['access-control-request-headers'] ?? 'Content-Type').slice(0, 1000);
        extra['Access-Control-Max-Age'] = '600';
      }
      send(res, 204, undefined, cors, extra);
      return;
    }
    if ((method === 'GET' || method === 'HEAD') && staticRoutes) {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const route = staticRoutes.get(q < 0 ? url : url.slice(0, q));
      if (route) {
        if (res.destroyed) return;
        res.writeHead(200, { 'Content-Type': route.contentType, 'Content-Length': Buffer.byteLength(route.body) });
        res.end(method === 'HEAD' ? undefined : route.body);
        return;
      }
    }
    fail(res, 405, `invalid request: HTTP method ${String(method).slice(0, 20)} is not supported, send JSON-RPC requests with POST`, cors, { Allow: allow });
  };
}

function decide(origins: OriginPolicy, req: IncomingMessage): OriginDecision {
  const origin = req.headers.origin;
  return origin === undefined ? '' : origins.decide(origin, req.headers.host);
}

/**
 * node:http's 'clientError' (unparseable request line or headers, header overflow, timeouts):
 * answer with a JSON-RPC error when the socket can still take it, then drop the connection.
 */
export function onClientError(err: Error & { code?: string }, socket: Duplex): void {
  const code = err.code ?? 'ERR';
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (code !== 'ECONNRESET' && code !== 'EPIPE' && socket.writable && !inFlight) {
    const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const what =
      status === 431 ? 'request headers too large' : status === 408 ? 'request timed out' : code === 'HPE_INVALID_EOF_STATE' ? 'incomplete HTTP request' : `malformed HTTP request (${code})`;
    const body = errorResponse(NULL_ID, INVALID_REQUEST, `invalid request: ${what}`);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
