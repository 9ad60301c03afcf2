// eth_/chain_ account state and chain facts.
import type { ApiContext } from './context.ts';
import { bytesToHex, hexToBytes, padLeft, quantity, ZERO_ADDRESS } from '../util/hex.ts';
import { blockNumberOf, stateHeader, stateHeaderOf, type BlockParam, type BlockRef } from './block-param.ts';
import { invalidParams } from './errors.ts';
import type { StorageRequests, StorageValues } from '../../generated/types.ts';

/** eth protocol version Venachain 1.x (geth 1.8 lineage) reports */
export const PROTOCOL_VERSION = 63;

/** geth's maxGetStorageSlots: most slots one eth_getStorageValues reads, over all its addresses */
export const MAX_STORAGE_VALUES = 1024;

/** A storage key as geth decodes it (at most 32 bytes of hex, `0x` is slot 0), left-padded to 32 bytes. */
export function storageSlot(key: string): Uint8Array {
  return padLeft(hexToBytes(key), 32);
}

/** Exact JSON integer (D6): a number when it is safe, else a bigint the serializer writes as digits. */
function exactInt(n: bigint): number | bigint {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

export function stateHandlers({ core }: ApiContext) {
  const { chain, state } = core;
  const view = (block: BlockParam) => state.at(stateHeader(chain, block).stateRoot);
  return {
    gasPrice: () => quantity(core.minGasPrice),
    protocolVersion: () => quantity(PROTOCOL_VERSION),
    syncing: () => {
      const p = core.syncProgress;
      if (p === undefined) return false as const;
      // geth's and Venachain's fields first (pulledStates: what a state sync stored, N16), then the
      // phase and its counts (N15)
      return {
        startingBlock: quantity(p.startingBlock),
        currentBlock: quantity(chain.headNumber),
        highestBlock: quantity(p.highestBlock),
        pulledStates: quantity(p.pulledStates ?? 0),
        knownStates: '0x0',
        phase: p.phase,
        downloadedBlock: quantity(p.downloadedBlock > chain.headNumber ? p.downloadedBlock : chain.headNumber),
        importedBlocks: quantity(p.importedBlocks),
        importedTransactions: quantity(p.importedTransactions),
        blocksPerSecond: quantity(p.blocksPerSecond),
        ...(p.secondsLeft === undefined ? {} : { secondsLeft: quantity(p.secondsLeft) }),
      };
    },
    chainId: () => quantity(core.config.chainId),
    blockNumber: () => quantity(chain.headNumber),

    async getBalance(address: string, block: BlockParam) {
      const acc = await view(block).getAccount(hexToBytes(address));
      return quantity(acc?.balance ?? 0n);
    },

    async getTransactionCount(address: string, block: BlockParam) {
      if (blockNumberOf(chain, block) === 'pending') return quantity(await core.pool.pendingNonce(address.toLowerCase()));
      const acc = await view(block).getAccount(hexToBytes(address));
      return quantity(acc?.nonce ?? 0n);
    },

    async getCode(address: string, block: BlockParam) {
      return bytesToHex(await view(block).getCode(hexToBytes(address)));
    },

    /** Slot rule of the spec: the key is the slot position as a quantity (or a 32-byte hashed position). */
    async getStorageAt(address: string, key: string, block: BlockParam) {
      if (!/^0x[0-9a-fA-F]{1,64}$/.test(key)) throw invalidParams('invalid argument 1 (key): must be a hex storage slot of at most 32 bytes');
      return bytesToHex(await view(block).getStorage(hexToBytes(address), hexToBytes(key)));
    },

    /** geth's GetStorageValues: the 32-byte values of many slots of many accounts at one block. */
    async getStorageValues(requests: StorageRequests, block: BlockRef): Promise<StorageValues> {
      const entries = Object.entries(requests);
      const slots = entries.reduce((n, [, keys]) => n + keys.length, 0);
      if (slots === 0) throw invalidParams('invalid argument 0 (requests): empty request: name at least one address and slot');
      if (slots > MAX_STORAGE_VALUES) throw invalidParams(`invalid argument 0 (requests): too many slots (max ${MAX_STORAGE_VALUES}, got ${slots})`);
      const v = state.at(stateHeaderOf(chain, block).stateRoot);
      const out: StorageValues = {};
      for (const [address, keys] of entries) {
        const a = hexToBytes(address);
        const values = [];
        for (const key of keys) values.push(bytesToHex(await v.getStorage(a, storageSlot(key))));
        out[bytesToHex(a)] = values;
      }
      return out;
    },

    async getAccountBaseInfo(address: string, block: BlockParam) {
      const a = hexToBytes(address);
      const v = view(block);
      const acc = await v.getAccount(a);
      const creator = chain.creatorOf(a);
      return {
        Address: bytesToHex(a),
        Creator: creator ? bytesToHex(creator) : ZERO_ADDRESS,
        IsContract: acc?.isContract() ?? false,
        Nonce: exactInt(acc?.nonce ?? 0n),
        Balance: exactInt(acc?.balance ?? 0n),
      };
    },
  };
}
