// The node's secp256k1 identity (geth's `nodekey` file: hex private key). Its public key is the
// node id in the enode URL, and its address is this node's validator address.
import { existsSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { addressOfPublicKey, publicKeyOf, randomPrivateKey } from './secp256k1.ts';
import { bytesToHex, hexToBytes } from '../util/hex.ts';

export interface NodeKey {
  readonly privateKey: Uint8Array;
  /** 64-byte uncompressed public key: the enode id */
  readonly publicKey: Uint8Array;
  readonly address: Uint8Array;
  readonly id: string;
}

export function nodeKeyFrom(privateKey: Uint8Array): NodeKey {
  const publicKey = publicKeyOf(privateKey);
  return { privateKey, publicKey, address: addressOfPublicKey(publicKey), id: bytesToHex(publicKey).slice(2) };
}

export function loadOrCreateNodeKey(datadir: string): NodeKey {
  const path = join(datadir, 'nodekey');
  if (existsSync(path)) {
    const hex = readFileSync(path, 'utf8').trim();
    if (!/^(0x)?[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`${path} does not hold a 32-byte hex private key`);
    return nodeKeyFrom(hexToBytes(hex));
  }
  const key = randomPrivateKey();
  const tmp = path + '.tmp';
  writeFileSync(tmp, bytesToHex(key).slice(2), { mode: 0o600 });
  renameSync(tmp, path);
  return nodeKeyFrom(key);
}

export function enodeUrl(key: NodeKey, host: string, port: number): string {
  return `enode://${key.id}@${host}:${port}`;
}
