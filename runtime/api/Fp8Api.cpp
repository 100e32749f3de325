//===- Fp8Api.cpp - The FP8 ops' C API ------------------------------------===//
//
// Checks, then the op on the context's backend (Dispatch.h).
//
//===----------------------------------------------------------------------===//

#include "../common/amprt_fp8.h"
#include "Dispatch.h"

using namespace amprt;

namespace {

bool isFp8(amprt_dtype dtype) {
  return dtype == AMPRT_F8E4M3FN || dtype == AMPRT_F8E5M2;
}

/// f32, f16 or bf16: the types FP8 is made from and read back into.
amprt_status checkSourceType(const char *op, const char *name,
                             const amprt_tensor *t) {
  if (!isFloat(t->dtype) || t->dtype == AMPRT_F64)
    return fail(AMPRT_ERROR_DTYPE, "%s: %s must be f32, f16 or bf16, got %s",
                op, name, dtypeName(t->dtype));
  return AMPRT_OK;
}

amprt_status checkFp8(const char *op, const char *name, const amprt_tensor *t) {
  if (!isFp8(t->dtype))
    return fail(AMPRT_ERROR_DTYPE, "%s: %s must be f8E4M3FN or f8E5M2, got %s",
                op, name, dtypeName(t->dtype));
  return AMPRT_OK;
}

/// An amax history: f32 of rank 0 or 1.
amprt_status checkHistory(const char *op, const amprt_tensor *h) {
  if (h->dtype != AMPRT_F32 || h->shape.size() > 1)
    return fail(AMPRT_ERROR_DTYPE,
                "%s: history must be an f32 tensor of rank 0 or 1, got %s "
                "of rank %zu",
                op, dtypeName(h->dtype), h->shape.size());
  return AMPRT_OK;
}

} // namespace

extern "C" {

amprt_status amprt_quantize(amprt_context *ctx, const amprt_tensor *x,
                            const amprt_tensor *scale, amprt_tensor *q) {
  const char *op = "amprt_quantize";
  AMPRT_CHECK(checkOperands(op, ctx, {{"x", x}, {"scale", scale}, {"q", q}}));
  AMPRT_CHECK(checkSourceType(op, "x", x));
  AMPRT_CHECK(checkFp8(op, "q", q));
  AMPRT_CHECK(checkScalar(op, "scale", scale, AMPRT_F32));
  AMPRT_CHECK(checkShape(op, "q", q, x->shape));
  AMPRT_RUN(ctx, scaledCast(ctx, x, scale, q));
}

amprt_status amprt_dequantize(amprt_context *ctx, const amprt_tensor *q,
                              const amprt_tensor *scale, amprt_tensor *y) {
  const char *op = "amprt_dequantize";
  AMPRT_CHECK(checkOperands(op, ctx, {{"q", q}, {"scale", scale}, {"y", y}}));
  AMPRT_CHECK(checkFp8(op, "q", q));
  AMPRT_CHECK(checkSourceType(op, "y", y));
  AMPRT_CHECK(checkScalar(op, "scale", scale, AMPRT_F32));
  AMPRT_CHECK(checkShape(op, "y", y, q->shape));
  AMPRT_RUN(ctx, scaledCast(ctx, q, scale, y));
}

amprt_status amprt_amax(amprt_context *ctx, const amprt_tensor *x,
                        amprt_tensor *amax) {
  const char *op = "amprt_amax";
  AMPRT_CHECK(checkOperands(op, ctx, {{"x", x}, {"amax", amax}}));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkScalar(op, "amax", amax, AMPRT_F32));
  AMPRT_RUN(ctx, amax(ctx, x, amax));
}

amprt_status amprt_fp8_scale(amprt_context *ctx, const amprt_tensor *history,
                             int32_t format, int64_t margin,
                             amprt_tensor *scale) {
  const char *op = "amprt_fp8_scale";
  AMPRT_CHECK(checkOperands(op, ctx, {{"history", history}, {"scale", scale}}));
  AMPRT_CHECK(checkHistory(op, history));
  AMPRT_CHECK(checkScalar(op, "scale", scale, AMPRT_F32));
  float fp8Max;
  if (format == AMPRT_F8E4M3FN)
    fp8Max = kFp8E4M3Max;
  else if (format == AMPRT_F8E5M2)
    fp8Max = kFp8E5M2Max;
  else
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: format must be AMPRT_F8E4M3FN or AMPRT_F8E5M2, got %d", op,
                (int)format);
  if (margin < 0 || margin > 64)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: margin must be in [0, 64], got %lld", op,
                (long long)margin);
  AMPRT_RUN(ctx, fp8Scale(ctx, history, fp8Max, margin, scale));
}

amprt_status amprt_record_amax(amprt_context *ctx, const amprt_tensor *history,
                               const amprt_tensor *amax,
                               amprt_tensor *new_history) {
  const char *op = "amprt_record_amax";
  AMPRT_CHECK(checkOperands(
      op, ctx,
      {{"history", history}, {"amax", amax}, {"new_history", new_history}}));
  AMPRT_CHECK(checkHistory(op, history));
  if (history->shape.size() != 1 || history->numel < 1)
    return fail(AMPRT_ERROR_SHAPE, "%s: history must be 1-D and not empty", op);
  AMPRT_CHECK(checkScalar(op, "amax", amax, AMPRT_F32));
  AMPRT_CHECK(checkSameDtype(op, "new_history", new_history, AMPRT_F32));
  AMPRT_CHECK(checkShape(op, "new_history", new_history, history->shape));
  if (new_history == history)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: new_history must not be history", op);
  AMPRT_RUN(ctx, recordAmax(ctx, history, amax, new_history));
}

amprt_status amprt_scaled_matmul(amprt_context *ctx, const amprt_tensor *a,
                                 const amprt_tensor *scale_a,
                                 const amprt_tensor *b,
                                 const amprt_tensor *scale_b, int transpose_a,
                                 int transpose_b, amprt_tensor *c) {
  const char *op = "amprt_scaled_matmul";
  if (ctx)
    ctx->scaledMatmulFallback.clear();
  AMPRT_CHECK(checkOperands(op, ctx,
                            {{"a", a},
                             {"scale_a", scale_a},
                             {"b", b},
                             {"scale_b", scale_b},
                             {"c", c}}));
  AMPRT_CHECK(checkFp8(op, "a", a));
  AMPRT_CHECK(checkFp8(op, "b", b));
  AMPRT_CHECK(checkSourceType(op, "c", c));
  AMPRT_CHECK(checkScalar(op, "scale_a", scale_a, AMPRT_F32));
  AMPRT_CHECK(checkScalar(op, "scale_b", scale_b, AMPRT_F32));
  GemmShape g;
  AMPRT_CHECK(
      gemmShape(op, a, b, transpose_a, transpose_b, a->shape.size() > 2, c, g));
  OpTimer timer(ctx, op); // the dequantizing path's ops are part of it
  // A device with FP8 GEMMs multiplies the FP8 tensors themselves; when it
  // does not, it says why in ctx->scaledMatmulFallback.
  if (auto *fp8Gemm = opsFor(ctx)->scaledMatmul) {
    bool ran = false;
    AMPRT_CHECK(fp8Gemm(ctx, a, scale_a, b, scale_b, transpose_a, transpose_b,
                        c, g.m, g.n, g.k, g.batch, &ran));
    if (ran)
      return AMPRT_OK;
    if (ctx->scaledMatmulFallback.empty())
      ctx->scaledMatmulFallback = "the device's FP8 GEMM did not take it";
  } else {
    ctx->scaledMatmulFallback = "the CPU backend has no FP8 GEMM";
  }
  // Elsewhere each operand is dequantized into c's type (exact with
  // power-of-two scales) for the backend's GEMM, which accumulates in f32;
  // the copies live only for this call.
  auto dequantized = [&](const amprt_tensor *q, const amprt_tensor *scale,
                         amprt_tensor **out) {
    AMPRT_CHECK(amprt_tensor_create(ctx, c->dtype, (int)q->shape.size(),
                                    q->shape.data(), out));
    amprt_status status = amprt_dequantize(ctx, q, scale, *out);
    if (status != AMPRT_OK) {
      amprt_tensor_release(*out);
      *out = nullptr;
    }
    return status;
  };
  amprt_tensor *da = nullptr, *db = nullptr;
  AMPRT_CHECK(dequantized(a, scale_a, &da));
  amprt_status status = dequantized(b, scale_b, &db);
  if (status == AMPRT_OK)
    status = a->shape.size() == 2
                 ? amprt_matmul(ctx, da, db, transpose_a, transpose_b, c)
                 : amprt_batch_matmul(ctx, da, db, transpose_a, transpose_b, c);
  amprt_tensor_release(da);
  if (db)
    amprt_tensor_release(db);
  return status;
}

} // extern "C"

const char *amprt_scaled_matmul_fallback(const amprt_context *ctx) {
  return ctx && !ctx->scaledMatmulFallback.empty()
             ? ctx->scaledMatmulFallback.c_str()
             : nullptr;
}
