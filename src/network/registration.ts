// Governance of `npm run network`, done on node 1 from the funded account it holds unlocked, in the
// order of Venachain's scripts (deploy-system-contract.sh, add-node.sh, update_to_consensus_node.sh):
// the account becomes super admin and grants itself chain admin, every node is added as an observer,
// then the first V are promoted to consensus. Node 1 is registered too: it is the validator the
// genesis names, and a record is what lets the others' hosts admit and dial it. Only what is not
// there yet is sent, so a later run registers just the nodes it added.
import type { ChainClient } from '../../generated/client/index.ts';
import { callSystem, systemCall, systemCallGas, systemOutcome, waitForReceipt, type SystemCall } from '../client/system-contracts.ts';
import { NODE_STATUS, NODE_TYPE } from '../exec/native/system-state.ts';
import { toQuantity } from '../client/quantity.ts';
import { NETWORK_HOST, type NodeSlot } from './layout.ts';

/** The calls that bring node 1's chain to the network's governance; empty when it is there. */
async function missingCalls(client: ChainClient, from: string, nodes: readonly NodeSlot[], validators: number): Promise<SystemCall[]> {
  const calls: SystemCall[] = [];
  const roles = await callSystem(client, systemCall('UserManagement', 'getRolesByAddress', from));
  if (!roles.includes('SUPER_ADMIN')) calls.push(systemCall('UserManagement', 'setSuperAdmin'));
  if (!roles.includes('CHAIN_ADMIN')) calls.push(systemCall('UserManagement', 'addChainAdminByAddress', from));
  const records = new Map(((await callSystem(client, systemCall('NodeManagement', 'getAllNodes'))).data ?? []).map((r) => [r.name, r]));
  for (const n of nodes) {
    if (records.has(n.name)) continue;
    const record = {
      name: n.name,
      owner: from,
      desc: `npm run network node ${n.index}`,
      type: NODE_TYPE.observer,
      status: NODE_STATUS.normal,
      externalIP: NETWORK_HOST,
      internalIP: NETWORK_HOST,
      publicKey: n.key.id,
      rpcPort: n.httpPort,
      p2pPort: n.p2pPort,
    };
    calls.push(systemCall('NodeManagement', 'add', JSON.stringify(record)));
  }
  for (const n of nodes.slice(0, validators)) {
    if (records.get(n.name)?.type !== NODE_TYPE.consensus) calls.push(systemCall('NodeManagement', 'update', n.name, JSON.stringify({ type: NODE_TYPE.consensus })));
  }
  return calls;
}

/**
 * Registers what is missing and waits for it to be mined. The calls go out at once, in nonce order
 * from one sender, so they run in that order, most in one block; any failure is thrown with the
 * contract's reason.
 */
export async function registerNetwork(client: ChainClient, from: string, nodes: readonly NodeSlot[], validators: number): Promise<number> {
  const calls = await missingCalls(client, from, nodes, validators);
  const hashes: string[] = [];
  for (const call of calls) hashes.push(await client.eth.sendTransaction({ from, to: call.to, data: call.data, gas: toQuantity(systemCallGas(call)) }));
  for (const [i, call] of calls.entries()) {
    const outcome = await systemOutcome(client, call, await waitForReceipt(client, hashes[i]!));
    if (!outcome.ok) throw new Error(`${call.contract}.${call.method} failed on node 1: ${outcome.reason}`);
  }
  return calls.length;
}
