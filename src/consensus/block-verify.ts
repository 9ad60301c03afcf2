// The istanbul rules a block from a peer must pass before it is executed (Venachain's
// consensus/istanbul/backend engine: verifyHeader, verifySigner, verifyCommittedSeals): its link to
// the parent, its time, its validator set, the proposer seal and a quorum of committed seals. What
// the block's execution must reproduce (roots, gas, bloom) is src/core/block-import.ts's job.
import type { HeadInfo } from '../chain/chain.ts';
import { headerSigHash, type Header } from '../chain/header.ts';
import { addressOfPublicKey } from '../crypto/secp256k1.ts';
import type { SignatureRecovery } from '../tx/signature-recovery.ts';
import { bytesToHex, equalBytes } from '../util/hex.ts';
import { decodeExtra } from '../chain/istanbul-extra.ts';
import { commitDigest, quorum } from './seals.ts';

/** How far a block's timestamp may be ahead of this node's clock (Venachain's allowedFutureBlockTime is 0; 30 s absorbs clock skew between hosts). */
export const MAX_FUTURE_SECONDS = 30n;

/** Addresses that signed a block: its proposer and its committers, in seal order. */
export interface SealSigners {
  proposer: Uint8Array;
  committers: Uint8Array[];
}

/** A block's header or seals break a rule: the block is wrong whoever sent it. */
export class BlockRuleError extends Error {}

async function sealSigner(seal: Uint8Array, digest: Uint8Array, recovery: SignatureRecovery, what: string): Promise<Uint8Array> {
  if (!(seal instanceof Uint8Array) || seal.length !== 65 || seal[64]! > 3) throw new BlockRuleError(`${what} is not a 65-byte signature`);
  try {
    return addressOfPublicKey(await recovery.recover(digest, seal.subarray(0, 64), seal[64]!));
  } catch {
    throw new BlockRuleError(`${what} recovers no public key`);
  }
}

/**
 * Recovers who signed the block's seals (and checks the extra's form, which checkSeals relies on) (on the recovery threads when the node has them, so this
 * overlaps the execution of earlier blocks). Throws BlockRuleError on a malformed extra or seal.
 */
export async function sealSigners(header: Header, hash: Uint8Array, recovery: SignatureRecovery): Promise<SealSigners> {
  let extra;
  try {
    extra = decodeExtra(header.extraData);
  } catch (e) {
    throw new BlockRuleError((e as Error).message);
  }
  const byteStrings = (x: unknown) => Array.isArray(x) && x.every((i) => i instanceof Uint8Array);
  if (!byteStrings(extra.validators) || !byteStrings(extra.committedSeals)) throw new BlockRuleError('invalid istanbul extra: validators and committed seals must be lists of byte strings');
  const digest = commitDigest(hash);
  const [proposer, ...committers] = await Promise.all([
    sealSigner(extra.seal, headerSigHash(header), recovery, 'proposer seal'),
    ...extra.committedSeals.map((s, i) => sealSigner(s, digest, recovery, `committed seal ${i}`)),
  ]);
  return { proposer: proposer!, committers };
}

/** Throws BlockRuleError unless `header` is a valid child of `parent` at `nowSeconds` (link and time). */
export function checkLink(header: Header, parent: HeadInfo, nowSeconds: bigint): void {
  if (header.timestamp < parent.header.timestamp) throw new BlockRuleError(`timestamp ${header.timestamp} is before its parent's ${parent.header.timestamp}`);
  if (header.timestamp > nowSeconds + MAX_FUTURE_SECONDS) throw new BlockRuleError(`timestamp ${header.timestamp} is more than ${MAX_FUTURE_SECONDS} s in the future`);
}

/**
 * Throws BlockRuleError unless the block names `validators` (the set its parent's state gives) and
 * is sealed by one of them (what a proposal must pass before its committed seals exist).
 */
export function checkProposer(header: Header, proposer: Uint8Array, validators: readonly Uint8Array[]): void {
  const named = decodeExtra(header.extraData).validators;
  if (named.length !== validators.length || named.some((v, i) => !equalBytes(v, validators[i]!))) {
    throw new BlockRuleError(`istanbul extra names validators [${named.map(bytesToHex).join(', ')}], the set of this block is [${validators.map(bytesToHex).join(', ')}]`);
  }
  if (!validators.some((v) => equalBytes(v, proposer))) throw new BlockRuleError(`proposer ${bytesToHex(proposer)} is not a validator`);
  if (!equalBytes(header.miner, proposer)) throw new BlockRuleError(`miner ${bytesToHex(header.miner)} is not the proposer ${bytesToHex(proposer)}`);
}

/**
 * Throws BlockRuleError unless the block passes checkProposer and is committed by at least a
 * quorum of `validators`, each once (a repeated or foreign committed seal is refused outright, as
 * Venachain does, not merely not counted).
 */
export function checkSeals(header: Header, signers: SealSigners, validators: readonly Uint8Array[]): void {
  checkProposer(header, signers.proposer, validators);
  const member = (a: Uint8Array) => validators.some((v) => equalBytes(v, a));
  const seen = new Set<string>();
  for (const c of signers.committers) {
    const hex = bytesToHex(c);
    if (!member(c)) throw new BlockRuleError(`committed seal by ${hex}, not a validator`);
    if (seen.has(hex)) throw new BlockRuleError(`two committed seals by ${hex}`);
    seen.add(hex);
  }
  const need = quorum(validators.length);
  if (seen.size < need) throw new BlockRuleError(`${seen.size} committed seals, the quorum of ${validators.length} validators is ${need}`);
}

/** A block whose seals are its own set's but not a quorum of its parent's: unverifiable without state (not proof that it is wrong). */
export class SetChangeError extends BlockRuleError {}

/**
 * The header-only check of a state sync (N16), which has no state to read a block's set from:
 * checkSeals against the set the block's own extra names, and a quorum of its committed seals by
 * the set its parent's extra names — what the validators trusted at the parent vouches for it.
 */
export function checkSealsByParentSet(header: Header, signers: SealSigners, parentExtra: Uint8Array): void {
  checkSeals(header, signers, decodeExtra(header.extraData).validators);
  const parentSet = decodeExtra(parentExtra).validators;
  const vouched = signers.committers.filter((c) => parentSet.some((v) => equalBytes(v, c))).length;
  const need = quorum(parentSet.length);
  if (vouched < need) throw new SetChangeError(`${vouched} committed seals by the parent's ${parentSet.length} validators, the quorum is ${need} (a set changed by more than a third at once: full sync through it)`);
}
