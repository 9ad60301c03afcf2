// iris_: consensus snapshots and validator sets, read from the istanbul extra of block headers.
// A single-validator chain has no votes; the BFT work fills votes/tally from header votes.
import type { ApiContext } from './context.ts';
import type { Header } from '../chain/header.ts';
import { decodeExtra } from '../consensus/istanbul-extra.ts';
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
  const validators = (header: Header) => decodeExtra(header.extraData).validators.map(bytesToHex);
  const snapshot = ({ hash, header }: { hash: Uint8Array; header: Header }) => ({
    number: Number(header.number),
    hash: bytesToHex(hash),
    votes: [],
    tally: {},
    validators: validators(header),
    policy: core.config.istanbul.policy,
  });
  return {
    getSnapshot: (block?: BlockParam) => snapshot(headerAt(block)),
    getSnapshotAtHash: (hash: string) => snapshot(headerByHash(hash)),
    getValidators: (block?: BlockParam) => validators(headerAt(block).header),
    getValidatorsAtHash: (hash: string) => validators(headerByHash(hash).header),
    /** normal consensus nodes up to the height; with one static validator set that is the set itself */
    candidates: (block?: BlockParam) => validators(headerAt(block).header),
  };
}
