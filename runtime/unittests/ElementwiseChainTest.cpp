//===- ElementwiseChainTest.cpp - Elementwise ops fused into one pass -----===//
//
// amprt_elementwise_chain against the calls it replaces, one per step into
// tensors of their own: the same values in every float type (each step
// rounded as its call stores it), for every op, over sizes that end inside
// a block and split over the threads, written over an input, and the
// refusals of programs that do not fit.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "common/Runtime.h"

using namespace amprt_test;

namespace {

constexpr double kSlope = 0.125;

/// A chain step: op, then its operands (values: inputs first).
struct Step {
  amprt_chain_op op;
  int a, b;
};

/// The step's own call.
amprt_status runAlone(amprt_context *ctx, const Step &s, const amprt_tensor *a,
                      const amprt_tensor *b, amprt_tensor *y) {
  switch (s.op) {
#define AMPRT_UNARY(name, Kind, CODE)                                          \
  case AMPRT_CHAIN_##CODE:                                                     \
    return amprt_##name(ctx, a, y);
#define AMPRT_UNARY_ALPHA(name, Kind, CODE)                                    \
  case AMPRT_CHAIN_##CODE:                                                     \
    return amprt_##name(ctx, a, kSlope, y);
#include "amprt/amprt_unary.def"
#define AMPRT_BINARY(name, Kind, CODE)                                         \
  case AMPRT_CHAIN_##CODE:                                                     \
    return amprt_##name(ctx, a, b, y);
#include "amprt/amprt_binary.def"
  default:
    return AMPRT_ERROR_INVALID_ARGUMENT;
  }
}

struct Program {
  std::vector<int64_t> codes;
  std::vector<double> alphas;
  explicit Program(const std::vector<Step> &steps) {
    for (const Step &s : steps) {
      codes.insert(codes.end(), {(int64_t)s.op, s.a, s.b});
      alphas.push_back(kSlope);
    }
  }
};

/// `count` inputs of random values in [lo, hi].
std::vector<Tensor> randomInputs(Runtime &rt, amprt_dtype dtype,
                                 const Shape &shape, int count, double lo,
                                 double hi) {
  std::vector<Tensor> inputs;
  for (int k = 0; k < count; ++k)
    inputs.push_back(
        rt.make(dtype, shape, randomValues(numel(shape), 70 + k, lo, hi)));
  return inputs;
}

/// The chain over `inputs` in one call and step by step, compared;
/// `inPlace` writes the chain over input 0.
void expectChainIsTheCalls(Runtime &rt, std::vector<Tensor> values,
                           const std::vector<Step> &steps, bool inPlace,
                           const std::string &what) {
  amprt_dtype dtype = values.front().t->dtype;
  Shape shape = values.front().t->shape;
  std::vector<amprt_tensor *> in;
  for (Tensor &t : values)
    in.push_back(t);
  for (const Step &s : steps) {
    values.push_back(rt.make(dtype, shape));
    ASSERT_EQ(runAlone(rt.ctx, s, values[s.a], values[s.b], values.back()),
              AMPRT_OK)
        << what << ": " << amprt_last_error();
  }
  std::vector<double> want = rt.read(values.back());
  Tensor fresh = rt.make(dtype, shape);
  amprt_tensor *y = inPlace ? in[0] : fresh.t;
  Program program(steps);
  ASSERT_EQ(amprt_elementwise_chain(rt.ctx, in.data(), in.size(),
                                    program.codes.data(), program.alphas.data(),
                                    steps.size(), y),
            AMPRT_OK)
      << what << ": " << amprt_last_error();
  expectSameValues(rt.read(y), want, what);
}

const amprt_dtype kTypes[] = {AMPRT_F32, AMPRT_F16, AMPRT_BF16, AMPRT_F64};

// torch-mlir's decomposition of gelu: x * 0.5 * (1 + erf(x / sqrt(2))),
// its constants as inputs.
TEST(ElementwiseChain, DecomposedGeluIsItsOps) {
  Runtime rt;
  std::vector<Step> gelu = {{AMPRT_CHAIN_MUL, 0, 1},  // 4: x * c
                            {AMPRT_CHAIN_ERF, 4, 0},  // 5
                            {AMPRT_CHAIN_ADD, 5, 2},  // 6: + 1
                            {AMPRT_CHAIN_MUL, 0, 3},  // 7: x * 0.5
                            {AMPRT_CHAIN_MUL, 7, 6}}; // 8
  for (amprt_dtype dtype : kTypes)
    for (Shape shape : {Shape{7, 13}, Shape{50001}}) {
      int64_t n = numel(shape);
      std::vector<Tensor> inputs = randomInputs(rt, dtype, shape, 1, -4, 4);
      for (double constant : {0.7071067811865476, 1.0, 0.5})
        inputs.push_back(
            rt.make(dtype, shape, std::vector<double>(n, constant)));
      expectChainIsTheCalls(rt, std::move(inputs), gelu, false,
                            std::string("gelu ") + amprt::dtypeName(dtype) +
                                " " + std::to_string(n));
    }
}

// Every op, in two chains of at most 16 steps over positive inputs (log,
// sqrt and pow stay finite), some binary steps reading an input twice.
TEST(ElementwiseChain, EveryOpIsItsCall) {
  Runtime rt;
  std::vector<Step> unaries = {
      {AMPRT_CHAIN_NEG, 0, 0},         {AMPRT_CHAIN_ABS, 3, 0},
      {AMPRT_CHAIN_LOG, 4, 0},         {AMPRT_CHAIN_EXP, 5, 0},
      {AMPRT_CHAIN_SQRT, 6, 0},        {AMPRT_CHAIN_RSQRT, 7, 0},
      {AMPRT_CHAIN_SQUARE, 8, 0},      {AMPRT_CHAIN_RECIPROCAL, 9, 0},
      {AMPRT_CHAIN_TANH, 10, 0},       {AMPRT_CHAIN_SIGMOID, 11, 0},
      {AMPRT_CHAIN_SUB, 12, 1},        {AMPRT_CHAIN_RELU, 13, 0},
      {AMPRT_CHAIN_GELU, 14, 0},       {AMPRT_CHAIN_ERF, 15, 0},
      {AMPRT_CHAIN_LEAKY_RELU, 16, 0}, {AMPRT_CHAIN_SILU, 17, 0}};
  std::vector<Step> binaries = {
      {AMPRT_CHAIN_ADD, 0, 1},     {AMPRT_CHAIN_SUB, 3, 2},
      {AMPRT_CHAIN_MUL, 4, 0},     {AMPRT_CHAIN_DIV, 5, 1},
      {AMPRT_CHAIN_ABS, 6, 0},     {AMPRT_CHAIN_POW, 7, 2},
      {AMPRT_CHAIN_MAXIMUM, 8, 0}, {AMPRT_CHAIN_MINIMUM, 9, 1},
      {AMPRT_CHAIN_MUL, 10, 10}};
  for (amprt_dtype dtype : kTypes)
    for (Shape shape : {Shape{3, 5, 17}, Shape{40000}}) {
      std::string what = std::string(amprt::dtypeName(dtype)) + " " +
                         std::to_string(numel(shape));
      expectChainIsTheCalls(rt, randomInputs(rt, dtype, shape, 3, 0.25, 2),
                            unaries, false, "unary ops " + what);
      expectChainIsTheCalls(rt, randomInputs(rt, dtype, shape, 3, 0.25, 2),
                            binaries, false, "binary ops " + what);
    }
}

// The result may take an input's storage (the lowering writes a chain over
// an input that dies at it).
TEST(ElementwiseChain, WritesOverAnInput) {
  Runtime rt;
  std::vector<Step> steps = {{AMPRT_CHAIN_MUL, 0, 1},
                             {AMPRT_CHAIN_ADD, 2, 0},
                             {AMPRT_CHAIN_TANH, 3, 0},
                             {AMPRT_CHAIN_MUL, 4, 0}};
  for (amprt_dtype dtype : kTypes)
    expectChainIsTheCalls(rt, randomInputs(rt, dtype, {33000}, 2, -2, 2), steps,
                          true,
                          std::string("in place ") + amprt::dtypeName(dtype));
}

TEST(ElementwiseChain, RefusesProgramsThatDoNotFit) {
  Runtime rt;
  Tensor x = rt.make(AMPRT_F32, {4, 5}, randomValues(20, 91));
  Tensor y = rt.make(AMPRT_F32, {4, 5});
  Tensor otherShape = rt.make(AMPRT_F32, {5, 4});
  Tensor otherType = rt.make(AMPRT_F16, {4, 5});
  Tensor ints = rt.make(AMPRT_I32, {4, 5});
  amprt_tensor *in[2] = {x, x};
  double alphas[AMPRT_CHAIN_MAX_STEPS + 1] = {};
  auto lastError = [] { return std::string(amprt_last_error()); };
  auto refused = [&](std::vector<int64_t> program, int inputs,
                     amprt_tensor *const *from, amprt_tensor *to,
                     const std::string &message) {
    EXPECT_NE(amprt_elementwise_chain(rt.ctx, from, inputs, program.data(),
                                      alphas, program.size() / 3, to),
              AMPRT_OK)
        << message;
    EXPECT_NE(lastError().find(message), std::string::npos) << lastError();
  };
  refused({999, 0, 0}, 1, in, y, "step 0: unknown op 999");
  refused({-1, 0, 0}, 1, in, y, "step 0: unknown op -1");
  refused({AMPRT_CHAIN_ADD, 0, 1}, 1, in, y,
          "step 0 reads value 1; only values 0 to 0");
  refused({AMPRT_CHAIN_EXP, 0, 0, AMPRT_CHAIN_EXP, 2, 0}, 1, in, y,
          "step 1 reads value 2; only values 0 to 1");
  refused({}, 1, in, y, "0 steps");
  std::vector<int64_t> tooLong;
  for (int s = 0; s <= AMPRT_CHAIN_MAX_STEPS; ++s)
    tooLong.insert(tooLong.end(), {AMPRT_CHAIN_EXP, s, 0});
  refused(tooLong, 1, in, y, "17 steps");
  amprt_tensor *shapes[2] = {x, otherShape};
  refused({AMPRT_CHAIN_ADD, 0, 1}, 2, shapes, y, "input 1");
  amprt_tensor *types[2] = {x, otherType};
  refused({AMPRT_CHAIN_ADD, 0, 1}, 2, types, y, "input 1");
  amprt_tensor *withNull[2] = {x, nullptr};
  refused({AMPRT_CHAIN_ADD, 0, 1}, 2, withNull, y, "input 1");
  amprt_tensor *intsIn[1] = {ints};
  refused({AMPRT_CHAIN_NEG, 0, 0}, 1, intsIn, ints, "amprt_elementwise_chain");
  int64_t program[3] = {AMPRT_CHAIN_NEG, 0, 0};
  EXPECT_EQ(amprt_elementwise_chain(rt.ctx, nullptr, 1, program, alphas, 1, y),
            AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amprt_elementwise_chain(rt.ctx, in, 1, program, nullptr, 1, y),
            AMPRT_ERROR_INVALID_ARGUMENT);
}

} // namespace
