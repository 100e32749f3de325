/* amprt.h is a C header: a C99 program includes it (with amprt_unary.def,
 * which it expands into the chain codes and the unary entry points) and
 * checks chain codes that compiled steps carry as numbers. */
#include "amprt/amprt.h"

#include <stdio.h>

int main(void) {
  /* Codes are numbered in amprt_unary.def's order; binary ones from 64. */
  if (AMPRT_CHAIN_NEG != 0 || AMPRT_CHAIN_SILU != 13 ||
      AMPRT_CHAIN_LEAKY_RELU != 14 || AMPRT_CHAIN_ADD != 64) {
    fprintf(stderr, "amprt.h: chain codes moved (silu %d, leaky_relu %d)\n",
            (int)AMPRT_CHAIN_SILU, (int)AMPRT_CHAIN_LEAKY_RELU);
    return 1;
  }
  /* The entry points amprt_unary.def declares, with their C types. */
  amprt_status (*silu)(amprt_context *, const amprt_tensor *, amprt_tensor *) =
      amprt_silu;
  amprt_status (*leaky)(amprt_context *, const amprt_tensor *, double,
                        amprt_tensor *) = amprt_leaky_relu;
  return silu && leaky ? 0 : 1;
}
