// HTTP transport: one POST per request or batch, with fetch. A JSON-RPC error sent with a non-200
// status (413 body too large, 415, 403 origin) is still returned as the response it is.
import { TransportError } from './errors.ts';
import { parseJson, stringifyJson } from './json.ts';
import type { JsonRpcRequest, JsonRpcResponse, Transport } from './transport.ts';

export interface HttpTransportOptions {
  /** Extra request headers (e.g. authorization of a proxy in front of the node). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Abort a request that takes longer (default 30 s). */
  readonly timeoutMs?: number;
}

export function httpTransport(url: string, options: HttpTransportOptions = {}): Transport {
  const headers = { 'content-type': 'application/json', ...options.headers };
  const timeoutMs = options.timeoutMs ?? 30_000;
  return {
    async send(message: JsonRpcRequest | readonly JsonRpcRequest[]): Promise<any> {
      let res: Response;
      try {
        res = await fetch(url, { method: 'POST', headers, body: stringifyJson(message), signal: AbortSignal.timeout(timeoutMs) });
      } catch (e) {
        throw new TransportError(`POST ${url} failed: ${(e as Error).message}`, { cause: e });
      }
      const text = await res.text();
      let body: unknown;
      try {
        body = parseJson(text);
      } catch {
        throw new TransportError(`POST ${url}: HTTP ${res.status} without a JSON-RPC body: ${text.slice(0, 200)}`);
      }
      return body as JsonRpcResponse | JsonRpcResponse[];
    },
    async close() {
      // HTTP holds no connection of its own (fetch pools keep-alive sockets).
    },
  };
}
