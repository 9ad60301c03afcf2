// State and event host functions (Venachain's life/resolver), at Venachain's flat gas each. Keys
// and values are arbitrary bytes (their layout in the account's storage: ../storage.ts).
import { keccak_256 } from '@noble/hashes/sha3.js';
import { u32, type HostTable } from './context.ts';

export const stateHost: HostTable = {
  setState(ctx, key, keyLen, value, valueLen) {
    ctx.useGas(5132n);
    ctx.storage.set(ctx.bytes(u32(key), u32(keyLen)).slice(), ctx.bytes(u32(value), u32(valueLen)).slice());
  },
  // copies the value when it fits valueLen; a longer value is not copied (Venachain's rule)
  getState(ctx, key, keyLen, value, valueLen) {
    ctx.useGas(4503n);
    const v = ctx.storage.get(ctx.bytes(u32(key), u32(keyLen)));
    if (v.length <= u32(valueLen)) ctx.write(u32(value), v);
    return 0;
  },
  getStateSize(ctx, key, keyLen) {
    ctx.useGas(4573n);
    return ctx.storage.get(ctx.bytes(u32(key), u32(keyLen))).length;
  },
  // one log at the contract's address: topics [keccak256(topic)], data as given
  emitEvent(ctx, topic, topicLen, data, dataLen) {
    ctx.useGas(300_000n);
    ctx.emit([keccak_256(ctx.bytes(u32(topic), u32(topicLen)))], ctx.bytes(u32(data), u32(dataLen)).slice());
  },
};
