// The block sync: when a peer's head is ahead of this node's, download the missing range in chunks
// from the peers that have it (several requests in flight, spread over the peers), and import the
// chunks in order through the door while the next ones download; the chunks that follow the next one
// and are already downloaded go with it in the same import. The chain's side (verification,
// execution, batched commits) is behind ChainDoor.importBlocks; what the network knows of peers is
// behind PeerSet. A peer whose blocks are refused as wrong is penalised and its chunk fetched from
// another; a SIGKILL loses nothing committed, and the next start syncs from its head.
import type { ChainDoor, SyncProgress } from '../core/chain-door.ts';
import type { PeerSet } from './peer-set.ts';
import type { LogFields } from '../util/logger.ts';
import { RANGE_ANSWER_BYTES } from './wire.ts';

/** Blocks per range request: 10-transfer blocks are ~1.3 KiB, so a chunk is a few hundred KiB. */
export const CHUNK_BLOCKS = 128;
/**
 * Range requests in flight per peer: some being answered while earlier ones' blocks import. The
 * import takes every consecutive range already downloaded in one call, since each call ends by
 * waiting for its last commit (~0.1 s measured): imported one range at a time, 10,000 blocks spent
 * 27 % of their import in that wait.
 */
export const REQUESTS_PER_PEER = 4;
/** Range requests in flight in all (the downloaded but not yet imported chunks are held in memory). */
const MAX_REQUESTS = 8;
/**
 * Most bytes of blocks one import takes when it adds downloaded ranges to the one it waits for (one
 * range's answer limit): the import decodes every transaction of its blocks at its start, so eight
 * full ranges would hold ~600,000 decoded transfers at once.
 */
const MAX_IMPORT_BYTES = RANGE_ANSWER_BYTES;
/** A peer's head this far ahead starts a sync at once; a head one block ahead is the block being announced, so it waits this long for the gossip first. */
const ANNOUNCE_GRACE_MS = 1500;
const PROGRESS_EVERY_MS = 5000;
/** A sync that stopped short (every peer that had the blocks failed) looks again after this long. */
const RETRY_MS = 3000;
const MAX_RETRY_MS = 60_000;

export interface SyncLog {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
}

interface Fetched {
  /** undefined: no peer could be asked */
  peer: string | undefined;
  blocks: Uint8Array[];
  failure?: string;
  /** the host penalised the peer for its answer already */
  penalised?: boolean;
}

/** A range request: blocks from…from+count−1. */
interface Request {
  from: bigint;
  count: number;
  answer: Promise<Fetched>;
  /** the answer, once it is in */
  got?: Fetched;
}

/** Downloaded blocks of one peer going into an import. */
interface Part {
  peer: string;
  blocks: Uint8Array[];
}

export class BlockSync {
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private graceTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MS;
  /** requests in flight per peer */
  private readonly load = new Map<string, number>();

  constructor(
    private readonly peers: PeerSet,
    private readonly door: ChainDoor,
    private readonly log: SyncLog,
    private readonly o: { chunk?: number; progressEveryMs?: number } = {},
  ) {}

  start(): void {
    this.peers.onPeerHead(() => this.consider());
    this.consider();
  }

  /** Stops after the chunk being imported. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.graceTimer);
    clearTimeout(this.retryTimer);
    await this.running;
  }

  /** Whether a sync runs now. */
  get syncing(): boolean {
    return this.running !== undefined;
  }

  /** Syncs when a peer is ahead: at once when it is more than one block ahead, else after the grace for its announcement. */
  consider(): void {
    if (this.stopped) return;
    const lead = this.bestHead() - this.door.head().number;
    if (lead <= 0n) return;
    if (lead === 1n) {
      this.graceTimer ??= setTimeout(() => {
        this.graceTimer = undefined;
        if (this.bestHead() > this.door.head().number) this.run();
      }, ANNOUNCE_GRACE_MS);
      return;
    }
    this.run();
  }

  private bestHead(): bigint {
    let best = -1n;
    for (const p of this.peers.peers()) if (p.head.number > best) best = p.head.number;
    return best;
  }

  private run(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.syncOnce();
        } catch (e) {
          this.log.warn(`sync: ${(e as Error).stack ?? e}`);
        }
      } while (this.again && !this.stopped);
      this.door.setSyncing(undefined);
      this.running = undefined;
    })();
  }

  /** One sync to the best head the peers report, until it is reached or no peer can serve the next block. */
  private async syncOnce(): Promise<void> {
    const chunk = this.o.chunk ?? CHUNK_BLOCKS;
    const startingBlock = this.door.head().number;
    let target = this.bestHead();
    if (target <= startingBlock) return;
    const started = performance.now();
    let lastLine = started;
    let blocksDone = 0;
    let txsDone = 0;
    /** peers that failed or misbehaved during this sync: not asked again in it */
    const shunned = new Set<string>();
    const inFlight: Request[] = [];
    const publish = () => {
      const head = this.door.head().number;
      this.door.setSyncing(progressOf(startingBlock, head, target, downloadedTo(inFlight, head), blocksDone, txsDone, (performance.now() - started) / 1000));
    };
    const request = (from: bigint, count: number) => {
      const req: Request = { from, count, answer: this.fetch(from, count, shunned) };
      void req.answer.then((got) => {
        req.got = got;
        if (this.running && !this.stopped) publish();
      });
      inFlight.push(req);
    };
    let next = startingBlock + 1n;
    let nextFetch = next;
    publish();
    this.log.info(`sync: from block #${startingBlock} to #${target}`, { from: startingBlock, to: target });
    const refill = () => {
      if (nextFetch < next) nextFetch = next;
      const limit = Math.min(MAX_REQUESTS, REQUESTS_PER_PEER * Math.max(1, this.peers.peers().length));
      while (inFlight.length < limit && nextFetch <= target) {
        const count = Number(min(BigInt(chunk), target - nextFetch + 1n));
        request(nextFetch, count);
        nextFetch += BigInt(count);
      }
    };
    while (next <= target && !this.stopped) {
      refill();
      // the request that holds the next block (requests wholly behind the head, which another
      // import moved, are let go: their blocks are in)
      for (let i = inFlight.length - 1; i >= 0; i--) if (inFlight[i]!.from + BigInt(inFlight[i]!.count) <= next) inFlight.splice(i, 1);
      let req = inFlight.find((r) => r.from <= next && next < r.from + BigInt(r.count));
      if (!req) {
        request(next, Number(min(BigInt(chunk), (nextFetch > next ? nextFetch : target + 1n) - next)));
        req = inFlight.at(-1)!;
      }
      const got = await req.answer;
      inFlight.splice(inFlight.indexOf(req), 1);
      const skip = Number(next - req.from);
      if (got.blocks.length <= skip) {
        if (got.peer === undefined) {
          this.log.warn(`sync: no peer serves block #${next} (${got.failure}); stopped at #${this.door.head().number}`, { number: next });
          break;
        }
        // heads only grow (istanbul blocks are final): a peer that serves nothing of a head it
        // claimed — an empty answer, or no answer — is a fault (N13), and its claim is let go, so a
        // lie starts one sync, not one at every block
        if (got.blocks.length === 0) {
          if (!got.penalised) this.peers.penalise(got.peer, `claimed a head at or above #${req.from} and served no block from it${got.failure === undefined ? '' : ` (${got.failure})`}`);
          this.peers.distrust(got.peer);
        }
        shunned.add(got.peer);
        request(next, req.count - skip);
        continue;
      }
      const answered = Math.min(got.blocks.length, req.count);
      // a short answer (the peer's size limit): the rest of the range is a request of its own
      if (answered < req.count) request(req.from + BigInt(answered), req.count - answered);
      const parts: Part[] = [{ peer: got.peer!, blocks: got.blocks.slice(skip, answered) }];
      let end = req.from + BigInt(answered);
      if (answered === req.count) end = this.takeDownloaded(inFlight, end, parts);
      // the ranges after the taken ones download while these import
      refill();
      const outcome = await this.door.importBlocks(parts.length === 1 ? parts[0]!.blocks : parts.flatMap((p) => p.blocks));
      blocksDone += outcome.imported;
      txsDone += outcome.transactions;
      const head = this.door.head().number;
      if (outcome.refused) {
        const at = `block #${next + BigInt(outcome.refused.index)}`;
        const peer = partAt(parts, outcome.refused.index).peer;
        if (outcome.refused.peerFault) this.peers.penalise(peer, `${at}: ${outcome.refused.reason}`);
        else this.log.warn(`sync: ${at} from ${peer} not imported: ${outcome.refused.reason}`, { number: next + BigInt(outcome.refused.index), peer });
        shunned.add(peer);
        // what these answers held from the refused block on is fetched again, from other peers
        for (let from = head + 1n; from < end; from += BigInt(chunk)) request(from, Number(min(BigInt(chunk), end - from)));
      }
      next = head + 1n;
      const best = this.bestHead();
      if (best > target) target = best;
      publish();
      const now = performance.now();
      if (now - lastLine >= (this.o.progressEveryMs ?? PROGRESS_EVERY_MS)) {
        lastLine = now;
        const p = progressOf(startingBlock, head, target, downloadedTo(inFlight, head), blocksDone, txsDone, (now - started) / 1000);
        this.log.info(progressLine(p, (now - started) / 1000), { phase: p.phase, number: head, target, downloaded: p.downloadedBlock, secondsLeft: p.secondsLeft });
      }
    }
    const head = this.door.head().number;
    const seconds = (performance.now() - started) / 1000;
    const p = progressOf(startingBlock, head, target, head, blocksDone, txsDone, seconds);
    this.log.info(`${progressLine(p, seconds)}: ${head >= target ? 'in step' : 'stopped'} after ${seconds.toFixed(1)} s`, { number: head, target });
    // a peer that failed may serve later (or another connect): look again without waiting for a new
    // head, less often each time it stops short (a peer claiming a head it does not serve)
    if (head >= target) this.retryMs = RETRY_MS;
    else if (!this.stopped) {
      this.retryTimer ??= setTimeout(() => {
        this.retryTimer = undefined;
        this.consider();
      }, this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    }
  }

  /**
   * Moves the answers already in for the ranges from `end` on, each whole and following the last,
   * out of `inFlight` into `parts`; returns the block after the last taken.
   */
  private takeDownloaded(inFlight: Request[], end: bigint, parts: Part[]): bigint {
    let bytes = byteSize(parts[0]!.blocks);
    for (;;) {
      const i = inFlight.findIndex((r) => r.from === end && r.got?.peer !== undefined && r.got.blocks.length >= r.count);
      if (i < 0) return end;
      const blocks = inFlight[i]!.got!.blocks.slice(0, inFlight[i]!.count);
      bytes += byteSize(blocks);
      if (bytes > MAX_IMPORT_BYTES) return end;
      const [r] = inFlight.splice(i, 1);
      parts.push({ peer: r!.got!.peer!, blocks });
      end += BigInt(r!.count);
    }
  }

  /** Asks the least-loaded peer that has block `from` and has not failed this sync; never rejects. */
  private async fetch(from: bigint, count: number, shunned: ReadonlySet<string>): Promise<Fetched> {
    const holders = this.peers.peers().filter((p) => p.head.number >= from);
    const candidates = holders.filter((p) => !shunned.has(p.id));
    if (candidates.length === 0) return { peer: undefined, blocks: [], failure: holders.length ? 'every peer that has it failed' : 'no peer has it' };
    candidates.sort((a, b) => (this.load.get(a.id) ?? 0) - (this.load.get(b.id) ?? 0) || (b.head.number > a.head.number ? 1 : -1));
    const peer = candidates[0]!.id;
    this.load.set(peer, (this.load.get(peer) ?? 0) + 1);
    try {
      return { peer, blocks: await this.peers.requestBlocks(peer, from, count) };
    } catch (e) {
      return { peer, blocks: [], failure: (e as Error).message, penalised: (e as { penalised?: boolean }).penalised === true };
    } finally {
      this.load.set(peer, this.load.get(peer)! - 1);
    }
  }
}

function byteSize(blocks: readonly Uint8Array[]): number {
  let n = 0;
  for (const b of blocks) n += b.length;
  return n;
}

/** The part holding the `index`th block of the parts together. */
function partAt(parts: readonly Part[], index: number): Part {
  for (const p of parts) {
    if (index < p.blocks.length) return p;
    index -= p.blocks.length;
  }
  return parts.at(-1)!;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** The highest block downloaded with every block after `head` up to it: the answers in, in order. */
function downloadedTo(inFlight: readonly Request[], head: bigint): bigint {
  let to = head;
  for (;;) {
    const r = inFlight.find((q) => q.from <= to + 1n && to + 1n < q.from + BigInt(q.got?.blocks.length ?? 0));
    if (!r) return to;
    to = r.from + BigInt(r.got!.blocks.length) - 1n;
  }
}

/** What eth_syncing answers (N15): counts since the sync started and the time left at their rate. */
function progressOf(startingBlock: bigint, head: bigint, target: bigint, downloadedBlock: bigint, blocks: number, txs: number, seconds: number): SyncProgress {
  const rate = seconds > 0 ? blocks / seconds : 0;
  const left = Number(target - head);
  return {
    startingBlock,
    currentBlock: head,
    highestBlock: target,
    phase: 'full',
    downloadedBlock: downloadedBlock > head ? downloadedBlock : head,
    importedBlocks: blocks,
    importedTransactions: txs,
    blocksPerSecond: Math.round(rate),
    secondsLeft: rate > 0 ? Math.ceil(Math.max(0, left) / rate) : undefined,
  };
}

/** The progress line: height, target, what is downloaded, rates and the time left at the rate so far. */
function progressLine(p: SyncProgress, seconds: number): string {
  const eta = p.secondsLeft !== undefined && p.currentBlock < p.highestBlock ? `, ETA ${p.secondsLeft} s` : '';
  const ahead = p.downloadedBlock > p.currentBlock ? `, downloaded to #${p.downloadedBlock}` : '';
  return `sync: block #${p.currentBlock} of #${p.highestBlock}, ${p.blocksPerSecond} blocks/s, ${(seconds > 0 ? p.importedTransactions / seconds : 0).toFixed(0)} tx/s${ahead}${eta}`;
}
