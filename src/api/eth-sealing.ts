// eth_/chain_ coinbase, mining and hashrate: geth's miner status methods, answered for an istanbul
// sealer (no proof of work).
import type { ApiContext } from './context.ts';
import { bytesToHex } from '../util/hex.ts';

export function sealingHandlers({ core }: ApiContext) {
  return {
    // geth's etherbase: here the node key's address, the coinbase (miner) of every block this node seals
    coinbase: () => bytesToHex(core.nodeKey.address),
    mining: () => core.sealing,
    // blocks are signed, not mined: nothing is hashed to find them
    hashrate: () => '0x0',
  };
}
