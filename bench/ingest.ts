// Ingest workload: pre-signed transfers from many senders sent with eth_sendRawTransaction,
// `inFlight` at a time over keep-alive HTTP, timed until every transaction has a receipt.
import { Agent, request } from 'node:http';
import { makeTxCommon } from '../src/exec/common.ts';
import { signLegacyTx } from '../src/accounts/signing.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

export function signTransfers(keys: Uint8Array[], perSender: number, chainId: bigint): { raw: string; hash: string }[][] {
  const common = makeTxCommon(chainId);
  const to = hexToBytes('0x' + '77'.repeat(20));
  return keys.map((key) =>
    Array.from({ length: perSender }, (_, nonce) => {
      const tx = signLegacyTx({ nonce: BigInt(nonce), gasPrice: 0n, gasLimit: 21000n, to, value: 1n, data: new Uint8Array(0) }, key, common);
      return { raw: bytesToHex(tx.serialize()), hash: bytesToHex(tx.hash()) };
    }),
  );
}

export class RpcClient {
  private readonly agent: Agent;
  private readonly u: URL;
  private id = 0;

  constructor(url: string, sockets: number) {
    this.u = new URL(url);
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets });
  }

  post(body: string): Promise<any> {
    return new Promise((resolve, reject) => {
      const req = request({ host: this.u.hostname, port: this.u.port, method: 'POST', path: '/', agent: this.agent, headers: { 'content-type': 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  async call(method: string, params: unknown[]): Promise<any> {
    const r = await this.post(JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }));
    if (r.error) throw new Error(`${method}: ${r.error.message}`);
    return r.result;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Interleaves senders (nonce order per sender) so every in-flight window mixes senders. */
export async function runIngest(url: string, txs: { raw: string; hash: string }[][], inFlight: number): Promise<{ seconds: number; count: number }> {
  const order: { raw: string; hash: string }[] = [];
  const per = txs[0]!.length;
  for (let n = 0; n < per; n++) for (const s of txs) order.push(s[n]!);
  const client = new RpcClient(url, inFlight);
  const start = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < order.length) {
      const tx = order[next++]!;
      await client.call('eth_sendRawTransaction', [tx.raw]);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  // done when the last transaction of every sender has its receipt (nonce order ⇒ all before it too)
  const lasts = txs.map((s) => s[s.length - 1]!.hash);
  for (;;) {
    const batch = lasts.map((h, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getTransactionReceipt', params: [h] }));
    const res = (await client.post(JSON.stringify(batch))) as { result: unknown }[];
    if (res.every((r) => r.result)) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const seconds = (performance.now() - start) / 1000;
  // outside the timing: every single receipt exists
  for (let i = 0; i < order.length; i += 500) {
    const batch = order.slice(i, i + 500).map((t, j) => ({ jsonrpc: '2.0', id: j, method: 'eth_getTransactionReceipt', params: [t.hash] }));
    const res = (await client.post(JSON.stringify(batch))) as { result: unknown }[];
    if (!res.every((r) => r.result)) throw new Error('ingest finished with missing receipts');
  }
  client.close();
  return { seconds, count: order.length };
}
