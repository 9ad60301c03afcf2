// web3_, net_ and admin_: facts about this node.
import { platform, arch } from 'node:os';
import type { ApiContext } from './context.ts';
import { bytesToHex, hexToBytes, quantity } from '../util/hex.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { enodeUrl } from '../crypto/node-key.ts';
import { PROTOCOL_VERSION } from './eth-state.ts';
import { invalidParams } from './errors.ts';

export function clientVersion(version: string): string {
  return `chain-node/v${version}/${platform()}-${arch()}/node${process.versions.node}`;
}

export function web3Handlers(ctx: ApiContext) {
  return {
    clientVersion: () => ctx.clientVersion,
    sha3(data: string) {
      if (!/^0x([0-9a-fA-F]{2})*$/.test(data)) throw invalidParams('invalid argument 0 (data): must be 0x-prefixed hex data of whole bytes');
      return bytesToHex(keccak256(hexToBytes(data)));
    },
  };
}

export function netHandlers(ctx: ApiContext) {
  return {
    listening: () => ctx.network?.listening ?? false,
    peerCount: () => quantity(ctx.network?.peerCount() ?? 0),
    /** the network id: the chain id, as geth reports it when no separate network id is set */
    version: () => ctx.core.config.chainId.toString(),
  };
}

export function adminHandlers(ctx: ApiContext) {
  const { core } = ctx;
  return {
    datadir: () => ctx.datadir,
    peers: () => ctx.network?.adminPeers() ?? [],
    nodeInfo() {
      const ip = '127.0.0.1';
      const local = ctx.network?.nodeInfo() ?? {
        id: core.nodeKey.id,
        enode: enodeUrl(core.nodeKey, ip, ctx.p2pPort),
        ip,
        ports: { discovery: ctx.p2pPort, listener: ctx.p2pPort },
        listenAddr: `${ip}:${ctx.p2pPort}`,
      };
      return {
        ...local,
        name: ctx.clientVersion,
        protocols: {
          eth: {
            network: Number(core.config.chainId),
            genesis: bytesToHex(core.chain.genesis.hash),
            head: bytesToHex(core.chain.head.hash),
            version: PROTOCOL_VERSION,
            config: {
              chainId: Number(core.config.chainId),
              interpreter: core.config.interpreter,
              istanbul: { ...core.config.istanbul },
            },
          },
        },
      };
    },
    async addPeer(url: string) {
      await checkPeerAddress(ctx, url);
      return ctx.network ? ctx.network.addPeer(url) : false;
    },
    async removePeer(url: string) {
      await checkPeerAddress(ctx, url);
      return ctx.network ? ctx.network.removePeer(url) : false;
    },
  };
}

async function checkPeerAddress(ctx: ApiContext, url: string): Promise<void> {
  try {
    await ctx.parsePeerAddress(url);
  } catch (e) {
    throw invalidParams(`invalid argument 0 (url): ${(e as Error).message}`);
  }
}

