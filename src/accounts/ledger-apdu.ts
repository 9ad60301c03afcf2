// The three Ledger Ethereum-app commands the node needs, encoded and parsed here rather than with
// @ledgerhq/hw-app-eth (77 packages, 32 MB): GET APP CONFIGURATION, GET ETH PUBLIC ADDRESS and
// SIGN ETH TRANSACTION (legacy, EIP-155). Layouts follow LedgerHQ app-ethereum's doc/ethapp.adoc.
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/keccak.ts';
import { bigIntToBytes, bytesToHex } from '../util/hex.ts';

const CLA = 0xe0;
const INS_GET_ADDRESS = 0x02;
const INS_SIGN_TX = 0x04;
const INS_APP_CONFIGURATION = 0x06;
const P1_FIRST_CHUNK = 0x00;
const P1_MORE_CHUNKS = 0x80;
/** Data bytes per SIGN chunk: hw-app-eth's size, which every Ledger model accepts. */
const CHUNK = 150;

export const HARDENED = 0x8000_0000;

/** m/44'/60'/0'/0/i, the standard (BIP-44, Ethereum) path of account i. */
export function accountPath(i: number): number[] {
  return [44 + HARDENED, 60 + HARDENED, 0 + HARDENED, 0, i];
}

export function formatPath(path: number[]): string {
  return 'm/' + path.map((n) => (n >= HARDENED ? `${n - HARDENED}'` : String(n))).join('/');
}

function pathBytes(path: number[]): Uint8Array {
  const out = Buffer.alloc(1 + 4 * path.length);
  out[0] = path.length;
  path.forEach((n, i) => out.writeUInt32BE(n, 1 + 4 * i));
  return out;
}

function apdu(ins: number, p1: number, p2: number, data: Uint8Array): Buffer {
  if (data.length > 255) throw new Error('APDU data longer than 255 bytes');
  return Buffer.concat([Buffer.from([CLA, ins, p1, p2, data.length]), data]);
}

export function appConfigurationApdu(): Buffer {
  return apdu(INS_APP_CONFIGURATION, 0x00, 0x00, new Uint8Array(0));
}

/** P1 0x00: return the address without asking on screen; P2 0x00: no chain code. */
export function addressApdu(path: number[]): Buffer {
  return apdu(INS_GET_ADDRESS, 0x00, 0x00, pathBytes(path));
}

/**
 * The SIGN ETH TRANSACTION chunks for an unsigned EIP-155 legacy transaction, RLP of
 * [nonce, gasPrice, gas, to, value, data, chainId, 0, 0]. The first chunk starts with the path.
 * Like hw-app-eth, a chunk never ends inside the trailing [chainId, 0, 0] items: the app decides
 * from the bytes it has seen whether the transaction is EIP-155, and a split there confuses it.
 */
export function signTxApdus(path: number[], unsignedRlp: Uint8Array, chainId: bigint): Buffer[] {
  const tail = RLP.encode(bigIntToBytes(chainId)).length + 2;
  const tailStart = unsignedRlp.length - tail;
  const head = pathBytes(path);
  const out: Buffer[] = [];
  let offset = 0;
  while (offset < unsignedRlp.length) {
    const first = offset === 0;
    let size = Math.min(first ? CHUNK - head.length : CHUNK, unsignedRlp.length - offset);
    if (offset + size > tailStart) size = unsignedRlp.length - offset;
    const chunk = unsignedRlp.subarray(offset, offset + size);
    out.push(apdu(INS_SIGN_TX, first ? P1_FIRST_CHUNK : P1_MORE_CHUNKS, 0x00, first ? Buffer.concat([head, chunk]) : chunk));
    offset += size;
  }
  return out;
}

/** A status word other than 0x9000, with what it means for the user. */
export class LedgerStatusError extends Error {
  constructor(readonly status: number, action: string) {
    super(`Ledger: ${action} failed: ${statusMeaning(status)} (status 0x${status.toString(16).padStart(4, '0')})`);
  }
}

function statusMeaning(sw: number): string {
  switch (sw) {
    case 0x6985:
      return 'denied by the user on the device';
    case 0x6a80:
      return 'the device refused the data (transactions with data need "Blind signing" enabled in the Ethereum app)';
    case 0x6d00:
    case 0x6e00:
    case 0x6e01:
    case 0x6511:
      return 'the Ethereum app is not open on the device';
    case 0x5515:
    case 0x6982:
    case 0x6b0c:
      return 'the device is locked';
    default:
      return 'the device answered with an error';
  }
}

/** Splits the status word off a response; throws LedgerStatusError unless it is 0x9000. */
export function responseData(response: Uint8Array, action: string): Uint8Array {
  if (response.length < 2) throw new Error(`Ledger: ${action} failed: short response`);
  const sw = (response[response.length - 2]! << 8) | response[response.length - 1]!;
  if (sw !== 0x9000) throw new LedgerStatusError(sw, action);
  return response.subarray(0, response.length - 2);
}

/** GET APP CONFIGURATION → "major.minor.patch" (byte 0 is a flags byte). */
export function parseAppConfiguration(data: Uint8Array): string {
  if (data.length < 4) throw new Error('Ledger: malformed app configuration response');
  return `${data[1]}.${data[2]}.${data[3]}`;
}

/**
 * GET ETH PUBLIC ADDRESS → the address, as 0x-lowercase hex. The answer is
 * len ‖ uncompressed public key ‖ len ‖ address as ASCII hex; the address is derived from the
 * public key and must match the one the device printed.
 */
export function parseAddress(data: Uint8Array): string {
  const keyLen = data[0] ?? 0;
  const publicKey = data.subarray(1, 1 + keyLen);
  const addrLen = data[1 + keyLen] ?? 0;
  const ascii = Buffer.from(data.subarray(2 + keyLen, 2 + keyLen + addrLen)).toString('latin1');
  if (keyLen !== 65 || publicKey[0] !== 0x04 || addrLen !== 40) throw new Error('Ledger: malformed address response');
  const address = bytesToHex(keccak256(publicKey.subarray(1)).subarray(12));
  if (address !== '0x' + ascii.toLowerCase()) throw new Error('Ledger: address response does not match its public key');
  return address;
}

/**
 * SIGN ETH TRANSACTION → v (1 byte) ‖ r ‖ s. The app returns v = chainId·2 + 35 + parity, cut to
 * one byte (chain 300: 635 → 123 or 124), so the parity is (v − chainId·2 − 35) mod 256.
 */
export function parseTxSignature(data: Uint8Array, chainId: bigint): { recid: number; r: Uint8Array; s: Uint8Array } {
  if (data.length !== 65) throw new Error('Ledger: malformed signature response');
  const recid = Number((BigInt(data[0]!) - (chainId * 2n + 35n)) & 0xffn);
  if (recid > 1) throw new Error(`Ledger: signature has an unexpected v byte 0x${data[0]!.toString(16)} for chain ${chainId}`);
  return { recid, r: data.slice(1, 33), s: data.slice(33, 65) };
}
