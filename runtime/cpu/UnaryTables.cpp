//===- UnaryTables.cpp - Lookups of 16-bit unary results ------------------===//
//
// Which ops run as lookups, and the lookup on the CPU's widest gathers.
//
//===----------------------------------------------------------------------===//

#include "UnaryTables.h"
#include "Blocks.h"

namespace amprt::cpu {

bool tabledUnary(Unary kind) {
  switch (kind) {
  case Unary::Exp:
  case Unary::Log:
  case Unary::Tanh:
  case Unary::Sigmoid:
  case Unary::Gelu:
  case Unary::Erf:
  case Unary::Silu:
    return true;
  default:
    return false;
  }
}

void lookupSpan(const uint16_t *in, uint16_t *out, int64_t n,
                const uint16_t *table) {
  int64_t j = hasAvx512F() ? lookupAvx512(in, out, n, table)
              : hasAvx2()  ? lookupAvx2(in, out, n, table)
                           : 0;
  for (; j < n; ++j)
    out[j] = table[in[j]];
}

void lookupAll(const uint16_t *in, uint16_t *out, int64_t n,
               const uint16_t *table) {
  parallelFor(n, kElementGrain, [&](int64_t begin, int64_t end) {
    lookupSpan(in + begin, out + begin, end - begin, table);
  });
}

} // namespace amprt::cpu
