//===- ValidationApi.cpp - How far a low-precision result is: C API -------===//
//
// amprt_numeric_error compares a low-precision result with its f32
// reference for amp-run --validate. It runs on the host for every device:
// the candidate is widened to f32 by the context's own cast (so a device
// tensor is converted where it lives) and both are read back. Validation
// runs a few steps, not the training loop, so one code path that is easy
// to trust beats a kernel per backend.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"
#include <cfloat>
#include <cmath>
#include <vector>

using namespace amprt;

namespace {

/// The smallest positive normal value of `dtype`, below which a value of
/// that type loses precision (and, further down, flushes to zero).
double smallestNormal(amprt_dtype dtype) {
  switch (dtype) {
  case AMPRT_F16:
    return 6.103515625e-05; // 2^-14
  case AMPRT_F64:
    return DBL_MIN;
  default: // f32 and bf16 share f32's exponent range
    return FLT_MIN;
  }
}

/// The unit roundoff of `dtype`: a value this much smaller than a tensor's
/// largest is lost in that tensor's rounding noise anyway.
double unitRoundoff(amprt_dtype dtype) {
  switch (dtype) {
  case AMPRT_F16:
    return 0x1p-11;
  case AMPRT_BF16:
    return 0x1p-8;
  case AMPRT_F64:
    return 0x1p-53;
  default:
    return 0x1p-24;
  }
}

/// Reads `t` (any float type) as f32 values on the host.
amprt_status readAsF32(amprt_context *ctx, const amprt_tensor *t,
                       std::vector<float> &out) {
  out.resize(t->numel);
  if (t->dtype == AMPRT_F32)
    return amprt_tensor_read(t, out.data(), out.size() * sizeof(float));
  amprt_tensor *wide = nullptr;
  AMPRT_CHECK(amprt_tensor_create(ctx, AMPRT_F32, (int)t->shape.size(),
                                  t->shape.data(), &wide));
  amprt_status status = amprt_cast(ctx, t, wide);
  if (status == AMPRT_OK)
    status = amprt_tensor_read(wide, out.data(), out.size() * sizeof(float));
  amprt_tensor_release(wide);
  return status;
}

} // namespace

extern "C" {

amprt_status amprt_numeric_error(amprt_context *ctx,
                                 const amprt_tensor *reference,
                                 const amprt_tensor *candidate,
                                 amprt_tensor *stats) {
  const char *op = "amprt_numeric_error";
  AMPRT_CHECK(checkOperands(
      op, ctx,
      {{"reference", reference}, {"candidate", candidate}, {"stats", stats}}));
  AMPRT_CHECK(checkSameDtype(op, "reference", reference, AMPRT_F32));
  AMPRT_CHECK(checkFloat(op, "candidate", candidate));
  AMPRT_CHECK(checkShape(op, "candidate", candidate, reference->shape));
  AMPRT_CHECK(checkSameDtype(op, "stats", stats, AMPRT_F32));
  AMPRT_CHECK(checkShape(op, "stats", stats, Shape{AMPRT_NUMERIC_STATS}));

  std::vector<float> ref, cand;
  AMPRT_CHECK(readAsF32(ctx, reference, ref));
  AMPRT_CHECK(readAsF32(ctx, candidate, cand));
  double tiny = smallestNormal(candidate->dtype);
  double largest = 0;
  for (float r : ref)
    if (std::isfinite(r))
      largest = std::max(largest, (double)std::fabs(r));
  double noise = unitRoundoff(candidate->dtype) * largest;
  double elements = 0, diffSq = 0, refSq = 0, maxDiff = 0, maxRef = 0;
  double overflow = 0, nan = 0, flushed = 0, subnormal = 0, refNonFinite = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    double r = ref[i], c = cand[i];
    if (!std::isfinite(r)) {
      ++refNonFinite;
      continue;
    }
    ++elements;
    double magnitude = std::fabs(r);
    maxRef = std::max(maxRef, magnitude);
    if (magnitude != 0 && magnitude < tiny)
      ++subnormal;
    if (std::isnan(c)) {
      ++nan;
      continue;
    }
    if (std::isinf(c)) {
      ++overflow;
      continue;
    }
    if (c == 0 && r != 0 && magnitude >= noise)
      ++flushed;
    double d = c - r;
    diffSq += d * d;
    refSq += r * r;
    maxDiff = std::max(maxDiff, std::fabs(d));
  }
  float out[AMPRT_NUMERIC_STATS];
  out[AMPRT_NUMERIC_ELEMENTS] = (float)elements;
  out[AMPRT_NUMERIC_DIFF_NORM] = (float)std::sqrt(diffSq);
  out[AMPRT_NUMERIC_REF_NORM] = (float)std::sqrt(refSq);
  out[AMPRT_NUMERIC_MAX_DIFF] = (float)maxDiff;
  out[AMPRT_NUMERIC_MAX_REF] = (float)maxRef;
  out[AMPRT_NUMERIC_OVERFLOW] = (float)overflow;
  out[AMPRT_NUMERIC_NAN] = (float)nan;
  out[AMPRT_NUMERIC_FLUSHED] = (float)flushed;
  out[AMPRT_NUMERIC_SUBNORMAL] = (float)subnormal;
  out[AMPRT_NUMERIC_REF_NONFINITE] = (float)refNonFinite;
  return amprt_tensor_write(stats, out, sizeof(out));
}

} // extern "C"
