// A mock of the node for front-end work without a chain: @open-rpc/server-js's Router in mock mode
// answers each method from openrpc.json's examples (a call whose params equal an example's gets
// that example's result; any other valid call gets a schema-valid generated value) and checks
// params against the document. server-js is used here, where its gaps do not matter (D1, C4),
// behind a small HTTP front of our own that covers them:
//   - a request without `params` (or `params: null`) crashes server-js's param validator, and with
//     it the process: params are normalised to [] before the Router sees them;
//   - malformed JSON is a JSON-RPC -32700 (server-js answers with an HTML page), a body that is
//     not a request object or a batch of them a -32600;
//   - the front reports the port it got (server-js's listen() cannot), so port 0 works.
// CORS is open (any origin), as server-js's HTTP transport has it: the point is browser apps.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
// Named import: server-js is CommonJS with __esModule set, so it has no usable default export.
import { Router } from '@open-rpc/server-js';
import { dereferenceDocument } from '@open-rpc/schema-utils-js';

type RouterDocument = ConstructorParameters<typeof Router>[0];
const MAX_BODY = 5 * 1024 * 1024;

export interface MockServerOptions {
  /** The OpenRPC document (openrpc.json, parsed). */
  readonly document: unknown;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** 0 picks a free port (default). */
  readonly port?: number;
}

export interface MockServer {
  /** http://host:port/ */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startMockServer(o: MockServerOptions): Promise<MockServer> {
  // server-js checks params against the document's schemas and cannot follow `$ref`s itself.
  const document = await dereferenceDocument(structuredClone(o.document) as Parameters<typeof dereferenceDocument>[0]);
  const router = new Router(document as unknown as RouterDocument, { mockMode: true });
  const server = createServer((req, res) => void serve(router, req, res));
  const host = o.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (o.port ?? 0);
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function serve(router: Router, req: IncomingMessage, res: ServerResponse): Promise<void> {
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (req.method === 'OPTIONS') {
    res.writeHead(204, { 'Access-Control-Allow-Methods': 'POST, OPTIONS', 'Access-Control-Allow-Headers': 'Content-Type' });
    return void res.end();
  }
  if (req.method !== 'POST') return send(res, 405, failure(null, -32600, 'invalid request: send JSON-RPC requests with POST'));
  let text = '';
  req.setEncoding('utf8');
  for await (const chunk of req) {
    text += chunk;
    if (text.length > MAX_BODY) return send(res, 413, failure(null, -32600, 'invalid request: body too large'));
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    return send(res, 200, failure(null, -32700, `parse error: ${(e as Error).message}`));
  }
  if (Array.isArray(body)) {
    if (body.length === 0) return send(res, 200, failure(null, -32600, 'invalid request: empty batch'));
    return send(res, 200, await Promise.all(body.map((r) => one(router, r))));
  }
  send(res, 200, await one(router, body));
}

async function one(router: Router, request: unknown): Promise<object> {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) return failure(null, -32600, 'invalid request: not a JSON-RPC request object');
  const { id = null, method, params } = request as { id?: unknown; method?: unknown; params?: unknown };
  if (typeof method !== 'string') return failure(id, -32600, 'invalid request: method must be a string');
  if (params !== undefined && params !== null && typeof params !== 'object') return failure(id, -32600, 'invalid request: params must be an array or an object');
  // The guard: server-js crashes on a missing params member.
  const answer = router.isMethodImplemented(method)
    ? await router.call(method, params ?? [])
    : Router.methodNotFoundHandler(method);
  return { jsonrpc: '2.0', id, ...answer };
}

function failure(id: unknown, code: number, message: string): object {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function send(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
