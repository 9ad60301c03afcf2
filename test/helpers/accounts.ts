// Shared by the accounts tests: key files with a cheap scrypt cost, importing a known key into a
// node's keystore, and waiting for a receipt.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Wallet, encryptKeystoreJson } from 'ethers';
import { mined, type TestNode } from './node.ts';

/** A v3 key file written by ethers with a cheap scrypt cost (its default costs ~0.5 s each way). */
export function cheapKeyFile(w: { address: string; privateKey: string }, password: string): Promise<string> {
  return encryptKeystoreJson({ address: w.address, privateKey: w.privateKey }, password, { scrypt: { N: 1024 } });
}

/** Puts a key file for `privateKey` into the node's keystore folder; returns the 0x-lowercase address. */
export async function importKey(node: TestNode, privateKey: string, password: string): Promise<string> {
  const w = new Wallet(privateKey);
  writeFileSync(join(node.dir, 'keystore', `imported--${w.address.slice(2).toLowerCase()}`), await cheapKeyFile(w, password));
  return w.address.toLowerCase();
}

export { mined };
