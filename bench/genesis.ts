// The genesis every bench node starts from: one validator (the node's own key, its enode as
// firstValidatorNode) and one funded account whose key the bench holds.
import { enodeUrl, nodeKeyFrom } from '../src/crypto/node-key.ts';
import { addressOf } from '../src/crypto/secp256k1.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';

/** A Venachain-format genesis for a single-validator chain of `period` seconds (0: a block when a transaction arrives). */
export function benchGenesis(nodeKeyHex: string, funderKey: Uint8Array, period: number): object {
  return {
    config: { chainId: 300, istanbul: { period, firstValidatorNode: enodeUrl(nodeKeyFrom(hexToBytes(nodeKeyHex)), '127.0.0.1', 16791) } },
    alloc: { [bytesToHex(addressOf(funderKey))]: { balance: (10n ** 24n).toString() } },
  };
}
