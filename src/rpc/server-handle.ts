// The RpcServer value both transports hand back: URLs from the bound address, close() run once.
import type { RpcServer } from './server.ts';

export function serverHandle(host: string, port: number, transport: RpcServer['transport'], shutDown: () => Promise<void>): RpcServer {
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}/`,
    wsUrl: `ws://${urlHost}:${port}/`,
    port,
    transport,
    threadStats: () => Promise.resolve([]),
    headAnswerHits: () => 0,
    headAnswerHitsByMethod: () => new Map(),
    close() {
      closed ??= shutDown();
      return closed;
    },
  };
}
