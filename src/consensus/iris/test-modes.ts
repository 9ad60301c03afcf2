// For tests only (I12): CHAIN_NODE_IRIS_TEST=mode,mode… makes this node's iris engine crash on cue
// or lie, so that tests on real processes can show what honest validators do about it. Never set
// it on a real network. The modes:
//   crash-after-prepare, crash-after-commit  the engine stops right after it sends its first such
//                                            vote and the process SIGKILLs itself 200 ms later
//   sign-against-log                         at start, asks the vote guard to sign a vote for another
//                                            block at every view the consensus log holds (it must refuse)
//   equivocate          as proposer, sends a second, different block for the same view
//   double-vote         every PREPARE and COMMIT is followed by one for another block at the same view
//   bad-seals           COMMITs carry another validator's committed seal, or one that is no signature
//   bad-proposal        as proposer, sends a block with a wrong state root, a timestamp an hour ahead,
//                       or a gas limit above the chain's (in turn), and nothing else that round
//   replay              re-sends the messages it signed before at every new round, and signs
//                       ROUND_CHANGEs for rounds already passed
//   round-change-flood  five ROUND_CHANGEs a second for rounds ever further in the future
//   silent              never proposes (with bad-proposal: a silent turn, then one of each bad block)
import { decodeBlock, encodeBlock } from '../../chain/block-codec.ts';
import { headerSigHash, type Header } from '../../chain/header.ts';
import { decodeExtra, encodeExtra } from '../../chain/istanbul-extra.ts';
import { seal65 } from '../seals.ts';

export const LIES = ['equivocate', 'double-vote', 'bad-seals', 'bad-proposal', 'replay', 'round-change-flood', 'silent'] as const;
export type Lie = (typeof LIES)[number];
const OTHER = ['crash-after-prepare', 'crash-after-commit', 'sign-against-log'] as const;

export interface IrisTestModes {
  lies: ReadonlySet<Lie>;
  /** the vote code after whose first sending the process dies */
  crashAfter?: 'PREPARE' | 'COMMIT';
  signAgainstLog: boolean;
}

export class IrisTestModeError extends Error {}

/** CHAIN_NODE_IRIS_TEST's value: undefined when unset or empty; throws on an unknown mode. */
export function parseIrisTestModes(text: string | undefined): IrisTestModes | undefined {
  if (!text) return undefined;
  const modes = text.split(',').map((m) => m.trim()).filter((m) => m !== '');
  for (const m of modes) {
    if (!(LIES as readonly string[]).includes(m) && !(OTHER as readonly string[]).includes(m)) {
      throw new IrisTestModeError(`CHAIN_NODE_IRIS_TEST: unknown mode "${m}" (known: ${[...OTHER, ...LIES].join(', ')})`);
    }
  }
  return {
    lies: new Set(modes.filter((m): m is Lie => (LIES as readonly string[]).includes(m))),
    crashAfter: modes.includes('crash-after-prepare') ? 'PREPARE' : modes.includes('crash-after-commit') ? 'COMMIT' : undefined,
    signAgainstLog: modes.includes('sign-against-log'),
  };
}

/** The block with its header changed and proposer-sealed again by `key`: a different block the liar really signed. */
export function forgeBlock(encoded: Uint8Array, change: (h: Header) => Header, key: Uint8Array): Uint8Array {
  const { header, txs } = decodeBlock(encoded);
  const changed = change({ ...header });
  const extra = decodeExtra(changed.extraData);
  changed.extraData = encodeExtra({ ...extra, seal: seal65(headerSigHash(changed), key), committedSeals: [] });
  return encodeBlock(changed, txs);
}

/** The bad blocks of `bad-proposal`, in turn: what each breaks. */
export const BAD_BLOCKS: { what: string; change: (h: Header) => Header }[] = [
  { what: 'a wrong state root', change: (h) => ({ ...h, stateRoot: h.stateRoot.map((b) => b ^ 0xff) }) },
  { what: 'a timestamp an hour ahead', change: (h) => ({ ...h, timestamp: h.timestamp + 3600n }) },
  { what: 'a gas limit above the chain\'s', change: (h) => ({ ...h, gasLimit: h.gasLimit * 2n }) },
];
