/* The cross-VM test's contract (test/wasm-cross-vm.test.ts): calls out of wasm with bcwasmCall*,
 * bcwasmDelegateCall* and callTransfer, the hashing host functions, and functions a Solidity
 * contract calls in. Addresses, call data and hashes travel as hex text (a string argument cannot
 * carry a NUL byte). */
#include "venachain.h"

IMPORT("bcwasmCall") int64_t bcwasmCall(const uint8_t *addr, const uint8_t *params, size_t len);
IMPORT("bcwasmCallInt64") int64_t bcwasmCallInt64(const uint8_t *addr, const uint8_t *params, size_t len);
IMPORT("bcwasmCallString") const char *bcwasmCallString(const uint8_t *addr, const uint8_t *params, size_t len);
IMPORT("bcwasmDelegateCallInt64") int64_t bcwasmDelegateCallInt64(const uint8_t *addr, const uint8_t *params, size_t len);
IMPORT("bcwasmDelegateCallString") const char *bcwasmDelegateCallString(const uint8_t *addr, const uint8_t *params, size_t len);
IMPORT("callTransfer") int64_t callTransfer(const uint8_t *addr, size_t addrLen, const uint8_t value[32]);
IMPORT("sha3") void sha3(const void *src, size_t srcLen, uint8_t *dest, size_t destLen);
IMPORT("ecrecover") void ecrecover(const uint8_t hash[32], const uint8_t sig[65], uint8_t addr[20]);

static const char LAST[] = "last";
static const char COUNT[] = "count";

static int nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  abort();
  return 0;
}

/* hex text (0x optional) to bytes; *len gets their number */
static uint8_t *unhex(const char *hex, size_t *len) {
  if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex += 2;
  size_t n = strlen(hex) / 2;
  uint8_t *out = malloc(n + 1);
  for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  *len = n;
  return out;
}

static const char *tohex(const uint8_t *data, size_t n) {
  static const char digits[] = "0123456789abcdef";
  char *out = malloc(2 * n + 1);
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[data[i] >> 4];
    out[2 * i + 1] = digits[data[i] & 15];
  }
  out[2 * n] = 0;
  return out;
}

static const uint8_t *address20(const char *hex) {
  size_t n;
  const uint8_t *a = unhex(hex, &n);
  if (n != 20) abort();
  return a;
}

EXPORT void init(void) {}

/* ---- calls out ---- */

EXPORT int64_t callInt64(const char *addr, const char *params) {
  size_t n;
  const uint8_t *p = unhex(params, &n);
  return bcwasmCallInt64(address20(addr), p, n);
}

EXPORT const char *callString(const char *addr, const char *params) {
  size_t n;
  const uint8_t *p = unhex(params, &n);
  const char *s = bcwasmCallString(address20(addr), p, n);
  return s ? s : "(null)";
}

EXPORT void callVoid(const char *addr, const char *params) {
  size_t n;
  const uint8_t *p = unhex(params, &n);
  bcwasmCall(address20(addr), p, n);
}

/* an inner call's answer kept in this contract's storage: what comes after a failed call still runs */
EXPORT int64_t callThenStore(const char *addr, const char *params) {
  int64_t r = callInt64(addr, params);
  setState(LAST, sizeof LAST - 1, &r, sizeof r);
  return r;
}

EXPORT int64_t last(void) {
  int64_t v = 0;
  getState(LAST, sizeof LAST - 1, &v, sizeof v);
  return v;
}

EXPORT int64_t delegateInt64(const char *addr, const char *params) {
  size_t n;
  const uint8_t *p = unhex(params, &n);
  return bcwasmDelegateCallInt64(address20(addr), p, n);
}

EXPORT const char *delegateString(const char *addr, const char *params) {
  size_t n;
  const uint8_t *p = unhex(params, &n);
  const char *s = bcwasmDelegateCallString(address20(addr), p, n);
  return s ? s : "(null)";
}

EXPORT int64_t transfer(const char *addr, uint64_t amount) {
  uint8_t value[32] = {0};
  for (int i = 0; i < 8; i++) value[31 - i] = (uint8_t)(amount >> (8 * i));
  return callTransfer(address20(addr), 20, value);
}

/* ---- called in ---- */

EXPORT int64_t twice(int64_t x) { return 2 * x; }

EXPORT const char *echo(const char *s) { return s; }

EXPORT int64_t fail(void) {
  abort();
  return 0;
}

/* this contract's counter: run by delegate call, it is the caller's */
EXPORT int64_t bump(void) {
  int64_t v = 0;
  getState(COUNT, sizeof COUNT - 1, &v, sizeof v);
  v++;
  setState(COUNT, sizeof COUNT - 1, &v, sizeof v);
  return v;
}

EXPORT int64_t count(void) {
  int64_t v = 0;
  getState(COUNT, sizeof COUNT - 1, &v, sizeof v);
  return v;
}

/* ---- hashing ---- */

EXPORT const char *keccak(const char *data) {
  uint8_t hash[32] = {0};
  sha3(data, strlen(data), hash, sizeof hash);
  return tohex(hash, 32);
}

EXPORT const char *recover(const char *hashHex, const char *sigHex) {
  size_t hn, sn;
  const uint8_t *hash = unhex(hashHex, &hn);
  const uint8_t *sig = unhex(sigHex, &sn);
  if (hn != 32 || sn != 65) abort();
  uint8_t addr[20] = {0};
  ecrecover(hash, sig, addr);
  return tohex(addr, 20);
}

/* a write, then a delegate call that runs on it: the callee sees the write and its own write stays */
EXPORT int64_t presetThenDelegate(const char *addr, const char *params, int64_t preset) {
  setState(COUNT, sizeof COUNT - 1, &preset, sizeof preset);
  int64_t r = delegateInt64(addr, params);
  return r * 1000 + count();
}

/* calls itself n deep (RLP([2, "recurse", n - 1]) built here), each level writing n first: the
 * deepest write stays, and each level reads the ones below it */
EXPORT int64_t recurse(int64_t n) {
  setState(COUNT, sizeof COUNT - 1, &n, sizeof n);
  if (n <= 0) return 0;
  uint8_t self[20];
  address(self);
  uint8_t p[27] = {0xda, 0x88, 0, 0, 0, 0, 0, 0, 0, 2, 0x87, 'r', 'e', 'c', 'u', 'r', 's', 'e', 0x88};
  int64_t m = n - 1;
  for (int i = 0; i < 8; i++) p[19 + i] = (uint8_t)(m >> (56 - 8 * i));
  int64_t below = bcwasmCallInt64(self, p, sizeof p);
  return 1 + below + 100 * count();
}
