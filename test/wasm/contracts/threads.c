/* The wasm thread test's contract (test/wasm-thread.test.ts): many inner calls in one message, and
 * events around an inner call, for the receipt's log order. */
#include "venachain.h"

IMPORT("bcwasmCall") int64_t bcwasmCall(const uint8_t *addr, const uint8_t *params, size_t len);

IMPORT("bcwasmCallString") const char *bcwasmCallString(const uint8_t *addr, const uint8_t *params, size_t len);

/* an account without code */
static const uint8_t NOBODY[20] = {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
                                   0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11};
/* RLP([txType 2 as 8 bytes, "emitOne"]) */
static const uint8_t EMIT_ONE[] = {0xd1, 0x88, 0, 0, 0, 0, 0, 0, 0, 2, 0x87, 'e', 'm', 'i', 't', 'O', 'n', 'e'};
/* RLP([txType 2 as 8 bytes, "greet"]) */
static const uint8_t GREET[] = {0xcf, 0x88, 0, 0, 0, 0, 0, 0, 0, 2, 0x85, 'g', 'r', 'e', 'e', 't'};

EXPORT void init(void) {}

/* n inner calls to an account without code; returns n */
EXPORT int64_t callMany(int64_t n) {
  int64_t i = 0;
  for (; i < n; i++) bcwasmCall(NOBODY, 0, 0);
  return i;
}

EXPORT void emitOne(void) { emitEvent("child", 5, "c", 1); }

/* an event, an inner call to this contract's emitOne (which emits), an event */
EXPORT void emitCallEmit(void) {
  uint8_t self[20];
  address(self);
  emitEvent("before", 6, "b", 1);
  bcwasmCall(self, EMIT_ONE, sizeof EMIT_ONE);
  emitEvent("after", 5, "a", 1);
}

EXPORT const char *greet(void) { return "hello"; }

/* an inner call's string answer, then more of this contract's own memory than it had: the answer
 * must not be in what its allocator hands out */
EXPORT const char *answerThenAllocate(void) {
  uint8_t self[20];
  address(self);
  const char *s = bcwasmCallString(self, GREET, sizeof GREET);
  size_t n = 4 * 65536;
  memset(malloc(n), 'x', n);
  return s;
}
