// The typed-data parameter of eth_signTypedData_v4 and personal_signTypedData: an EIP-712 object or
// its JSON text (MetaMask sends the text, viem and ethers the object), turned into the digest to sign.
import { TypedDataError, typedDataDigest } from '../crypto/typed-data.ts';
import { invalidParams } from './errors.ts';

export function typedDataDigestParam(value: unknown, index: number): Uint8Array {
  const which = `invalid argument ${index} (typedData)`;
  let data = value;
  if (typeof value === 'string') {
    try {
      data = JSON.parse(value);
    } catch (e) {
      throw invalidParams(`${which}: a string must be the typed data's JSON text: ${(e as Error).message}`);
    }
  }
  try {
    return typedDataDigest(data);
  } catch (e) {
    if (e instanceof TypedDataError) throw invalidParams(`${which}: ${e.message}`);
    throw e;
  }
}
