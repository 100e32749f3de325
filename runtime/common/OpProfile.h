//===- OpProfile.h - Where a step's time goes, op by op ---------*- C++ -*-===//
//
// With AMPRT_PROFILE=FILE in the environment every op of the C API is
// timed, wall clock, from a synchronised device to a synchronised device,
// and FILE gets one row per op name (calls, total, mean, share) each time
// a context is destroyed. The synchronisations serialise the host and the
// device, so a profiled step is slower than an unprofiled one and each
// row includes its op's launch and synchronisation (a few microseconds a
// call); the table says which ops hold the device's time, which a step's
// total alone cannot. Without the variable an op pays one load and branch.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMMON_OPPROFILE_H
#define AMPRT_COMMON_OPPROFILE_H

#include "amprt/amprt.h"
#include <chrono>

namespace amprt {

/// The file AMPRT_PROFILE names, or null when ops are not profiled.
const char *opProfilePath();

/// Adds one call of `op` taking `seconds` to the process's table.
void recordOpTime(const char *op, double seconds);

/// Writes the table to opProfilePath(), whole or not at all; 0 or the
/// errno of what failed.
int writeOpProfile();

/// Times the op running in its scope when profiling is on: synchronises
/// `ctx`'s device on entry and on exit so the interval is the op's own.
/// An op that runs others (a product that rounds its operands first, an
/// FP8 product that dequantizes) is timed whole, under its own name: a
/// timer inside another's scope records nothing.
class OpTimer {
public:
  OpTimer(amprt_context *ctx, const char *op)
      : ctx(opProfilePath() && depth() == 0 ? ctx : nullptr), op(op) {
    ++depth();
    if (this->ctx) {
      amprt_synchronize(this->ctx);
      start = std::chrono::steady_clock::now();
    }
  }
  ~OpTimer() {
    --depth();
    if (!ctx)
      return;
    amprt_synchronize(ctx);
    std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    recordOpTime(op, took.count());
  }
  OpTimer(const OpTimer &) = delete;
  OpTimer &operator=(const OpTimer &) = delete;

private:
  static int &depth() {
    static thread_local int timersOpen = 0;
    return timersOpen;
  }
  amprt_context *ctx;
  const char *op;
  std::chrono::steady_clock::time_point start;
};

} // namespace amprt

#endif // AMPRT_COMMON_OPPROFILE_H
