// Calling the system contracts of a test node through JSON-RPC, by their signature tables: a
// transaction signed by a key (gas price 0, so an unfunded key can send) or by an account the node
// has unlocked, waited for; an eth_call decoded as the method returns.
import { Transaction, Wallet } from 'ethers';
import { mined, NODE_KEY, testAddress, testGenesis, type TestNode } from './node.ts';
import { decodeReturn, encodeArg, encodeCall, type ParamType } from '../../src/codec/venachain-call.ts';
import type { ContractAbi } from '../../src/codec/system-contracts-abi.ts';
import { bytesToHex, hexToBytes } from '../../src/util/hex.ts';
import { systemGenesisAlloc, type RoleName } from '../../src/exec/native/system-state.ts';

export type SysArg = string | bigint | number | object;

/** Call data of `abi[method](...args)`, each argument encoded by its parameter type. */
export function sysCallData(abi: ContractAbi, method: string, args: readonly SysArg[]): Uint8Array {
  const sig = abi[method];
  if (sig === undefined) throw new Error(`no method ${method}`);
  return encodeCall(method, args.map((a, i) => encodeArg((sig.params[i] ?? 'string') as ParamType, a)));
}

/** Signs `data` to `to` with `key` (the nonce from the pool) and waits for the receipt. */
export async function sysSendAs(node: TestNode, key: string, to: string, data: Uint8Array, gasLimit = 200_000n): Promise<any> {
  const wallet = new Wallet(key);
  const [nonce, chainId] = await Promise.all([node.rpc('eth_getTransactionCount', [wallet.address, 'pending']), node.rpc('eth_chainId')]);
  const raw = await wallet.signTransaction(Transaction.from({ to, data: bytesToHex(data), gasLimit, gasPrice: 0n, chainId: BigInt(chainId), nonce: Number(nonce) }));
  return mined(node, await node.rpc('eth_sendRawTransaction', [raw]));
}

/** Sends `data` to `to` from an account the node has unlocked and waits for the receipt. */
export async function sysSendFrom(node: TestNode, from: string, to: string, data: Uint8Array): Promise<any> {
  return mined(node, await node.rpc('eth_sendTransaction', [{ from, to, data: bytesToHex(data), gas: '0x30d40' }]));
}

/** eth_call of `abi[method](...args)`: { value } decoded as the method returns, or { error } (the revert reason in its message). */
export async function sysQuery(
  node: TestNode,
  to: string,
  abi: ContractAbi,
  method: string,
  args: readonly SysArg[] = [],
  o: { from?: string; block?: string } = {},
): Promise<{ value?: bigint | string; error?: { message: string } }> {
  const res = await node.raw('eth_call', [{ from: o.from, to, data: bytesToHex(sysCallData(abi, method, args)) }, o.block ?? 'latest']);
  if (res.error) return { error: res.error };
  return { value: decodeReturn(2n, abi[method]!.returns, hexToBytes(res.result)) };
}

/** A test genesis (testGenesis) whose UserManagement storage gives test key i the roles `roles[i]`. */
export async function sysGenesisWithRoles(roles: Record<number, RoleName[]>): Promise<object> {
  const genesis = testGenesis(NODE_KEY) as { alloc: Record<string, object> };
  const governance = await systemGenesisAlloc(async (state) => {
    for (const [i, names] of Object.entries(roles)) for (const role of names) await state.roles.grant(testAddress(Number(i)), role);
  });
  return { ...genesis, alloc: { ...genesis.alloc, ...governance } };
}
