// eth_/chain_getProof (EIP-1186): the account's path in the state trie and each slot's path in the
// account's storage trie, read from the trie nodes the node keeps for every block (archive), in
// geth's shape (internal/ethapi GetProof): an absent account has zero code and storage hashes and
// proves its slots with empty proofs.
import { createMerkleProof } from '@ethereumjs/mpt';
import type { ApiContext } from './context.ts';
import type { AccountProof } from '../../generated/types.ts';
import { newTrie } from '../state/state-manager.ts';
import { bytesToHex, hexToBytes, quantity, ZERO_HASH } from '../util/hex.ts';
import { stateHeaderOf, type BlockRef } from './block-param.ts';
import { invalidParams } from './errors.ts';
import { storageSlot } from './eth-state.ts';

/** geth's maxGetProofKeys */
export const MAX_PROOF_KEYS = 1024;

export function proofHandlers({ core }: ApiContext) {
  const { chain, state, trieDb, common } = core;
  return {
    async getProof(address: string, storageKeys: string[], block: BlockRef): Promise<AccountProof> {
      if (storageKeys.length > MAX_PROOF_KEYS) {
        throw invalidParams(`invalid argument 1 (storageKeys): too many storage keys requested (max ${MAX_PROOF_KEYS}, got ${storageKeys.length})`);
      }
      const root = stateHeaderOf(chain, block).stateRoot;
      const addr = hexToBytes(address);
      const view = state.at(root);
      const account = await view.getAccount(addr);
      const accountProof = await createMerkleProof(newTrie(trieDb, common, root), addr);
      const storageTrie = account && newTrie(trieDb, common, account.storageRoot);
      const storageProof = [];
      for (const key of storageKeys) {
        const slot = storageSlot(key);
        // geth answers a key given as 32 bytes as written, any shorter one as a quantity
        const outputKey = hexToBytes(key).length === 32 ? bytesToHex(slot) : quantity(BigInt(bytesToHex(slot)));
        const proof = storageTrie ? (await createMerkleProof(storageTrie, slot)).map(bytesToHex) : [];
        const value = account ? BigInt(bytesToHex(await view.getStorage(addr, slot))) : 0n;
        storageProof.push({ key: outputKey, value: quantity(value), proof });
      }
      return {
        address: bytesToHex(addr),
        accountProof: accountProof.map(bytesToHex),
        balance: quantity(account?.balance ?? 0n),
        codeHash: account ? bytesToHex(account.codeHash) : ZERO_HASH,
        nonce: quantity(account?.nonce ?? 0n),
        storageHash: account ? bytesToHex(account.storageRoot) : ZERO_HASH,
        storageProof,
      };
    },
  };
}
