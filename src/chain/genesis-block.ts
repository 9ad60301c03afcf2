// Builds block 0 from a genesis: alloc state into the trie, the istanbul extra naming the first
// validators, and a header fixed by the genesis content alone (same file → same hash anywhere).
import { Account, Address } from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';
import type { Genesis } from './genesis.ts';
import type { OverlayTrieDB } from '../state/trie-db.ts';
import { newStateManager } from '../state/state-manager.ts';
import { hexToBytes, padLeft } from '../util/hex.ts';
import { EMPTY_TRIE_ROOT, EMPTY_UNCLES_HASH, headerHash, type Header } from './header.ts';
import { encodeExtra, ISTANBUL_DIGEST } from './istanbul-extra.ts';
import type { BlockRecord } from './types.ts';

export async function buildGenesisBlock(genesis: Genesis, common: Common, trieDb: OverlayTrieDB): Promise<BlockRecord> {
  const state = newStateManager(trieDb, common);
  await state.checkpoint();
  for (const [addrHex, acc] of genesis.alloc) {
    const address = new Address(hexToBytes(addrHex));
    await state.putAccount(address, new Account(acc.nonce, acc.balance));
    if (acc.code && acc.code.length > 0) await state.putCode(address, acc.code);
    for (const [k, v] of acc.storage) await state.putStorage(address, padLeft(k, 32), v);
  }
  await state.commit();
  const header: Header = {
    parentHash: new Uint8Array(32),
    sha3Uncles: EMPTY_UNCLES_HASH,
    miner: new Uint8Array(20),
    stateRoot: await state.getStateRoot(),
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: 1n,
    number: 0n,
    gasLimit: genesis.gasLimit,
    gasUsed: 0n,
    timestamp: genesis.timestamp,
    extraData: encodeExtra({ vanity: genesis.extraData, validators: genesis.validators, seal: new Uint8Array(0), committedSeals: [] }),
    mixHash: ISTANBUL_DIGEST,
    nonce: new Uint8Array(8),
    baseFeePerGas: 0n,
  };
  return { hash: headerHash(header), header, txs: [], senders: [] };
}
