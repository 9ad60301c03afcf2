// A consensus log in memory (ports.ts' ConsensusLog): what an engine without a datadir uses, and
// what a test or a simulator hands to an engine it restarts in the same process.
import type { ConsensusLog, ConsensusRecords, LockRecord, SignedVote } from './ports.ts';

export class MemoryConsensusLog implements ConsensusLog {
  private votes: SignedVote[] = [];
  private locks = new Map<bigint, LockRecord>();

  read(): ConsensusRecords {
    return { votes: [...this.votes], locks: [...this.locks.values()] };
  }

  vote(v: SignedVote): void {
    this.votes.push(v);
  }

  lock(l: LockRecord): void {
    this.locks.set(l.sequence, l);
  }

  unlock(sequence: bigint): void {
    this.locks.delete(sequence);
  }

  trimBelow(sequence: bigint): void {
    this.votes = this.votes.filter((v) => v.sequence >= sequence);
    for (const s of this.locks.keys()) if (s < sequence) this.locks.delete(s);
  }
}
