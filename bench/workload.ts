// What every node under test gets before it is measured, done through JSON-RPC only so it works the
// same on chain-node, anvil, Hardhat and ganache: senders funded from the node's own dev account
// (signed here for the node's chain id), the view/log contract deployed, and — for eth_getLogs —
// a run of blocks with one log each.
import { makeTxCommon } from '../src/tx/common.ts';
import { signLegacyTx, type TxFields } from '../src/accounts/signing.ts';
import { addressOf } from '../src/crypto/secp256k1.ts';
import { keccak256 } from '../src/crypto/keccak.ts';
import { bytesToHex, hexToBytes } from '../src/util/hex.ts';
import { compile } from '../test/helpers/solc.ts';
import { RpcClient } from './ingest.ts';

/** `get()` returns a storage word; `get(a)` adds its argument (so varied calls never hit a cache); `ping(n)` logs. */
export const BENCH_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Bench {
  uint256 x = 42;
  event Ping(uint256 indexed n);
  function get() external view returns (uint256) { return x; }
  function get(uint256 a) external view returns (uint256) { return x + a; }
  function ping(uint256 n) external { emit Ping(n); }
}`;

const selector = (sig: string) => bytesToHex(keccak256(new TextEncoder().encode(sig)).subarray(0, 4));
export const GET = selector('get()');
export const GET_ARG = selector('get(uint256)');
const PING = selector('ping(uint256)');

/** Sender keys 1…n (their addresses hold nothing on any peer's dev chain). */
export function senderKeys(n: number): Uint8Array[] {
  return Array.from({ length: n }, (_, i) => hexToBytes((i + 1).toString(16).padStart(64, '0')));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls for the receipt (every ms at first, then less often), for at most `timeoutMs`. */
export async function waitReceipt(client: RpcClient, hash: string, timeoutMs = 30_000): Promise<{ status: string; contractAddress: string | null; blockNumber: string }> {
  const t0 = performance.now();
  for (let i = 0; ; i++) {
    const r = await client.call('eth_getTransactionReceipt', [hash]);
    if (r) {
      if (r.status !== '0x1') throw new Error(`transaction ${hash} failed`);
      return r;
    }
    if (performance.now() - t0 > timeoutMs) throw new Error(`no receipt for ${hash} within ${timeoutMs} ms`);
    await sleep(i < 50 ? 1 : 20);
  }
}

export interface Prepared {
  chainId: bigint;
  /** what every transaction of the run pays (a multiple of eth_gasPrice, so base-fee drift never rejects one) */
  gasPrice: bigint;
  senders: Uint8Array[];
  contract?: string;
}

/** Signs transactions of one account with consecutive nonces. */
export class Signer {
  private readonly common;
  constructor(
    private readonly key: Uint8Array,
    chainId: bigint,
    public nonce: bigint,
    private readonly gasPrice: bigint,
  ) {
    this.common = makeTxCommon(chainId);
  }
  sign(f: Omit<TxFields, 'nonce' | 'gasPrice'>): { raw: string; hash: string } {
    const tx = signLegacyTx({ ...f, nonce: this.nonce++, gasPrice: this.gasPrice }, this.key, this.common);
    return { raw: bytesToHex(tx.serialize()), hash: bytesToHex(tx.hash()) };
  }
}

/**
 * Funds `senders` with 1 ether each from `funderKey` and (unless `contract: false`) deploys the
 * bench contract. Checks first that the funder is the node's own first dev account, so a peer that
 * changed its default mnemonic fails loudly instead of running with an empty account.
 */
export async function prepare(url: string, funderKey: Uint8Array, senders: Uint8Array[], opts: { contract: boolean; checkDevAccount: boolean }): Promise<Prepared & { signer: Signer }> {
  const client = new RpcClient(url, 1);
  try {
    const funder = bytesToHex(addressOf(funderKey));
    if (opts.checkDevAccount) {
      const accounts = (await client.call('eth_accounts', [])) as string[];
      if (accounts[0]?.toLowerCase() !== funder) throw new Error(`the node's first dev account is ${accounts[0]}, expected ${funder}`);
    }
    const chainId = BigInt(await client.call('eth_chainId', []));
    const gasPrice = BigInt(await client.call('eth_gasPrice', [])) * 4n;
    const signer = new Signer(funderKey, chainId, BigInt(await client.call('eth_getTransactionCount', [funder, 'pending'])), gasPrice);
    let last = '';
    for (const key of senders) {
      const tx = signer.sign({ gasLimit: 21000n, to: addressOf(key), value: 10n ** 18n, data: new Uint8Array(0) });
      await client.call('eth_sendRawTransaction', [tx.raw]);
      last = tx.hash;
    }
    if (last) await waitReceipt(client, last, 60_000);
    let contract: string | undefined;
    if (opts.contract) {
      const initcode = hexToBytes(compile(BENCH_SOURCE).Bench!.bytecode);
      const tx = signer.sign({ gasLimit: 1_000_000n, value: 0n, data: initcode });
      await client.call('eth_sendRawTransaction', [tx.raw]);
      contract = (await waitReceipt(client, tx.hash)).contractAddress!;
      const check = await client.call('eth_call', [{ to: contract, data: GET }, 'latest']);
      if (BigInt(check) !== 42n) throw new Error(`the deployed contract answered get() with ${check}`);
    }
    return { chainId, gasPrice, senders, contract, signer };
  } finally {
    client.close();
  }
}

/**
 * `blocks` blocks with one log each: one `ping(i)` at a time, each waited for until mined (so an
 * instant-sealing node and an automining one both put it in a block of its own).
 */
export async function makeLogBlocks(url: string, p: Prepared & { signer: Signer }, blocks: number, timeoutMs: number): Promise<{ from: string; to: string }> {
  const client = new RpcClient(url, 1);
  const t0 = performance.now();
  try {
    let from = '';
    let to = '';
    for (let i = 0; i < blocks; i++) {
      if (performance.now() - t0 > timeoutMs) throw new Error(`${i} of ${blocks} log blocks made in ${timeoutMs} ms: too slow to measure eth_getLogs`);
      const tx = p.signer.sign({ gasLimit: 60_000n, to: hexToBytes(p.contract!), value: 0n, data: hexToBytes(PING + i.toString(16).padStart(64, '0')) });
      await client.call('eth_sendRawTransaction', [tx.raw]);
      const r = await waitReceipt(client, tx.hash);
      if (i === 0) from = r.blockNumber;
      to = r.blockNumber;
    }
    if (BigInt(to) - BigInt(from) !== BigInt(blocks - 1)) throw new Error(`the ${blocks} log transactions landed in blocks ${from}…${to}, not one block each`);
    return { from, to };
  } finally {
    client.close();
  }
}

/** One request, checked: the rate rows then measure real answers, not fast JSON-RPC errors. */
export async function checkAnswers(url: string, body: string): Promise<unknown> {
  const client = new RpcClient(url, 1);
  try {
    const r = await client.post(body);
    if (r.error || r.result === undefined) throw new Error(`${body} answered ${JSON.stringify(r).slice(0, 300)}`);
    return r.result;
  } finally {
    client.close();
  }
}
