// The genesis a new datadir gets without --genesis: a dev chain (chainId 300) whose only validator
// is this node and whose one funded account lives in the keystore. Its system contracts start
// governed: the dev account is super admin and chain admin, and this node is a registered
// consensus node (a Venachain genesis starts with nothing registered).
import type { NodeKey } from '../crypto/node-key.ts';
import { enodeUrl } from '../crypto/node-key.ts';
import { DEFAULT_GAS_LIMIT, DEFAULTS } from '../chain/genesis.ts';
import { NODE_STATUS, NODE_TYPE, systemGenesisAlloc } from '../exec/native/system-state.ts';

/** 10^9 ether: plenty for any test, far from overflow. */
const DEV_BALANCE = 10n ** 27n;
/**
 * Most gas one transaction of a dev chain may carry: anvil's and Hardhat's block gas limit. An
 * endless loop at it runs ~1.5 s here (~2e7 gas/s), within --miner.txtimeout.
 */
export const DEV_TX_GAS_LIMIT = 30_000_000n;

/**
 * A dev chain's stored genesis as this version reads it: dev datadirs created before the
 * per-transaction gas limit existed stored none and would get the genesis-file default (1.5e9,
 * ~75 s of an endless loop), so they get what a new dev chain writes.
 */
export function storedDevGenesis(raw: { config?: { txGasLimit?: unknown } }): object {
  if (raw.config?.txGasLimit !== undefined) return raw;
  return { ...raw, config: { ...raw.config, txGasLimit: Number(DEV_TX_GAS_LIMIT) } };
}

/** The name the dev chain registers its node under in NodeManagement. */
export const DEV_NODE_NAME = 'node0';

/** Genesis alloc entries of the system contracts: the dev account governs, this node is registered. */
function devGovernance(key: NodeKey, devAccount: string, p2pPort: number, rpcPort: number): Promise<Record<string, object>> {
  return systemGenesisAlloc(async (state) => {
    await state.roles.grant(devAccount, 'SUPER_ADMIN');
    await state.roles.grant(devAccount, 'CHAIN_ADMIN');
    await state.nodes.put({
      name: DEV_NODE_NAME,
      owner: devAccount.toLowerCase(),
      desc: 'the dev chain node',
      type: NODE_TYPE.consensus,
      status: NODE_STATUS.normal,
      externalIP: '127.0.0.1',
      internalIP: '127.0.0.1',
      publicKey: key.id,
      rpcPort,
      p2pPort,
    });
  });
}

export async function devGenesis(key: NodeKey, devAccount: string, period: number, p2pPort: number, rpcPort: number): Promise<object> {
  return {
    config: {
      chainId: Number(DEFAULTS.chainId),
      interpreter: DEFAULTS.interpreter,
      txGasLimit: Number(DEV_TX_GAS_LIMIT),
      istanbul: { timeout: DEFAULTS.timeout, period, policy: DEFAULTS.policy, firstValidatorNode: enodeUrl(key, '127.0.0.1', p2pPort) },
    },
    timestamp: '0x' + Math.floor(Date.now() / 1000).toString(16),
    extraData: '0x00',
    gasLimit: '0x' + DEFAULT_GAS_LIMIT.toString(16),
    alloc: { [devAccount]: { balance: DEV_BALANCE.toString() }, ...(await devGovernance(key, devAccount, p2pPort, rpcPort)) },
  };
}
