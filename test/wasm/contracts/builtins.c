// __int128 and long double operations for test/wasm-builtins.test.ts: clang lowers each to an `env`
// compiler-builtin import, so every result below is computed by the node's builtins
// (src/exec/wasm/host/compiler-builtins.ts). The test reads `out` after each call.
//
// cases.h (written by the test) holds random binary128 operands A[i], B[i] and the results clang
// folded at compile time (APFloat, exact, nearest-even) for each operation: an oracle that owes
// nothing to the code under test. fold_check computes the same at run time, through the imports.
typedef __int128 i128;
typedef unsigned __int128 u128;

static u128 out[16];
u128 *results(void) { return out; }

void int_ops(i128 a, i128 b, int s) {
  out[0] = a * b;
  out[1] = a / b;
  out[2] = a % b;
  out[3] = (u128)a / (u128)b;
  out[4] = (u128)a % (u128)b;
  out[5] = a << s;
  out[6] = a >> s;
  out[7] = (u128)a >> s;
}

void ld_ops(long double a, long double b) {
  long double *o = (long double *)out;
  o[0] = a + b;
  o[1] = a - b;
  o[2] = a * b;
  o[3] = a / b;
  o[4] = -a;
}

int ld_compare(long double a, long double b) {
  return (a == b) | (a != b) << 1 | (a < b) << 2 | (a <= b) << 3 | (a > b) << 4 | (a >= b) << 5 | __builtin_isunordered(a, b) << 6;
}

void ld_from(double d, float f, int i, unsigned u, long long l, unsigned long long ul, i128 t, u128 ut) {
  long double *o = (long double *)out;
  o[0] = d;
  o[1] = f;
  o[2] = i;
  o[3] = u;
  o[4] = l;
  o[5] = ul;
  o[6] = t;
  o[7] = ut;
}

double ld_to_double(long double a) { return a; }
float ld_to_float(long double a) { return a; }
int ld_to_int(long double a) { return a; }
unsigned ld_to_uint(long double a) { return a; }
long long ld_to_ll(long double a) { return a; }
unsigned long long ld_to_ull(long double a) { return a; }
void ld_to_128(long double a) {
  out[0] = (i128)a;
  out[1] = (u128)a;
}

double i128_to_double(i128 a) { return a; }
double u128_to_double(u128 a) { return a; }
float i128_to_float(i128 a) { return a; }
float u128_to_float(u128 a) { return a; }
void float_to_128(double d, float f) {
  out[0] = (i128)d;
  out[1] = (u128)d;
  out[2] = (i128)f;
  out[3] = (u128)f;
}

#include "cases.h"

static volatile long double result[4][CASES];
long double *fold_results(void) { return (long double *)result; }
long double *fold_expected(void) { return (long double *)EXPECTED; }

void fold_check(void) {
  for (int i = 0; i < CASES; i++) {
    result[0][i] = A[i] + B[i];
    result[1][i] = A[i] - B[i];
    result[2][i] = A[i] * B[i];
    result[3][i] = A[i] / B[i];
  }
}
