// A Solidity contract that emits logs on demand, and a raw-transaction sender for tests of logs,
// filters and subscriptions. The anonymous events make a log's topics exactly what the test
// passes ([a, b] or [a]), so the spec's topic-matching table can be checked row by row.
import { Interface, Transaction, Wallet } from 'ethers';
import { compile } from './solc.ts';
import { mined, testKey, type TestNode } from './node.ts';

export const EMITTER_SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Emitter {
  event Pair(bytes32 indexed a, bytes32 indexed b) anonymous;
  event One(bytes32 indexed a) anonymous;
  event Ping(address indexed from, uint256 value);
  event Blob(bytes data);
  function pair(bytes32 a, bytes32 b) external { emit Pair(a, b); }
  function one(bytes32 a, uint256 times) external { for (uint256 i = 0; i < times; i++) emit One(a); }
  function ping(uint256 v) external { emit Ping(msg.sender, v); }
  function blob(uint256 size) external { emit Blob(new bytes(size)); }
}`;

export const Emitter = compile(EMITTER_SOURCE).Emitter!;
export const emitterAbi = new Interface(Emitter.abi);

/** Signs and sends raw transactions from one test key, tracking its nonce locally. */
export class Sender {
  readonly wallet: Wallet;
  nonce = 0;

  constructor(
    private readonly node: TestNode,
    keyIndex = 0,
  ) {
    this.wallet = new Wallet(testKey(keyIndex));
  }

  /** Signs a transaction with the next nonce (or the given one) without sending it. */
  async sign(to: string | null, data: string, nonce = this.nonce++, gasLimit = 3_000_000n): Promise<string> {
    return this.wallet.signTransaction(Transaction.from({ to, data, nonce, gasLimit, gasPrice: 0n, chainId: 300, type: 0, value: 0n }));
  }

  async send(to: string | null, data: string): Promise<string> {
    return this.node.rpc('eth_sendRawTransaction', [await this.sign(to, data)]);
  }

  /** Sends and waits for the receipt. */
  async exec(to: string | null, data: string): Promise<any> {
    return mined(this.node, await this.send(to, data));
  }

  async deployEmitter(): Promise<string> {
    return (await this.exec(null, Emitter.bytecode)).contractAddress;
  }

  call(address: string, fn: string, args: unknown[]): Promise<any> {
    return this.exec(address, emitterAbi.encodeFunctionData(fn, args));
  }
}


/** A 32-byte topic from a small number, e.g. topic(0xa) = 0x00…0a. */
export function topic(n: number): string {
  return '0x' + n.toString(16).padStart(64, '0');
}

export { mined };
