// The simulator's safety checks, run on every block written and every message sent (so after
// every step): no two honest validators write different blocks at one height, and no honest
// validator signs votes (PREPREPARE, PREPARE, COMMIT) for two blocks at one height and round.
import { decodeBlock } from '../chain/block-codec.ts';
import { bytesToHex } from '../util/hex.ts';
import { CODE_NAMES, COMMIT, decodeMessage, decodePreprepare, decodeSubject, PREPARE, PREPREPARE } from '../consensus/iris/messages.ts';

export interface Violation {
  kind: 'fork' | 'double-sign';
  step: number;
  atMs: number;
  text: string;
}

export class SafetyChecker {
  readonly violations: Violation[] = [];
  /** votes in conflict by validators that crashed without a consensus log: the gap I17 names, not counted as violations */
  amnesiaConflicts = 0;
  private readonly written = new Map<bigint, { hash: string; node: number }>();
  private readonly votes: Map<string, string>[];

  constructor(n: number, private readonly honest: (node: number) => boolean, private readonly amnesiac: (node: number) => boolean, private readonly where: () => { step: number; atMs: number }) {
    this.votes = Array.from({ length: n }, () => new Map());
  }

  get failed(): boolean {
    return this.violations.length > 0;
  }

  blockWritten(node: number, number: bigint, hash: Uint8Array): void {
    if (!this.honest(node)) return;
    const hex = bytesToHex(hash);
    const before = this.written.get(number);
    if (!before) this.written.set(number, { hash: hex, node });
    else if (before.hash !== hex) this.violate('fork', `block #${number}: v${before.node} wrote ${before.hash}, v${node} wrote ${hex}`);
  }

  messageSent(node: number, bytes: Uint8Array): void {
    if (!this.honest(node) && !this.amnesiac(node)) return;
    const m = decodeMessage(bytes);
    if (m.code !== PREPREPARE && m.code !== PREPARE && m.code !== COMMIT) return;
    let sequence: bigint, round: number, digest: string;
    if (m.code === PREPREPARE) {
      const pp = decodePreprepare(m.msg);
      ({ sequence, round } = pp.view);
      digest = bytesToHex(decodeBlock(pp.block).hash);
    } else {
      const s = decodeSubject(m.msg);
      ({ sequence, round } = s.view);
      digest = bytesToHex(s.digest);
    }
    const key = `${sequence}/${round}`;
    const before = this.votes[node]!.get(key);
    if (before === undefined) {
      this.votes[node]!.set(key, digest);
      return;
    }
    if (before === digest) return;
    if (!this.honest(node)) {
      this.amnesiaConflicts++;
      return;
    }
    this.violate('double-sign', `v${node} signed ${CODE_NAMES[m.code]} for ${digest} at block #${sequence} round ${round}, having voted for ${before} there`);
  }

  private violate(kind: Violation['kind'], text: string): void {
    this.violations.push({ kind, ...this.where(), text });
  }
}
