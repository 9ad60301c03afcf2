// Who signs the operator CLI's transactions: an account the node holds unlocked (eth_sendTransaction;
// --from, or the node's first account), or a keystore v3 file decrypted here and signed here
// (eth_sendRawTransaction, with the nonce, gas price and chain id the node reports), so that the key
// never reaches the node.
import { readFileSync } from 'node:fs';
import { BadKeyFile, decryptKey, WrongPassword, type KeyFileV3 } from '../accounts/keystore-v3.ts';
import { signLegacyTx } from '../accounts/signing.ts';
import { addressOf } from '../crypto/secp256k1.ts';
import { makeTxCommon } from '../tx/common.ts';
import { bytesToHex, hexToBytes } from '../util/hex.ts';
import { fileErrorMessage, isFileError } from '../util/file-errors.ts';
import type { ChainClient } from '../../generated/client/index.ts';
import { fromQuantity } from '../client/quantity.ts';
import { sendSystem, systemCallGas, systemOutcome, waitForReceipt, type SystemCall, type SystemOutcome } from '../client/system-contracts.ts';
import { readPassword } from './password.ts';

export interface Sender {
  /** lowercase 0x hex */
  readonly address: string;
  /** Sends the call as a transaction, waits for it to be mined, reads the outcome. */
  send(call: SystemCall): Promise<SystemOutcome>;
}

export interface SenderOptions {
  from?: string;
  keyfile?: string;
  passwordFile?: string;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export async function senderFor(client: ChainClient, o: SenderOptions): Promise<Sender> {
  if (o.keyfile !== undefined) {
    if (o.from !== undefined) throw new Error('give --from or --keyfile, not both');
    return keyFileSender(client, o.keyfile, o.passwordFile);
  }
  if (o.passwordFile !== undefined) throw new Error('--password-file goes with --keyfile');
  let from = o.from;
  if (from === undefined) {
    from = (await client.eth.accounts())[0];
    if (from === undefined) throw new Error('the node holds no account to send from: give --from ADDRESS (an account the node has unlocked) or --keyfile PATH');
  } else if (!ADDRESS.test(from)) throw new Error(`--from: not an address (0x and 40 hex digits): ${JSON.stringify(from)}`);
  const address = from.toLowerCase();
  return { address, send: (call) => sendSystem(client, call, { from: address }) };
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if (isFileError(e)) throw new Error(`cannot read the ${what} ${fileErrorMessage(e)}`);
    throw e;
  }
}

async function keyFileSender(client: ChainClient, path: string, passwordFile: string | undefined): Promise<Sender> {
  let file: KeyFileV3;
  try {
    file = JSON.parse(readText(path, 'key file')) as KeyFileV3;
  } catch (e) {
    if (e instanceof SyntaxError) throw new Error(`the key file ${path} is not JSON: ${e.message}`);
    throw e;
  }
  // geth's rule: the password is the file's first line
  const password = passwordFile !== undefined ? readText(passwordFile, 'password file').split(/\r?\n/)[0]! : await readPassword(`password for ${path}: `);
  let key: Uint8Array;
  try {
    key = await decryptKey(file, password);
  } catch (e) {
    if (e instanceof WrongPassword || e instanceof BadKeyFile) throw new Error(`key file ${path}: ${e.message}`);
    throw e;
  }
  const address = bytesToHex(addressOf(key));
  return {
    address,
    async send(call) {
      const [nonce, gasPrice, chainId] = await client.batch((api) => [api.eth.getTransactionCount(address, 'pending'), api.eth.gasPrice(), api.eth.chainId()]);
      const tx = signLegacyTx(
        { nonce: fromQuantity(nonce), gasPrice: fromQuantity(gasPrice), gasLimit: systemCallGas(call), to: hexToBytes(call.to), value: 0n, data: hexToBytes(call.data) },
        key,
        makeTxCommon(fromQuantity(chainId)),
      );
      const hash = await client.eth.sendRawTransaction(bytesToHex(tx.serialize()));
      return systemOutcome(client, call, await waitForReceipt(client, hash));
    },
  };
}
