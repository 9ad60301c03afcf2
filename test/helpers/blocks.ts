// Chains and blocks for the import and sync tests (and the sync bench): a validator that seals a
// given number of blocks of transfers, and blocks altered and sealed again as a hostile peer would.
import { decodeBlock, encodeBlock } from '../../src/chain/block-codec.ts';
import { headerHash, headerSigHash, type Header } from '../../src/chain/header.ts';
import { COMMIT_MSG_CODE, decodeExtra, encodeExtra } from '../../src/chain/istanbul-extra.ts';
import { signHash } from '../../src/crypto/secp256k1.ts';
import { keccak256 } from '../../src/crypto/keccak.ts';
import { concatBytes, hexToBytes } from '../../src/util/hex.ts';
import { createLegacyTx } from '@ethereumjs/tx';
import { makeTxCommon } from '../../src/tx/common.ts';
import { NODE_KEY, testGenesis, testKey, type TestNode } from './node.ts';
import { enodeUrl, nodeKeyFrom } from '../../src/crypto/node-key.ts';

/** Where the transfers of sealTransferBlocks go. */
export const SINK = '0x' + '5'.repeat(40);

/**
 * The test genesis (validator NODE_KEY, the first `accounts` test keys funded, period 0) with the
 * validator's enode on port 0: no node dials it from the genesis (16791 may be another test's node);
 * multi-process tests and benches give each node its peers.
 */
export function undialledGenesis(accounts: number): object {
  const genesis = testGenesis(NODE_KEY, accounts, 0) as { config: { istanbul: object } };
  return { ...genesis, config: { ...genesis.config, istanbul: { ...genesis.config.istanbul, firstValidatorNode: enodeUrl(nodeKeyFrom(VALIDATOR_KEY), '127.0.0.1', 0) } } };
}

/** The test genesis' validator key (NODE_KEY) as bytes. */
export const VALIDATOR_KEY = hexToBytes('0x' + NODE_KEY);

/** A 65-byte istanbul seal of `hash`. */
export function seal(hash: Uint8Array, key: Uint8Array): Uint8Array {
  const { rs, recid } = signHash(hash, key);
  return concatBytes(rs, new Uint8Array([recid]));
}

/** What a committed seal signs: keccak(hash ‖ COMMIT_MSG_CODE). */
export function commitDigest(hash: Uint8Array): Uint8Array {
  return keccak256(concatBytes(hash, new Uint8Array([COMMIT_MSG_CODE])));
}

/** The block with `change` applied to its header and sealed again: proposer `proposer` (default the validator), committed seals by `committers` (default the proposer). */
export function resealed(encoded: Uint8Array, change: (h: Header) => void, o: { proposer?: Uint8Array; committers?: Uint8Array[]; validators?: Uint8Array[]; txs?: Uint8Array[] } = {}): Uint8Array {
  const block = decodeBlock(encoded);
  const header = { ...block.header };
  change(header);
  const extra = decodeExtra(header.extraData);
  const validators = o.validators ?? extra.validators;
  const proposer = o.proposer ?? VALIDATOR_KEY;
  header.extraData = encodeExtra({ vanity: extra.vanity, validators, seal: new Uint8Array(0), committedSeals: [] });
  const proposerSeal = seal(headerSigHash(header), proposer);
  header.extraData = encodeExtra({ vanity: extra.vanity, validators, seal: proposerSeal, committedSeals: [] });
  const digest = commitDigest(headerHash(header));
  header.extraData = encodeExtra({ vanity: extra.vanity, validators, seal: proposerSeal, committedSeals: (o.committers ?? [proposer]).map((k) => seal(digest, k)) });
  return encodeBlock(header, o.txs ?? block.txs);
}

/** The block with its committed seals replaced (the hash does not cover them: the proposer seal stays valid). */
export function withCommittedSeals(encoded: Uint8Array, seals: (current: Uint8Array[]) => Uint8Array[]): Uint8Array {
  const { header, txs } = decodeBlock(encoded);
  const extra = decodeExtra(header.extraData);
  return encodeBlock({ ...header, extraData: encodeExtra({ ...extra, committedSeals: seals(extra.committedSeals) }) }, txs);
}

const txCommons = new Map<bigint, ReturnType<typeof makeTxCommon>>();

/** A legacy transfer of 1 wei to SINK, signed with the native secp256k1 (tx.sign()'s pure-JS signing took ~1 ms). */
export function signedTransfer(key: Uint8Array, nonce: bigint, chainId: bigint): Uint8Array {
  const tx = createLegacyTx({ nonce, gasPrice: 0n, gasLimit: 21000n, to: hexToBytes(SINK), value: 1n }, { common: txCommons.get(chainId) ?? txCommons.set(chainId, makeTxCommon(chainId)).get(chainId)! });
  const { rs, recid } = signHash(tx.getHashedMessageToSign(), key);
  return tx.addSignature(BigInt(recid), rs.slice(0, 32), rs.slice(32), true).serialize();
}

/**
 * Has `node` (the validator of a period-0 chain whose first `txs` test keys are funded, at nonce
 * 0) seal `blocks` blocks of `txs` transfers each, one from each key: the transfers of a block are
 * submitted together, so the sealer takes them into one block.
 */
export async function sealTransferBlocks(node: TestNode, blocks: number, txs: number): Promise<void> {
  const keys = Array.from({ length: txs }, (_, i) => hexToBytes(testKey(i)));
  const { core } = node;
  for (let n = 0; n < blocks; n++) {
    const sealed = new Promise<void>((resolve) => {
      const off = core.events.onBlock(() => {
        off();
        resolve();
      });
    });
    await Promise.all(keys.map((key) => core.submitRawTransaction(signedTransfer(key, BigInt(n), core.config.chainId))));
    await sealed;
  }
}
