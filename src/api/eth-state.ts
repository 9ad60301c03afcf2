// eth_/chain_ account state and chain facts.
import type { ApiContext } from './context.ts';
import { bytesToHex, hexToBytes, quantity, ZERO_ADDRESS } from '../util/hex.ts';
import { blockNumberOf, stateHeader, type BlockParam } from './block-param.ts';
import { invalidParams } from './errors.ts';

/** eth protocol version Venachain 1.x (geth 1.8 lineage) reports */
export const PROTOCOL_VERSION = 63;

/** Exact JSON integer (DESIGN D6): a number when it is safe, else a bigint the serializer writes as digits. */
function exactInt(n: bigint): number | bigint {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

export function stateHandlers({ core }: ApiContext) {
  const { chain, state } = core;
  const view = (block: BlockParam) => state.at(stateHeader(chain, block).stateRoot);
  return {
    gasPrice: () => quantity(core.minGasPrice),
    protocolVersion: () => quantity(PROTOCOL_VERSION),
    syncing: () => false as const,
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
