// --unlock / --password (geth's flags): keystore accounts unlocked at start for the life of the
// process, as the dev chain unlocks its dev account. `npm run network` starts its first node so,
// with the network's funded account, which that node then signs for (eth_sendTransaction).
import { readFileSync } from 'node:fs';
import type { Keystore } from '../accounts/keystore.ts';
import { ConfigError } from './config.ts';
import { fileErrorMessage, isFileError } from '../util/file-errors.ts';

/** geth's reading of a password file: one password a line; accounts beyond the last line take the last. */
function passwords(file: string | undefined): string[] {
  if (file === undefined) return [''];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (isFileError(e)) throw new ConfigError(`--password: cannot read ${fileErrorMessage(e)}`);
    throw e;
  }
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

/** Unlocks each account until the node stops; a missing key file or a wrong password is the operator's to fix (ConfigError). */
export async function unlockAccounts(keystore: Keystore, addresses: readonly string[], passwordFile: string | undefined): Promise<void> {
  const list = passwords(passwordFile);
  await Promise.all(
    addresses.map(async (address, i) => {
      if (!keystore.has(address)) throw new ConfigError(`--unlock: the keystore ${keystore.dir} holds no key file for ${address}`);
      try {
        await keystore.unlock(address, list[Math.min(i, list.length - 1)]!, Infinity);
      } catch (e) {
        throw new ConfigError(`--unlock ${address}: ${(e as Error).message}`);
      }
    }),
  );
}
