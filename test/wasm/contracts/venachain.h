/* Our own small header for Venachain wasm contracts in C (clang --target=wasm32): the `env` imports
 * BCWasm contracts use, an EXPORT macro, and a bump allocator exported as `malloc` (the node copies
 * string arguments through it). Not Venachain's SDK: only what the tests' contracts need. */
#ifndef VENACHAIN_H
#define VENACHAIN_H

typedef unsigned char uint8_t;
typedef signed char int8_t;
typedef unsigned short uint16_t;
typedef short int16_t;
typedef unsigned int uint32_t;
typedef int int32_t;
typedef unsigned long long uint64_t;
typedef long long int64_t;
typedef unsigned long size_t;

#define EXPORT __attribute__((visibility("default"))) __attribute__((used))
#define IMPORT(name) __attribute__((import_module("env"), import_name(name)))

/* state: arbitrary byte keys and values of this contract */
IMPORT("setState") void setState(const void *key, size_t keyLen, const void *value, size_t valueLen);
IMPORT("getState") void getState(const void *key, size_t keyLen, void *value, size_t valueLen);
IMPORT("getStateSize") size_t getStateSize(const void *key, size_t keyLen);
IMPORT("emitEvent") void emitEvent(const char *topic, size_t topicLen, const void *data, size_t dataLen);

/* chain context */
IMPORT("gasPrice") int64_t gasPrice(void);
IMPORT("blockHash") void blockHash(int32_t number, uint8_t hash[32]);
IMPORT("number") int64_t number(void);
IMPORT("gasLimit") int64_t gasLimit(void);
IMPORT("timestamp") int64_t timestamp(void);
IMPORT("coinbase") void coinbase(uint8_t addr[20]);
IMPORT("balance") void balance(uint8_t amount[32]);
IMPORT("origin") void origin(uint8_t addr[20]);
IMPORT("caller") void caller(uint8_t addr[20]);
IMPORT("isOwner") int64_t isOwner(const uint8_t *contract, size_t contractLen, const uint8_t *account, size_t accountLen);
IMPORT("isFromInit") int64_t isFromInit(void);
IMPORT("callValue") void callValue(uint8_t amount[32]);
IMPORT("address") void address(uint8_t addr[20]);
IMPORT("getCallerNonce") int64_t getCallerNonce(void);

/* debug prints (the node's debug log) and abort (fails the call) */
IMPORT("prints") void prints(const char *s);
IMPORT("prints_l") void prints_l(const char *s, size_t len);
IMPORT("printi") void printi(int64_t v);
IMPORT("printui") void printui(uint64_t v);
IMPORT("printhex") void printhex(const void *data, size_t len);
IMPORT("abort") void abort(void);

/* memory of the C library, provided by the node */
IMPORT("memcpy") void *memcpy(void *dest, const void *src, size_t n);
IMPORT("memset") void *memset(void *p, int v, size_t n);
IMPORT("memcmp") int memcmp(const void *a, const void *b, size_t n);

/* A bump allocator above the module's data: the heap starts at __heap_base and grows the memory by
 * whole pages. Memory is never freed: a call's instance lives for that call only. */
extern unsigned char __heap_base;
static size_t heap_top = 0;

EXPORT void *malloc(size_t n) {
  if (heap_top == 0) heap_top = (size_t)&__heap_base;
  size_t at = (heap_top + 7) & ~(size_t)7;
  size_t end = at + n;
  size_t have = __builtin_wasm_memory_size(0) * 65536;
  if (end > have && __builtin_wasm_memory_grow(0, (end - have + 65535) / 65536) == (size_t)-1) abort();
  heap_top = end;
  return (void *)at;
}

static inline size_t strlen(const char *s) {
  size_t n = 0;
  while (s[n]) n++;
  return n;
}

#endif
