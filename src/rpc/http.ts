// node:http side of the fallback transport: reads each request, applies the shared rules
// (http-rules.ts) and writes their answer. One POST = one JSON-RPC body (single or batch).
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { INVALID_REQUEST } from '../codec/jsonrpc-errors.ts';
import { rawAnswer, type HttpAnswer, type HttpRules } from './http-rules.ts';
import { NULL_ID, errorResponse } from './response.ts';
import { BodyBuffer } from './body-buffer.ts';

function ignoreError(): void {
  // The request stream's errors (client aborted, socket reset) end the request; the 'close'
  // that follows is all we need. Listening here keeps them from becoming uncaught.
}

/** Writes a complete answer unless the client is already gone. */
function write(res: ServerResponse, a: HttpAnswer, closing: boolean): void {
  if (res.headersSent || res.destroyed) return;
  if (a.cors !== '') {
    res.setHeader('Access-Control-Allow-Origin', a.cors);
    if (a.cors !== '*') res.setHeader('Vary', 'Origin');
  }
  if (a.headers) for (const k in a.headers) res.setHeader(k, a.headers[k]!);
  if (closing) res.setHeader('Connection', 'close');
  if (a.body === undefined) {
    res.writeHead(a.status);
    res.end();
    return;
  }
  res.writeHead(a.status, { 'Content-Type': a.contentType!, 'Content-Length': Buffer.byteLength(a.body) });
  res.end(a.headOnly ? undefined : a.body);
}

export function createRequestListener(rules: HttpRules, closing: () => boolean): (req: IncomingMessage, res: ServerResponse) => void {
  const { maxBodyBytes } = rules;
  return (req, res) => {
    req.on('error', ignoreError);
    const headers = req.headers;
    const decision = rules.route(req.method ?? '', req.url ?? '/', (name) => headers[name] as string | undefined);
    if (typeof decision !== 'string') return write(res, decision, closing());
    const cors = decision;
    // A POST to serve. A body over the limit is answered at once and the rest discarded; node:http
    // drains it, so the client reads our answer, not a reset.
    let body: BodyBuffer | undefined = new BodyBuffer();
    req.on('data', (chunk: Buffer) => {
      if (body === undefined) return;
      if (body.size + chunk.length > maxBodyBytes) {
        body = undefined;
        write(res, rules.tooLarge(cors), closing());
        return;
      }
      body.append(chunk);
    });
    // a partial body is given back as soon as the request ends, however it ends (e.g. requestTimeout)
    req.on('close', () => (body = undefined));
    req.on('end', () => {
      if (body === undefined) return;
      const a = rules.dispatch(body.view(), cors, () => req.socket.remoteAddress ?? '');
      body = undefined;
      if (a instanceof Promise) a.then((answer) => write(res, answer, closing()));
      else write(res, a, closing());
    });
  };
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
      status === 431 ? 'request headers too large' : status === 408 ? 'request timed out' : code === 'HPE_INVALID_EOF_STATE' ? 'incomplete HTTP request' : code === 'HPE_UNEXPECTED_CONTENT_LENGTH' ? 'conflicting Content-Length headers' : `malformed HTTP request (${code})`;
    const body = errorResponse(NULL_ID, INVALID_REQUEST, `invalid request: ${what}`);
    socket.write(rawAnswer({ status, body, cors: '' }, STATUS_CODES[status]!));
  }
  socket.destroy();
}
