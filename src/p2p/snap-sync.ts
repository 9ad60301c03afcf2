// The state sync (`--syncmode snap`, N16): when a peer is far ahead, the blocks up to a pivot
// (the best head − PIVOT_DISTANCE) are downloaded with their receipts and stored without
// execution, then the pivot's state is fetched as proven ranges, many requests in flight across
// peers; then the block sync (sync.ts) executes from the pivot on. What is stored, and whether it
// verifies, is the chain's side (ChainDoor.snap); this side picks peers and moves bytes. A peer
// whose data does not verify is dropped (PeerSet.drop) and its request asked of another; one that
// fails or serves nothing is penalised and not asked again in this sync.
import type { ChainDoor, RangeAnswer, StateTask, SyncProgress } from '../core/chain-door.ts';
import type { PeerSet } from './peer-set.ts';
import type { SyncLog } from './sync.ts';
import { SNAP_MAX_ITEMS } from './snap-wire.ts';

/** The pivot's distance below the best head: blocks that recent are executed by the full sync. */
export const PIVOT_DISTANCE = 64n;
/** A smaller lead than this over the pivot is cheaper executed than state-synced. */
export const SNAP_MIN_LEAD = 128n;
/** Blocks (with their receipts) per request. */
const CHUNK = 128;
/** Requests in flight per peer, and in all. */
const PER_PEER = 2;
const MAX_IN_FLIGHT = 8;
const PROGRESS_EVERY_MS = 5000;
/** With no peer to ask, look again after this long (shunned peers are forgiven then). */
const IDLE_MS = 1000;

interface Got<T> {
  peer: string | undefined;
  value?: T;
  failure?: string;
  penalised?: boolean;
}

export class SnapSync {
  private stopped = false;
  private wake: (() => void) | undefined;
  private readonly load = new Map<string, number>();
  private readonly shunned = new Set<string>();
  private started = performance.now();
  private lastLine = 0;

  constructor(
    private readonly peers: PeerSet,
    private readonly door: ChainDoor,
    private readonly log: SyncLog,
    private readonly o: { minLead?: bigint } = {},
  ) {}

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /** A state sync under way (resumed) or one a peer's lead calls for, to its end; resolves when the full sync may take over. */
  async run(): Promise<void> {
    const snap = this.door.snap;
    if (!snap.status()) {
      await this.firstPeer();
      if (this.stopped) return;
      const head = this.door.head().number;
      const pivot = this.bestHead() - PIVOT_DISTANCE;
      if (pivot - head < (this.o.minLead ?? SNAP_MIN_LEAD)) {
        this.log.info(`snap: the best peer is ${this.bestHead() - head} blocks ahead, not enough for a state sync: full sync`);
        return;
      }
      await snap.begin(pivot);
      this.log.info(`snap: state sync to pivot #${pivot} (best peer head #${this.bestHead()})`, { pivot });
    } else this.log.info(`snap: resuming the state sync to pivot #${snap.status()!.pivot} (blocks stored to #${snap.status()!.stored}, ${snap.status()!.pulled} state entries)`);
    this.started = performance.now();
    await this.blocks();
    if (this.stopped) return;
    await this.state();
    if (this.stopped || !snap.stateComplete()) return;
    const { pivot, pulled } = snap.status()!;
    await snap.finish();
    this.door.setSyncing(undefined);
    this.log.info(`snap: pivot #${pivot} is the head, its state stored (${pulled} entries) after ${((performance.now() - this.started) / 1000).toFixed(1)} s: full sync from here`, { pivot });
  }

  /** Headers, bodies and receipts to the pivot, stored in order. */
  private async blocks(): Promise<void> {
    const snap = this.door.snap;
    const planned = snap.status()!.pivot;
    const first = snap.status()!.stored;
    type Answer = Got<{ blocks: Uint8Array[]; receipts: Uint8Array[] }>;
    const pending = new Map<bigint, Promise<Answer>>();
    /** answers already in, by their first block */
    const arrived = new Map<bigint, Answer>();
    let nextFetch = first + 1n;
    /** the pivot was lowered for want of a peer serving up to it */
    let lowered = false;
    const fetch = (from: bigint) => {
      const pivot = snap.status()!.pivot;
      const later = [...pending.keys()].filter((k) => k > from).reduce((a, b) => (b < a ? b : a), pivot + 1n);
      const count = Number(min(BigInt(CHUNK), later - from, pivot - from + 1n));
      const last = from + BigInt(count) - 1n;
      const answer = this.ask(last, async (peer) => {
        const [blocks, receipts] = await Promise.all([this.peers.requestBlocks(peer, from, count), this.peers.requestState(peer, { kind: 'receipts', from, count })]);
        return { blocks, receipts: receipts as Uint8Array[] };
      });
      pending.set(from, answer);
      void answer.then((got) => pending.get(from) === answer && arrived.set(from, got));
      if (from + BigInt(count) > nextFetch) nextFetch = from + BigInt(count);
    };
    while (!this.stopped) {
      const { stored, pivot } = snap.status()!;
      if (stored >= pivot) {
        if (pivot < planned && !lowered) this.log.info(`snap: block #${pivot + 1n} is sealed by a set its parent's names less than a quorum of: the pivot moves to #${pivot}, the full sync executes through it`, { pivot });
        return;
      }
      this.progress('headers', stored, pivot, first);
      const limit = Math.min(MAX_IN_FLIGHT, PER_PEER * Math.max(1, this.peers.peers().length));
      while (pending.size < limit && nextFetch <= pivot) fetch(nextFetch);
      const from = stored + 1n;
      for (const k of pending.keys()) if (k < from) pending.delete(k);
      if (!pending.has(from)) fetch(from);
      const got = await pending.get(from)!;
      pending.delete(from);
      arrived.delete(from);
      if (got.peer === undefined) {
        // no peer has blocks up to the pivot (the head it was planned on was a lie): a lower pivot
        const lower = this.bestHead() - PIVOT_DISTANCE;
        if (this.peers.peers().length > 0 && lower < pivot) {
          this.log.warn(`snap: no peer serves blocks up to pivot #${pivot}: the pivot moves to #${lower > stored ? lower : stored}`, { pivot: lower });
          await snap.movePivot(lower);
          lowered = true;
          pending.clear();
          arrived.clear();
          nextFetch = stored + 1n;
        } else await this.idle();
        continue;
      }
      const n = Math.min(got.value?.blocks.length ?? 0, got.value?.receipts.length ?? 0);
      if (n === 0) {
        this.failed(got, `served no block from #${from}`);
        // heads only grow: a head claimed and not served counts as this node's from now on (N13)
        this.peers.distrust(got.peer);
        continue;
      }
      // the answers already in that follow go with it: one verification (recovery) pass and one write
      const parts = [{ peer: got.peer, blocks: got.value!.blocks.slice(0, n), receipts: got.value!.receipts.slice(0, n) }];
      let end = from + BigInt(n);
      for (let next = arrived.get(end); next?.value && parts.length < MAX_IN_FLIGHT; next = arrived.get(end)) {
        const m = Math.min(next.value.blocks.length, next.value.receipts.length);
        if (m === 0) break;
        pending.delete(end);
        arrived.delete(end);
        parts.push({ peer: next.peer!, blocks: next.value.blocks.slice(0, m), receipts: next.value.receipts.slice(0, m) });
        end += BigInt(m);
      }
      const { stored: count, refused } = await snap.storeBlocks(
        parts.flatMap((p) => p.blocks),
        parts.flatMap((p) => p.receipts),
      );
      if (refused) {
        let at = count;
        const liar = parts.find((p) => (at -= p.blocks.length) < 0) ?? parts.at(-1)!;
        this.lied(liar.peer, refused);
      }
    }
  }

  /** The pivot's state, as ranges and codes, many requests in flight. */
  private async state(): Promise<void> {
    const snap = this.door.snap;
    const pivot = snap.status()!.pivot;
    const inFlight = new Set<Promise<void>>();
    while (!this.stopped && !snap.stateComplete()) {
      this.progress('state', pivot, pivot, pivot);
      const limit = Math.min(MAX_IN_FLIGHT, PER_PEER * Math.max(1, this.peers.peers().length));
      const task = inFlight.size < limit ? snap.nextTask() : undefined;
      if (task === undefined) {
        if (inFlight.size === 0) {
          // every task is out or none is left: wait for a peer or give up (nothing is lost: a restart resumes)
          await this.idle();
          continue;
        }
        await Promise.race(inFlight);
        continue;
      }
      const run: Promise<void> = this.fetchState(task, pivot).finally(() => inFlight.delete(run));
      inFlight.add(run);
    }
    await Promise.all(inFlight);
  }

  private async fetchState(task: StateTask, pivot: bigint): Promise<void> {
    const snap = this.door.snap;
    const got = await this.ask(pivot, (peer) => {
      if (task.kind === 'accounts') return this.peers.requestState(peer, { kind: 'accounts', root: task.root, origin: task.origin, limit: task.limit, maxItems: SNAP_MAX_ITEMS });
      if (task.kind === 'storage') return this.peers.requestState(peer, { kind: 'storage', root: task.root, account: task.account, origin: task.origin, limit: new Uint8Array(32).fill(0xff), maxItems: SNAP_MAX_ITEMS });
      return this.peers.requestState(peer, { kind: 'codes', hashes: task.hashes });
    });
    if (got.peer === undefined || got.value === undefined) {
      snap.release(task);
      if (got.peer !== undefined) this.failed(got, `${task.kind} request failed`);
      else await this.idle();
      return;
    }
    const verdict = task.kind === 'codes' ? await snap.putCodes(task, got.value as Uint8Array[]) : await snap.putRange(task, got.value as RangeAnswer);
    if (!verdict.ok) this.lied(got.peer, verdict.reason);
  }

  /** Asks `request` of the least-loaded peer whose head is at least `needs`, not shunned; never rejects. */
  private async ask<T>(needs: bigint, request: (peer: string) => Promise<T>): Promise<Got<T>> {
    const candidates = this.peers.peers().filter((p) => p.head.number >= needs && !this.shunned.has(p.id));
    if (candidates.length === 0) return { peer: undefined };
    candidates.sort((a, b) => (this.load.get(a.id) ?? 0) - (this.load.get(b.id) ?? 0));
    const peer = candidates[0]!.id;
    this.load.set(peer, (this.load.get(peer) ?? 0) + 1);
    try {
      return { peer, value: await request(peer) };
    } catch (e) {
      return { peer, failure: (e as Error).message, penalised: (e as { penalised?: boolean }).penalised === true };
    } finally {
      this.load.set(peer, this.load.get(peer)! - 1);
    }
  }

  /** A peer failed or served nothing: penalised (unless the host did), not asked again in this sync. */
  private failed(got: Got<unknown>, what: string): void {
    if (!got.penalised) this.peers.penalise(got.peer!, `state sync: ${what}${got.failure ? ` (${got.failure})` : ''}`);
    this.shunned.add(got.peer!);
  }

  /** A peer served data that does not verify: dropped. */
  private lied(peer: string, reason: string): void {
    this.log.warn(`snap: peer ${peer} dropped: ${reason}`, { peer });
    this.peers.drop(peer, `state sync: ${reason}`);
    this.shunned.add(peer);
  }

  private async idle(): Promise<void> {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    this.shunned.clear();
  }

  private firstPeer(): Promise<void> {
    if (this.peers.peers().length > 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
      this.peers.onPeerHead(() => resolve());
    });
  }

  private bestHead(): bigint {
    let best = -1n;
    for (const p of this.peers.peers()) if (p.head.number > best) best = p.head.number;
    return best;
  }

  /** eth_syncing's object (N15's fields, phase `headers` or `state`) and the progress line every few seconds. */
  private progress(phase: 'headers' | 'state', stored: bigint, pivot: bigint, first: bigint): void {
    const seconds = (performance.now() - this.started) / 1000;
    const blocks = Number(stored - first);
    const rate = phase === 'headers' && seconds > 0 ? blocks / seconds : 0;
    const pulled = this.door.snap.status()?.pulled ?? 0;
    const head = this.door.head().number;
    const p: SyncProgress = {
      startingBlock: head,
      currentBlock: head,
      highestBlock: pivot,
      phase,
      pulledStates: pulled,
      downloadedBlock: stored,
      importedBlocks: blocks,
      importedTransactions: 0,
      blocksPerSecond: Math.round(rate),
      secondsLeft: rate > 0 ? Math.ceil(Number(pivot - stored) / rate) : undefined,
    };
    this.door.setSyncing(p);
    const now = performance.now();
    if (now - this.lastLine < PROGRESS_EVERY_MS) return;
    this.lastLine = now;
    if (phase === 'headers') this.log.info(`snap: blocks stored to #${stored} of pivot #${pivot}, ${p.blocksPerSecond} blocks/s${p.secondsLeft === undefined ? '' : `, ETA ${p.secondsLeft} s`}`, { phase, number: stored, pivot });
    else this.log.info(`snap: pivot #${pivot}'s state: ${pulled} entries stored`, { phase, pivot, pulled });
  }
}

function min(...xs: bigint[]): bigint {
  return xs.reduce((a, b) => (b < a ? b : a));
}
