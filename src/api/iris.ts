// iris_: consensus snapshots and validator sets. As Venachain's, the snapshot at block n is the one
// made by applying n: its validators are the set of block n+1, read from NodeManagement in the state
// after n (validator-set.ts — the same rule the sealer writes into block n+1's istanbul extra).
// Venachain never uses votes: votes and tally stay empty. iris_getEquivocations is this node's own:
// the evidence its engine found of validators signing two blocks at one view (I11).
import type { ApiContext } from './context.ts';
import type { Header } from '../chain/header.ts';
import { candidatesAt, validatorsAfter } from '../consensus/validator-set.ts';
import { bytesToHex, hexToBytes } from '../util/hex.ts';
import { blockNumberOf, type BlockParam } from './block-param.ts';
import { serverError } from './errors.ts';

export function irisHandlers({ core }: ApiContext) {
  const { chain } = core;
  const headerAt = (p: BlockParam): { hash: Uint8Array; header: Header } => {
    const n = blockNumberOf(chain, p);
    const num = n === 'pending' ? chain.headNumber : n;
    const hash = chain.hashByNumber(num);
    if (!hash) throw serverError(`unknown block ${num} (head is ${chain.headNumber})`);
    return { hash, header: chain.headerByHash(hash)! };
  };
  const headerByHash = (h: string) => {
    const hash = hexToBytes(h);
    const header = chain.headerByHash(hash);
    if (!header) throw serverError(`unknown block ${h}`);
    return { hash, header };
  };
  const stateAfter = (header: Header) => core.state.at(header.stateRoot);
  const validators = async (header: Header) => (await validatorsAfter(stateAfter(header), header)).map(bytesToHex);
  const snapshot = async ({ hash, header }: { hash: Uint8Array; header: Header }) => ({
    number: Number(header.number),
    hash: bytesToHex(hash),
    votes: [],
    tally: {},
    validators: await validators(header),
    policy: core.config.istanbul.policy,
  });
  return {
    getSnapshot: (block?: BlockParam) => snapshot(headerAt(block)),
    getSnapshotAtHash: (hash: string) => snapshot(headerByHash(hash)),
    getValidators: (block?: BlockParam) => validators(headerAt(block).header),
    getValidatorsAtHash: (hash: string) => validators(headerByHash(hash).header),
    getEquivocations: () =>
      (core.iris?.equivocations() ?? []).map((e) => ({ validator: e.validator, number: Number(e.sequence), round: e.round, first: e.first, second: e.second })),
    /** the consensus records at the height (delayNum not above it), in name order */
    candidates: async (block?: BlockParam) => {
      const { header } = headerAt(block);
      return (await candidatesAt(stateAfter(header), header.number)).map(bytesToHex);
    },
  };
}
