// Chain context host functions (Venachain's life/resolver): the block, the transaction, the
// message and accounts, written into the module's memory as Venachain does (addresses 20 bytes,
// hashes and 256-bit amounts 32 bytes big-endian), at Venachain's flat gas each. The block, the
// transaction and the message come with the run; balance, nonce, block hashes and creators are
// read on the main thread (./context.ts).
import { beBytes } from '../../../codec/venachain-call.ts';
import { equalBytes } from '../../../util/hex.ts';
import { u32, type HostTable } from './context.ts';

/** How far back BLOCKHASH (and blockHash) reaches. */
const BLOCK_HASH_WINDOW = 256n;

export const chainContextHost: HostTable = {
  gasPrice(ctx) {
    ctx.useGas(9n);
    return ctx.tx.gasPrice;
  },
  blockHash(ctx, num, ptr) {
    ctx.useGas(25n);
    const n = BigInt(u32(num));
    const current = ctx.tx.number;
    const hash = n >= current || n + BLOCK_HASH_WINDOW < current ? new Uint8Array(32) : ctx.blockHash(n);
    ctx.write(u32(ptr), hash);
  },
  number(ctx) {
    ctx.useGas(9n);
    return ctx.tx.number;
  },
  gasLimit(ctx) {
    ctx.useGas(7n);
    return ctx.tx.gasLimit;
  },
  timestamp(ctx) {
    ctx.useGas(9n);
    return ctx.tx.timestamp;
  },
  coinbase(ctx, ptr) {
    ctx.useGas(27n);
    ctx.write(u32(ptr), ctx.tx.coinbase);
  },
  // the running contract's own balance (Venachain's GetBalance(Address()))
  balance(ctx, ptr) {
    ctx.useGas(1609n);
    ctx.write(u32(ptr), beBytes(ctx.balance(), 32));
  },
  origin(ctx, ptr) {
    ctx.useGas(28n);
    ctx.write(u32(ptr), ctx.tx.origin);
  },
  caller(ctx, ptr) {
    ctx.useGas(35n);
    ctx.write(u32(ptr), ctx.message.caller);
  },
  // 0 when `account` created `contract`, else 1 (Venachain's convention)
  isOwner(ctx, contract, contractLen, account, accountLen) {
    ctx.useGas(5077n);
    const c = lastBytes(ctx.bytes(u32(contract), u32(contractLen)));
    const a = lastBytes(ctx.bytes(u32(account), u32(accountLen)));
    const creator = ctx.creatorOf(c);
    return creator !== undefined && equalBytes(creator, a) ? 0 : 1;
  },
  // 0 while the deploy's init() runs, else 1
  isFromInit(ctx) {
    ctx.useGas(4n);
    return ctx.message.isInit ? 0 : 1;
  },
  callValue(ctx, ptr) {
    ctx.useGas(215n);
    ctx.write(u32(ptr), beBytes(ctx.message.value, 32));
  },
  address(ctx, ptr) {
    ctx.useGas(79n);
    ctx.write(u32(ptr), ctx.message.address);
  },
  getCallerNonce(ctx) {
    ctx.useGas(1358n);
    return ctx.callerNonce();
  },
};

/** An address from memory as Venachain's BytesToAddress reads it: the last 20 bytes, left-padded. */
function lastBytes(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(20);
  const tail = b.subarray(Math.max(0, b.length - 20));
  out.set(tail, 20 - tail.length);
  return out;
}
