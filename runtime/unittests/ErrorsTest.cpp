//===- ErrorsTest.cpp - Every bad argument is a code and a message --------===//

#include "RuntimeTestUtils.h"
#include <unistd.h>

using namespace amprt_test;

namespace {

void expectError(amprt_status status, amprt_status want, const char *needle) {
  EXPECT_EQ(status, want) << amprt_last_error();
  EXPECT_NE(std::string(amprt_last_error()).find(needle), std::string::npos)
      << "message: " << amprt_last_error();
}

TEST(RuntimeErrors, ContextsAndTensors) {
  amprt_context *ctx = nullptr;
  expectError(amprt_context_create(AMPRT_DEVICE_CPU, 3, &ctx),
              AMPRT_ERROR_DEVICE, "one CPU device");
  expectError(amprt_context_create((amprt_device)7, 0, &ctx),
              AMPRT_ERROR_INVALID_ARGUMENT, "unknown device");
  if (amprt_cuda_device_count() == 0) {
    EXPECT_NE(amprt_context_create(AMPRT_DEVICE_CUDA, 0, &ctx), AMPRT_OK);
    // "No GPU" and "a GPU the runtime cannot use" are told apart.
    EXPECT_STRNE(amprt_cuda_unavailable_reason(), "");
  } else {
    EXPECT_STREQ(amprt_cuda_unavailable_reason(), "");
  }
  Runtime rt;
  amprt_tensor *t = nullptr;
  int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 30};
  expectError(amprt_tensor_create(rt.ctx, AMPRT_F32, 2, huge, &t),
              AMPRT_ERROR_OUT_OF_MEMORY, "too large");
  int64_t big[] = {int64_t(1) << 46};
  expectError(amprt_tensor_create(rt.ctx, AMPRT_F32, 1, big, &t),
              AMPRT_ERROR_OUT_OF_MEMORY, "cannot allocate");
  size_t capacity = 0;
  ASSERT_EQ(amprt_memory_capacity(rt.ctx, &capacity), AMPRT_OK);
  EXPECT_EQ(capacity, (size_t)sysconf(_SC_PHYS_PAGES) *
                          (size_t)sysconf(_SC_PAGE_SIZE));
  expectError(amprt_memory_capacity(nullptr, &capacity),
              AMPRT_ERROR_INVALID_ARGUMENT, "null context");
  int64_t zero[] = {0};
  expectError(amprt_tensor_create(rt.ctx, AMPRT_F32, 1, zero, &t),
              AMPRT_ERROR_SHAPE, "sizes must be >= 1");
  Tensor x = rt.make(AMPRT_F32, {4});
  std::vector<char> small(3);
  expectError(amprt_tensor_write(x, small.data(), 3), AMPRT_ERROR_SHAPE,
              "3 bytes given");
}

TEST(RuntimeErrors, OpsRejectBadOperands) {
  Runtime rt;
  Tensor a = rt.make(AMPRT_F32, {2, 3}), b = rt.make(AMPRT_F32, {4});
  Tensor h = rt.make(AMPRT_F16, {2, 3}), c = rt.make(AMPRT_F32, {2, 3});
  Tensor i = rt.make(AMPRT_I32, {2, 3});
  expectError(amprt_add(rt.ctx, a, b, c), AMPRT_ERROR_SHAPE,
              "do not broadcast");
  expectError(amprt_add(rt.ctx, a, h, c), AMPRT_ERROR_DTYPE, "must be f32");
  expectError(amprt_exp(rt.ctx, i, i), AMPRT_ERROR_DTYPE,
              "must be a float tensor");
  expectError(amprt_exp(rt.ctx, nullptr, c), AMPRT_ERROR_INVALID_ARGUMENT,
              "x is null");
  Tensor wrong = rt.make(AMPRT_F32, {3, 2});
  expectError(amprt_relu(rt.ctx, a, wrong), AMPRT_ERROR_SHAPE,
              "must have shape 2x3");
  Tensor m = rt.make(AMPRT_F32, {3, 4}), mc = rt.make(AMPRT_F32, {2, 5});
  expectError(amprt_matmul(rt.ctx, a, m, 0, 0, mc), AMPRT_ERROR_SHAPE,
              "must have shape 2x4");
  expectError(amprt_matmul(rt.ctx, a, a, 0, 0, c), AMPRT_ERROR_SHAPE,
              "contracting dimensions differ");
  // Only a 16-bit product rounds f32 operands, and only a bias gradient of
  // 16-bit data sums into f32; nothing else mixes types.
  Tensor h32 = rt.make(AMPRT_F16, {3, 2}), hc = rt.make(AMPRT_F16, {2, 2});
  Tensor d32 = rt.make(AMPRT_F64, {2, 3});
  expectError(amprt_matmul(rt.ctx, h, wrong, 0, 0, rt.make(AMPRT_F32, {2, 2})),
              AMPRT_ERROR_DTYPE, "a must be c's type (got f16, c is f32)");
  expectError(amprt_matmul(rt.ctx, d32, h32, 0, 0, hc), AMPRT_ERROR_DTYPE,
              "a must be c's type or f32 (got f64, c is f16)");
  expectError(
      amprt_bias_add_grad(rt.ctx, a, AMPRT_NHWC, rt.make(AMPRT_F16, {3})),
      AMPRT_ERROR_DTYPE, "db must be f32");
  expectError(
      amprt_bias_add_grad(rt.ctx, h, AMPRT_NHWC, rt.make(AMPRT_F64, {3})),
      AMPRT_ERROR_DTYPE, "db must be f16");
  expectError(
      amprt_bias_add_grad(rt.ctx, h, AMPRT_NHWC, rt.make(AMPRT_F32, {2})),
      AMPRT_ERROR_SHAPE, "db must have shape 3");
  Tensor x4 = rt.make(AMPRT_F32, {1, 4, 4, 2}), w4 = rt.make(AMPRT_F32, {3, 3, 3, 2});
  Tensor y4 = rt.make(AMPRT_F32, {1, 4, 4, 3});
  int64_t s[2] = {1, 1}, p[4] = {0, 0, 0, 0}, d[2] = {1, 1}, neg[2] = {-1, 1};
  expectError(amprt_conv2d(rt.ctx, x4, w4, s, p, d, AMPRT_NHWC, y4),
              AMPRT_ERROR_SHAPE, "output must be 1x2x2x3");
  expectError(amprt_conv2d(rt.ctx, x4, w4, neg, p, d, AMPRT_NHWC, y4),
              AMPRT_ERROR_INVALID_ARGUMENT, "strides");
  Tensor logits = rt.make(AMPRT_F32, {2, 3}), labels = rt.make(AMPRT_I32, {2}, {0, 3});
  Tensor loss = rt.make(AMPRT_F32, {2});
  expectError(amprt_softmax_cross_entropy(rt.ctx, logits, labels, loss),
              AMPRT_ERROR_INDEX, "label 3 of example 1");
  expectError(amprt_softmax(rt.ctx, a, 2, c), AMPRT_ERROR_INVALID_ARGUMENT,
              "axis 2 out of range");
  Tensor lr = rt.make(AMPRT_F32, {1});
  expectError(amprt_sgd_update(rt.ctx, a, a, lr, c), AMPRT_ERROR_SHAPE,
              "rank-0 f32");
  expectError(amprt_sgd_update(rt.ctx, h, h, lr, h), AMPRT_ERROR_DTYPE,
              "must be f32");
  Runtime other;
  Tensor foreign = other.make(AMPRT_F32, {2, 3});
  expectError(amprt_neg(rt.ctx, foreign, c), AMPRT_ERROR_INVALID_ARGUMENT,
              "another context");
}

} // namespace
