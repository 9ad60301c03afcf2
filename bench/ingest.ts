// Ingest workload: pre-signed transfers from many senders sent with eth_sendRawTransaction,
// `inFlight` at a time over keep-alive HTTP, timed until every transaction is mined. Bounded: a node
// that makes no progress for `stallSeconds` is reported "stalled" (anvil's automine freezes under
// concurrent senders, foundry issue #10122), one still going after `budgetSeconds` "partial".
import { Agent, request } from 'node:http';
import { makeTxCommon } from '../src/tx/common.ts';
import { signLegacyTx } from '../src/accounts/signing.ts';
import { addressOf } from '../src/crypto/secp256k1.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import { rssMiB } from './proc.ts';

export interface SignedTx {
  raw: string;
  hash: string;
}

export const TRANSFER_TO = '0x' + '77'.repeat(20);

/** `perSender` transfers of 1 wei from each key, nonces 0…perSender-1, EIP-155 for `chainId`. */
export function signTransfers(keys: Uint8Array[], perSender: number, chainId: bigint, gasPrice: bigint): SignedTx[][] {
  const common = makeTxCommon(chainId);
  const to = hexToBytes(TRANSFER_TO);
  return keys.map((key) =>
    Array.from({ length: perSender }, (_, nonce) => {
      const tx = signLegacyTx({ nonce: BigInt(nonce), gasPrice, gasLimit: 21000n, to, value: 1n, data: new Uint8Array(0) }, key, common);
      return { raw: bytesToHex(tx.serialize()), hash: bytesToHex(tx.hash()) };
    }),
  );
}

/** A keep-alive JSON-RPC client; every request has a deadline, so a frozen node cannot hang the run. */
export class RpcClient {
  private readonly agent: Agent;
  private readonly u: URL;
  private id = 0;

  constructor(
    url: string,
    sockets: number,
    private readonly timeoutMs = 30_000,
  ) {
    this.u = new URL(url);
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets });
  }

  async post(body: string): Promise<any> {
    const { status, bytes } = await this.postRaw(body);
    const text = bytes.toString('utf8');
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`HTTP ${status}: ${text.slice(0, 200)}`);
    }
  }

  /** The answer's bytes as they arrived, not parsed (latency rows time this, as wrk times the rate rows). */
  postRaw(body: string): Promise<{ status: number | undefined; bytes: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: this.u.hostname, port: this.u.port, method: 'POST', path: '/', agent: this.agent, timeout: this.timeoutMs, headers: { 'content-type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  async call(method: string, params: unknown[]): Promise<any> {
    const r = await this.post(JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }));
    if (r.error) throw new Error(`${method}: ${r.error.message}`);
    return r.result;
  }

  /** One batch; answers in request order (a batch answer may come in any order). */
  async batch(calls: [method: string, params: unknown[]][]): Promise<any[]> {
    const res = (await this.post(JSON.stringify(calls.map(([method, params], i) => ({ jsonrpc: '2.0', id: i, method, params }))))) as { id: number; result?: unknown; error?: { message: string } }[];
    if (!Array.isArray(res)) throw new Error(`batch answered with ${JSON.stringify(res).slice(0, 200)}`);
    const out = new Array(calls.length);
    for (const r of res) {
      if (r.error) throw new Error(`${calls[r.id]?.[0]}: ${r.error.message}`);
      out[r.id] = r.result;
    }
    return out;
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface IngestOptions {
  inFlight: number;
  /** no newly mined transaction for this long ⇒ "stalled" */
  stallSeconds: number;
  /** still not all mined after this long ⇒ "partial" (the rate so far is reported) */
  budgetSeconds: number;
  /** the server's pid, to sample its resident memory while it ingests */
  pid?: number;
}

export interface IngestResult {
  status: 'done' | 'stalled' | 'partial';
  count: number;
  mined: number;
  seconds: number;
  peakRssMiB: number;
  /** sends refused as "pool full" and sent again later */
  refused: number;
  /** seconds until the node had accepted every transaction (mining may take longer) */
  acceptedSeconds: number;
}

/** A node's backpressure (geth's wording, ours, anvil's): the client waits and sends again, as a real one would. */
const POOL_FULL = /txpool is full|transaction pool is full|pool is full/i;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** At most `n` holders at a time; waiters are served first come, first served. */
class Semaphore {
  private readonly waiting: (() => void)[] = [];
  constructor(private free: number) {}
  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((r) => this.waiting.push(r));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/**
 * Every sender submits its transactions in nonce order, the next one once the node has accepted the
 * previous (as a wallet or a nonce manager does), and at most `inFlight` requests are open across
 * all senders (first come, first served, so the senders interleave). Progress is the sum of the
 * senders' mined nonces (`eth_getTransactionCount … latest`), polled on its own connection: every
 * sender starts at nonce 0 and sends only these transactions.
 */
export async function runIngest(url: string, txs: SignedTx[][], senders: Uint8Array[], o: IngestOptions): Promise<IngestResult> {
  const total = txs.reduce((s, t) => s + t.length, 0);
  const addresses = senders.map((k) => bytesToHex(addressOf(k)));
  const client = new RpcClient(url, o.inFlight, Math.min(10_000, o.stallSeconds * 1000));
  const monitor = new RpcClient(url, 1, 5_000);
  const slots = new Semaphore(o.inFlight);
  let stop = false;
  let sendError: Error | undefined;
  let sent = 0;
  const start = performance.now();
  let refused = 0;
  let allAcceptedAt = NaN;
  /** true: accepted; false: refused as pool full (back off, send again); throws otherwise */
  const send = async (tx: SignedTx): Promise<boolean> => {
    await slots.acquire();
    try {
      await client.call('eth_sendRawTransaction', [tx.raw]);
      return true;
    } catch (e) {
      if (!POOL_FULL.test((e as Error).message)) throw e;
      refused++;
      return false;
    } finally {
      slots.release();
    }
  };
  const sender = async (list: SignedTx[]) => {
    for (const tx of list) {
      try {
        while (!stop && !(await send(tx))) await sleep(25);
        if (stop) return;
        if (++sent === total) allAcceptedAt = performance.now();
      } catch (e) {
        // a timeout is the node not answering: the monitor reports that as a stall
        if (!/no answer within/.test((e as Error).message)) sendError ??= e as Error;
        stop = true;
      }
    }
  };
  const senders$ = Promise.all(txs.map(sender));
  let mined = 0;
  let lastProgress = performance.now();
  let peakRssMiB = o.pid ? rssMiB(o.pid) : NaN;
  let status: IngestResult['status'] = 'done';
  let minedAt = start;
  for (;;) {
    if (sendError) break;
    try {
      const nonces = await monitor.batch(addresses.map((a) => ['eth_getTransactionCount', [a, 'latest']]));
      const now = nonces.reduce((s: number, n: string) => s + Number(n), 0);
      if (now > mined) {
        mined = now;
        minedAt = lastProgress = performance.now();
      }
    } catch (e) {
      // no answer in time: counts as no progress
      if (process.env.BENCH_DEBUG) process.stderr.write(`ingest monitor: ${(e as Error).message}\n`);
    }
    if (process.env.BENCH_DEBUG) process.stderr.write(`ingest: ${sent} accepted (${refused} refused as pool full), ${mined} mined after ${Math.round(performance.now() - start)} ms\n`);
    if (o.pid) peakRssMiB = Math.max(peakRssMiB, rssMiB(o.pid));
    if (mined >= total) break;
    const t = performance.now();
    if (t - lastProgress > o.stallSeconds * 1000) {
      status = 'stalled';
      break;
    }
    if (t - start > o.budgetSeconds * 1000) {
      status = 'partial';
      break;
    }
    // poll often once everything is sent (the tail decides the figure), rarely while sending
    await sleep(sent === total ? 10 : 200);
  }
  stop = true;
  const seconds = (minedAt - start) / 1000;
  await Promise.race([senders$, sleep(12_000)]);
  if (sendError) {
    client.close();
    monitor.close();
    throw sendError;
  }
  if (status === 'done') {
    // outside the timing: every single receipt exists
    const all = txs.flat();
    for (let i = 0; i < all.length; i += 200) {
      const res = await monitor.batch(all.slice(i, i + 200).map((t) => ['eth_getTransactionReceipt', [t.hash]]));
      if (!res.every((r) => r && (r as { status: string }).status === '0x1')) throw new Error('ingest finished with missing or failed receipts');
    }
  }
  client.close();
  monitor.close();
  return { status, count: total, mined, seconds, peakRssMiB, refused, acceptedSeconds: (allAcceptedAt - start) / 1000 };
}
