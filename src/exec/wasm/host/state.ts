// State and event host functions (Venachain's life/resolver), at Venachain's flat gas each plus
// the EVM's rates for the lengths a contract chooses (W10: a key is hashed, a value takes a slot a
// word once it is 32 bytes or more, log data is kept). Keys and values are arbitrary bytes (their
// layout in the account's storage: ../storage.ts).
import { keccak_256 } from '@noble/hashes/sha3.js';
import { extraSlots, LENGTH_GAS, u32, words, type HostTable } from './context.ts';

export const stateHost: HostTable = {
  setState(ctx, key, keyLen, value, valueLen) {
    const k = u32(keyLen);
    const n = u32(valueLen);
    ctx.useGas(5132n + words(k) * LENGTH_GAS.hashWord + words(n) * LENGTH_GAS.copyWord + extraSlots(n) * LENGTH_GAS.storeSlot);
    ctx.storage.set(ctx.bytes(u32(key), k).slice(), ctx.bytes(u32(value), n).slice());
  },
  // copies the value when it fits valueLen; a longer value is not copied (Venachain's rule)
  getState(ctx, key, keyLen, value, valueLen) {
    ctx.useGas(4503n + words(u32(keyLen)) * LENGTH_GAS.hashWord);
    const v = ctx.storage.get(ctx.bytes(u32(key), u32(keyLen)));
    ctx.useGas(extraSlots(v.length) * LENGTH_GAS.loadSlot + words(v.length) * LENGTH_GAS.copyWord);
    if (v.length <= u32(valueLen)) ctx.write(u32(value), v);
    return 0;
  },
  getStateSize(ctx, key, keyLen) {
    ctx.useGas(4573n + words(u32(keyLen)) * LENGTH_GAS.hashWord);
    const v = ctx.storage.get(ctx.bytes(u32(key), u32(keyLen)));
    ctx.useGas(extraSlots(v.length) * LENGTH_GAS.loadSlot);
    return v.length;
  },
  // one log at the contract's address: topics [keccak256(topic)], data as given
  emitEvent(ctx, topic, topicLen, data, dataLen) {
    ctx.useGas(300_000n + words(u32(topicLen)) * LENGTH_GAS.hashWord + BigInt(u32(dataLen)) * LENGTH_GAS.logByte);
    ctx.emit([keccak_256(ctx.bytes(u32(topic), u32(topicLen)))], ctx.bytes(u32(data), u32(dataLen)).slice());
  },
};
