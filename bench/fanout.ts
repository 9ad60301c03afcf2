// WebSocket fan-out: N clients subscribed to newHeads while blocks are being sealed; counts, per
// client, the headers that arrived, so the bench can report blocks per second delivered to every
// client (and any client that missed some).
import WebSocket from 'ws';

export interface Subscribers {
  /** header numbers received so far, per client */
  received(): Set<string>[];
  close(): void;
}

/**
 * Opens `n` connections to `wsUrl` and subscribes each to newHeads. Resolves once every
 * subscription is confirmed; rejects (after closing them all) when the node refuses one or does not
 * answer within `timeoutMs`.
 */
export async function subscribeNewHeads(wsUrl: string, n: number, timeoutMs = 10_000): Promise<Subscribers> {
  const sockets: WebSocket[] = [];
  const seen: Set<string>[] = [];
  const close = () => {
    for (const s of sockets) s.terminate();
  };
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(wsUrl);
      sockets.push(ws);
      seen[i] = new Set();
      ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })));
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: { result: { number: string } } };
        if (m.id === 1) {
          if (m.error || typeof m.result !== 'string') reject(new Error(`eth_subscribe newHeads: ${m.error?.message ?? JSON.stringify(m.result)}`));
          else resolve();
        } else if (m.method === 'eth_subscription' && m.params) seen[i]!.add(m.params.result.number);
      });
      ws.on('error', reject);
    });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.all(Array.from({ length: n }, (_, i) => one(i))),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${n} newHeads subscriptions not confirmed within ${timeoutMs} ms`)), timeoutMs))),
    ]);
  } catch (e) {
    close();
    throw e;
  } finally {
    clearTimeout(timer);
  }
  return { received: () => seen, close };
}

/**
 * Waits (at most `timeoutMs`) until every client has the headers of blocks `from`…`to`; returns
 * when that happened and how many clients still miss some.
 */
export async function awaitDelivery(subs: Subscribers, from: bigint, to: bigint, timeoutMs: number): Promise<{ at: number; incomplete: number }> {
  const want = Array.from({ length: Number(to - from) + 1 }, (_, k) => '0x' + (from + BigInt(k)).toString(16));
  const missing = () => subs.received().filter((s) => want.some((b) => !s.has(b))).length;
  const t0 = performance.now();
  for (;;) {
    const incomplete = missing();
    if (incomplete === 0 || performance.now() - t0 > timeoutMs) return { at: performance.now(), incomplete };
    await new Promise((r) => setTimeout(r, 5));
  }
}
