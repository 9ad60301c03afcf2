// HTTP transport: one POST per request or batch, with fetch. A JSON-RPC error sent with a non-200
// status (413 body too large, 415, 403 origin) is still returned as the response it is.
import { TransportError } from './errors.ts';
import { parseJson, stringifyJson } from './json.ts';
import type { CallOptions, JsonRpcRequest, JsonRpcResponse, Transport } from './transport.ts';

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
    async send(message: JsonRpcRequest | readonly JsonRpcRequest[], call: CallOptions = {}): Promise<any> {
      const ms = call.timeoutMs ?? timeoutMs;
      const timeout = AbortSignal.timeout(ms);
      const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
      let status: number;
      let text: string;
      try {
        const res = await fetch(url, { method: 'POST', headers, body: stringifyJson(message), signal });
        text = await res.text();
        status = res.status;
      } catch (e) {
        // the caller's abort is theirs to recognise (its reason, as fetch gives it); a timeout is ours
        if (call.signal?.aborted) throw call.signal.reason;
        if (timeout.aborted) throw new TransportError(`POST ${url}: no answer within ${ms} ms`, { cause: e });
        throw new TransportError(`POST ${url} failed: ${(e as Error).message}`, { cause: e });
      }
      let body: unknown;
      try {
        body = parseJson(text);
      } catch {
        throw new TransportError(`POST ${url}: HTTP ${status} without a JSON-RPC body: ${text.slice(0, 200)}`);
      }
      return body as JsonRpcResponse | JsonRpcResponse[];
    },
    async close() {
      // HTTP holds no connection of its own (fetch pools keep-alive sockets).
    },
  };
}
