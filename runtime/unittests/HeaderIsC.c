/* amprt.h is a C header: a C99 program includes it (with amprt_unary.def
 * and amprt_binary.def, which it expands into the chain codes and the
 * entry points) and checks chain codes that compiled steps carry as
 * numbers. */
#include "amprt/amprt.h"

#include <stdio.h>

int main(void) {
  /* Codes are numbered in amprt_unary.def's order; binary ones from 64 in
   * amprt_binary.def's. */
  if (AMPRT_CHAIN_NEG != 0 || AMPRT_CHAIN_SILU != 13 ||
      AMPRT_CHAIN_LEAKY_RELU != 14 || AMPRT_CHAIN_ADD != 64 ||
      AMPRT_CHAIN_MINIMUM != 70 || AMPRT_ACTIVATION_RELU != 0 ||
      AMPRT_ACTIVATION_LEAKY_RELU != 5) {
    fprintf(stderr,
            "amprt.h: chain codes moved (silu %d, leaky_relu %d, minimum %d)\n",
            (int)AMPRT_CHAIN_SILU, (int)AMPRT_CHAIN_LEAKY_RELU,
            (int)AMPRT_CHAIN_MINIMUM);
    return 1;
  }
  /* The entry points the lists declare, with their C types. */
  amprt_status (*silu)(amprt_context *, const amprt_tensor *, amprt_tensor *) =
      amprt_silu;
  amprt_status (*leaky)(amprt_context *, const amprt_tensor *, double,
                        amprt_tensor *) = amprt_leaky_relu;
  amprt_status (*maximum)(amprt_context *, const amprt_tensor *,
                         const amprt_tensor *, amprt_tensor *) = amprt_maximum;
  return silu && leaky && maximum ? 0 : 1;
}
