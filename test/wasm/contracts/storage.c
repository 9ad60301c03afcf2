/* The engine test's contract: storage set and get (integer and string values), each integer
 * width in and out, strings in and out, an event, a failing call, an endless loop, chain context. */
#include "venachain.h"

static const char COUNTER[] = "counter";

EXPORT void init(void) {
  int64_t start = 7;
  setState(COUNTER, sizeof COUNTER - 1, &start, sizeof start);
}

EXPORT void setCounter(int64_t v) {
  setState(COUNTER, sizeof COUNTER - 1, &v, sizeof v);
  emitEvent("CounterSet", 10, &v, sizeof v);
}

/* the counter alone, no event (what bench/wasm-calls.ts compares with Solidity) */
EXPORT void store(int64_t v) {
  setState(COUNTER, sizeof COUNTER - 1, &v, sizeof v);
}

EXPORT int64_t getCounter(void) {
  int64_t v = 0;
  getState(COUNTER, sizeof COUNTER - 1, &v, sizeof v);
  return v;
}

/* a string value under a string key */
EXPORT void put(const char *key, const char *value) {
  setState(key, strlen(key), value, strlen(value));
}

EXPORT const char *get(const char *key) {
  size_t n = getStateSize(key, strlen(key));
  char *v = malloc(n + 1);
  getState(key, strlen(key), v, n);
  v[n] = 0;
  return v;
}

EXPORT const char *greet(const char *name) {
  static const char hello[] = "hello, ";
  size_t n = strlen(name);
  char *out = malloc(sizeof hello + n);
  memcpy(out, hello, sizeof hello - 1);
  memcpy(out + sizeof hello - 1, name, n + 1);
  return out;
}

EXPORT int8_t neg8(int8_t v) { return -v; }
EXPORT uint8_t inc8(uint8_t v) { return v + 1; }
EXPORT int16_t neg16(int16_t v) { return -v; }
EXPORT uint16_t inc16(uint16_t v) { return v + 1; }
EXPORT int32_t neg32(int32_t v) { return -v; }
EXPORT uint32_t inc32(uint32_t v) { return v + 1; }
EXPORT int64_t neg64(int64_t v) { return -v; }
EXPORT uint64_t inc64(uint64_t v) { return v + 1; }
EXPORT int32_t not(int32_t b) { return !b; }

/* sets the counter, then fails: the write must not stay */
EXPORT void setThenAbort(int64_t v) {
  setState(COUNTER, sizeof COUNTER - 1, &v, sizeof v);
  abort();
}

EXPORT void spin(void) {
  volatile int64_t i = 0;
  for (;;) i++;
}

/* 0 when the caller created this contract (Venachain's isOwner) */
EXPORT int64_t callerIsOwner(void) {
  uint8_t self[20], who[20];
  address(self);
  caller(who);
  return isOwner(self, 20, who, 20);
}

EXPORT int64_t blockNumber(void) { return number(); }

/* debug prints: the node's debug log */
EXPORT void say(const char *s) {
  prints(s);
  printi(-5);
}

/* memset of len bytes, times times: host gas by the length a contract chooses */
EXPORT void fill(uint32_t len, uint32_t times) {
  char *p = malloc(len);
  for (uint32_t i = 0; i < times; i++) memset(p, (int)i, len);
}
