// The call object of eth_call / eth_estimateGas (and send objects) → a core CallRequest.
import type { CallRequest } from '../exec/call.ts';
import { hexToBytes } from '../util/hex.ts';
import { invalidParams } from './errors.ts';

export interface CallObject {
  from?: string | null;
  to?: string | null;
  gas?: string | null;
  gasPrice?: string | null;
  value?: string | null;
  data?: string | null;
  input?: string | null;
}

export function toCallRequest(o: CallObject): CallRequest {
  if (o.data != null && o.input != null && o.data.toLowerCase() !== o.input.toLowerCase()) {
    throw invalidParams('both "data" and "input" are set and differ; send one of them');
  }
  const payload = o.input ?? o.data;
  return {
    from: o.from ? hexToBytes(o.from) : undefined,
    to: o.to ? hexToBytes(o.to) : undefined,
    gas: o.gas != null ? BigInt(o.gas) : undefined,
    gasPrice: o.gasPrice != null ? BigInt(o.gasPrice) : undefined,
    value: o.value != null ? BigInt(o.value) : undefined,
    data: payload ? hexToBytes(payload) : undefined,
  };
}
