// An emulated Ledger for the contract fixture: personal_openWallet's example opens a Ledger, and a
// USB device is the one true outside boundary (as in test/accounts-ledger.test.ts). It answers the
// two APDUs opening a wallet sends — the Ethereum app's version and account addresses — from keys
// derived from the account index, in the device's real answer formats.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { LedgerTransport, LedgerTransports } from '../../src/accounts/ledger.ts';

const OK = Buffer.from([0x90, 0x00]);
const INS_GET_ADDRESS = 0x02;
const INS_APP_CONFIGURATION = 0x06;
const UNSUPPORTED = Buffer.from([0x6d, 0x00]); // INS not supported

/** The private key the emulated device holds for account index i. */
function keyOf(i: number): Uint8Array {
  return keccak_256(new TextEncoder().encode(`chain-node contract fixture ledger key ${i}`));
}

function answer(apdu: Buffer): Buffer {
  const ins = apdu[1];
  if (ins === INS_APP_CONFIGURATION) return Buffer.concat([Buffer.from([0x00, 1, 10, 3]), OK]);
  if (ins === INS_GET_ADDRESS) {
    // data: count ‖ path (4 bytes each); the last level is the account index
    const data = apdu.subarray(5, 5 + apdu[4]!);
    const index = data.readUInt32BE(data.length - 4);
    const pub = secp256k1.getPublicKey(keyOf(index), false);
    const address = Buffer.from(keccak_256(pub.subarray(1)).subarray(12)).toString('hex');
    return Buffer.concat([Buffer.from([pub.length]), pub, Buffer.from([40]), Buffer.from(address, 'latin1'), OK]);
  }
  return UNSUPPORTED;
}

/** One device at `path` (its HID path: the wallet URL is ledger://<path>). */
export function emulatedLedger(path: string): LedgerTransports {
  return {
    list: async () => [path],
    open: async (p): Promise<LedgerTransport> => {
      if (p !== path) throw new Error(`no device at ${p}`);
      return { exchange: async (apdu) => answer(apdu), close: async () => {} };
    },
  };
}
