// The host functions of module `env` a Venachain wasm contract imports, with the signatures BCWasm's
// C headers give them (pointers and sizes are i32 on wasm32; int64_t is i64), so a contract built
// from AssemblyScript imports exactly what a BCWasm-compiled one does. Raw: pointers into this
// module's memory. index.ts wraps them for AssemblyScript's strings and arrays.

// ---- state: arbitrary byte keys per contract ----
// @ts-ignore: decorator
@external("env", "setState") export declare function setState(key: usize, keyLen: usize, value: usize, valueLen: usize): void;
/** Copies the value into `value` when it fits `valueLen`, else copies nothing. */
// @ts-ignore: decorator
@external("env", "getState") export declare function getState(key: usize, keyLen: usize, value: usize, valueLen: usize): void;
/** The value's length; 0 when the key holds nothing. */
// @ts-ignore: decorator
@external("env", "getStateSize") export declare function getStateSize(key: usize, keyLen: usize): usize;

// ---- events: one log, topics = [keccak256(topic)], data as given ----
// @ts-ignore: decorator
@external("env", "emitEvent") export declare function emitEvent(topic: usize, topicLen: usize, data: usize, dataLen: usize): void;

// ---- chain context ----
// @ts-ignore: decorator
@external("env", "gasPrice") export declare function gasPrice(): i64;
/** Writes the 32-byte hash of block `number`. */
// @ts-ignore: decorator
@external("env", "blockHash") export declare function blockHash(number: i64, hash: usize): void;
// @ts-ignore: decorator
@external("env", "number") export declare function number(): i64;
// @ts-ignore: decorator
@external("env", "gasLimit") export declare function gasLimit(): i64;
/** Seconds since the epoch. */
// @ts-ignore: decorator
@external("env", "timestamp") export declare function timestamp(): i64;
/** Writes the 20-byte address of the block's sealer. */
// @ts-ignore: decorator
@external("env", "coinbase") export declare function coinbase(addr: usize): void;
/** Writes this contract's balance: 32 bytes big-endian. */
// @ts-ignore: decorator
@external("env", "balance") export declare function balance(out: usize): void;
/** Writes the 20-byte address of the transaction's sender. */
// @ts-ignore: decorator
@external("env", "origin") export declare function origin(addr: usize): void;
/** Writes the 20-byte address of the account or contract calling this one. */
// @ts-ignore: decorator
@external("env", "caller") export declare function caller(addr: usize): void;
/** 0 when `account` is the owner (creator) of `contract` (addresses as bytes), else 1 (Venachain's convention). */
// @ts-ignore: decorator
@external("env", "isOwner") export declare function isOwner(contract: usize, contractLen: usize, account: usize, accountLen: usize): i64;
/** 0 while `init` runs (the deploy), else 1 (Venachain's convention). */
// @ts-ignore: decorator
@external("env", "isFromInit") export declare function isFromInit(): i64;
/** Writes the value sent with the call: 32 bytes big-endian. */
// @ts-ignore: decorator
@external("env", "callValue") export declare function callValue(out: usize): void;
/** Writes this contract's 20-byte address. */
// @ts-ignore: decorator
@external("env", "address") export declare function address(addr: usize): void;
// @ts-ignore: decorator
@external("env", "getCallerNonce") export declare function getCallerNonce(): i64;

// ---- crypto ----
/** keccak256 of [src, src + srcLen) into dest (destLen ≥ 32). */
// @ts-ignore: decorator
@external("env", "sha3") export declare function sha3(src: usize, srcLen: usize, dest: usize, destLen: usize): void;

// ---- value and calls ----
/** Sends `value` (32 bytes big-endian at `value`) from this contract to `to`; 0 = done. */
// @ts-ignore: decorator
@external("env", "callTransfer") export declare function callTransfer(to: usize, toLen: usize, value: usize): i32;
/** Calls the contract at the 20 bytes `address` with Venachain call data. */
// @ts-ignore: decorator
@external("env", "bcwasmCall") export declare function bcwasmCall(address: usize, args: usize, len: u32): void;
// @ts-ignore: decorator
@external("env", "bcwasmCallInt64") export declare function bcwasmCallInt64(address: usize, args: usize, len: u32): i64;
/** Returns a pointer to the answer, NUL-terminated. */
// @ts-ignore: decorator
@external("env", "bcwasmCallString") export declare function bcwasmCallString(address: usize, args: usize, len: u32): usize;
// @ts-ignore: decorator
@external("env", "bcwasmDelegateCall") export declare function bcwasmDelegateCall(address: usize, args: usize, len: u32): void;
// @ts-ignore: decorator
@external("env", "bcwasmDelegateCallInt64") export declare function bcwasmDelegateCallInt64(address: usize, args: usize, len: u32): i64;
// @ts-ignore: decorator
@external("env", "bcwasmDelegateCallString") export declare function bcwasmDelegateCallString(address: usize, args: usize, len: u32): usize;

// ---- debug prints (to the node's debug log) and abort ----
/** A NUL-terminated string. */
// @ts-ignore: decorator
@external("env", "prints") export declare function prints(cstr: usize): void;
// @ts-ignore: decorator
@external("env", "prints_l") export declare function prints_l(str: usize, len: u32): void;
// @ts-ignore: decorator
@external("env", "printi") export declare function printi(value: i64): void;
// @ts-ignore: decorator
@external("env", "printui") export declare function printui(value: u64): void;
// @ts-ignore: decorator
@external("env", "printhex") export declare function printhex(data: usize, len: u32): void;
/** Fails the call: its state changes are undone (the receipt's status is 0). */
// @ts-ignore: decorator
@external("env", "abort") export declare function abort(): void;
