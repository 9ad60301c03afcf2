// What a consensus engine tells the node's metrics (--metrics, src/node/metrics.ts): rounds begun
// and rounds changed. The engine calls it; without --metrics it gets NO_CONSENSUS_METER.
export interface ConsensusMeter {
  /** A round began at `height` (round 0 of a new height, or the round a change moved to). */
  roundStarted(height: bigint, round: number): void;
  /** The validators gave up a round at `height` and moved to `round` (a timeout or a proposer's fault). */
  roundChanged(height: bigint, round: number): void;
}

export const NO_CONSENSUS_METER: ConsensusMeter = { roundStarted() {}, roundChanged() {} };
