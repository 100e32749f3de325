//===- AutodiffGradientCheckTest.cpp - Every rule vs finite differences ---===//
//
// For every differentiable tg op: a small f64 graph loss = sum(op(...) * r)
// is differentiated by --tg-autodiff, lowered to the runtime, JIT-compiled
// and run; each gradient is compared with central finite differences of
// the same compiled loss. This checks the rule, the backward op and the
// runtime kernel together.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/Dialect/TG/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Transforms/Passes.h"
#include "amprt/amprt.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include <gtest/gtest.h>
#include <random>

using namespace mlir;

namespace {

struct Input {
  std::vector<int64_t> shape;
  double lo = -1, hi = 1;
  bool integer = false; // i32 labels/indices: values in [0, hi)
};

struct Case {
  const char *name;
  std::vector<Input> inputs; // %a0, %a1, ...; float ones are differentiated
  std::string body;          // defines %y from the inputs
  std::string yType;         // e.g. tensor<4x5xf64>
};

std::string tensorType(const Input &in) {
  std::string s = "tensor<";
  for (int64_t d : in.shape)
    s += std::to_string(d) + "x";
  return s + (in.integer ? "i32>" : "f64>");
}

/// The module: @f(inputs..., %r) -> (loss, d loss / d float inputs).
std::string moduleFor(const Case &c, std::vector<int> &floatInputs) {
  std::string args, wrt, wrtTypes, results = "tensor<f64>";
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    std::string t = tensorType(c.inputs[i]);
    args += "%a" + std::to_string(i) + ": " + t + ", ";
    if (!c.inputs[i].integer) {
      floatInputs.push_back(i);
      wrt += std::string(wrt.empty() ? "" : ", ") + "%a" + std::to_string(i);
      wrtTypes += ", " + t;
      results += ", " + t;
    }
  }
  std::string yShape = c.yType.substr(7, c.yType.size() - 8); // 4x5xf64
  int rank = 0;
  for (char ch : yShape)
    rank += ch == 'x';
  std::string dims;
  for (int d = 0; d < rank; ++d)
    dims += (d ? ", " : "") + std::to_string(d);
  std::string m = "func.func @f(" + args + "%r: " + c.yType + ") -> (" +
                  results + ") {\n" + c.body + "\n";
  m += "  %p = tg.mul %y, %r : " + c.yType + "\n";
  m += "  %l = tg.reduce_sum %p {dims = array<i64: " + dims + ">} : " +
       c.yType + "\n";
  size_t n = floatInputs.size();
  m += "  %g" + std::string(n > 1 ? ":" + std::to_string(n) : "") +
       " = tg.gradients %l wrt " + wrt + " : tensor<f64>" + wrtTypes + "\n";
  m += "  return %l";
  for (size_t i = 0; i < n; ++i)
    m += n > 1 ? ", %g#" + std::to_string(i) : ", %g";
  m += " : " + results + "\n}\n";
  return m;
}

class GradientCheck : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    amp::initializeJitTarget();
  }

  void check(const Case &c) {
    DialectRegistry registry;
    amp::registerAllForJit(registry);
    MLIRContext context(registry);
    context.loadAllAvailableDialects();
    std::vector<int> floatInputs;
    std::string text = moduleFor(c, floatInputs);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module) << text;
    PassManager pm(&context);
    pm.addPass(amp::createTGAutodiffPass());
    amp::buildLowerToLLVMPipeline(pm);
    ASSERT_TRUE(succeeded(pm.run(*module))) << text;
    auto engine = ExecutionEngine::create(*module);
    ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());
    (*engine)->initialize();
    auto sym = (*engine)->lookup("f");
    ASSERT_TRUE(bool(sym));
    using Fn = int32_t (*)(void *, void **, void **);
    auto fn = reinterpret_cast<Fn>(*sym);

    amprt_context *ctx;
    ASSERT_EQ(amprt_context_create(AMPRT_DEVICE_CPU, 0, &ctx), AMPRT_OK);
    std::mt19937 rng(7);
    std::vector<std::vector<double>> values;
    std::vector<amprt_tensor *> tensors;
    auto makeTensor = [&](const Input &in, std::vector<double> &v) {
      int64_t n = 1;
      for (int64_t d : in.shape)
        n *= d;
      v.resize(n);
      std::uniform_real_distribution<double> dist(in.lo, in.hi);
      amprt_tensor *t;
      amprt_tensor_create(ctx, in.integer ? AMPRT_I32 : AMPRT_F64,
                          in.shape.size(), in.shape.data(), &t);
      if (in.integer) {
        std::vector<int32_t> iv(n);
        for (int64_t i = 0; i < n; ++i)
          iv[i] = (int32_t)(rng() % (uint32_t)in.hi);
        amprt_tensor_write(t, iv.data(), n * 4);
      } else {
        for (double &x : v)
          x = dist(rng);
        amprt_tensor_write(t, v.data(), n * 8);
      }
      return t;
    };
    std::vector<Input> all = c.inputs;
    Input r;
    std::string yShape = c.yType.substr(7, c.yType.size() - 12);
    for (StringRef d : llvm::split(yShape, 'x'))
      if (!d.empty())
        r.shape.push_back(std::stoll(d.str()));
    all.push_back(r);
    for (const Input &in : all) {
      values.emplace_back();
      tensors.push_back(makeTensor(in, values.back()));
    }
    std::vector<void *> results(1 + floatInputs.size());
    auto lossAt = [&]() {
      std::vector<void *> out(results.size());
      EXPECT_EQ(fn(ctx, (void **)tensors.data(), out.data()), AMPRT_OK)
          << amprt_context_error(ctx);
      double loss;
      amprt_tensor_read((amprt_tensor *)out[0], &loss, 8);
      for (void *t : out)
        amprt_tensor_release((amprt_tensor *)t);
      return loss;
    };
    ASSERT_EQ(fn(ctx, (void **)tensors.data(), results.data()), AMPRT_OK)
        << c.name << ": " << amprt_context_error(ctx);
    for (size_t k = 0; k < floatInputs.size(); ++k) {
      int which = floatInputs[k];
      std::vector<double> &v = values[which];
      std::vector<double> grad(v.size());
      amprt_tensor_read((amprt_tensor *)results[1 + k], grad.data(),
                        grad.size() * 8);
      for (int trial = 0; trial < 6; ++trial) {
        size_t i = rng() % v.size();
        double keep = v[i], h = 1e-6;
        v[i] = keep + h;
        amprt_tensor_write(tensors[which], v.data(), v.size() * 8);
        double up = lossAt();
        v[i] = keep - h;
        amprt_tensor_write(tensors[which], v.data(), v.size() * 8);
        double down = lossAt();
        v[i] = keep;
        amprt_tensor_write(tensors[which], v.data(), v.size() * 8);
        double numeric = (up - down) / (2 * h);
        EXPECT_NEAR(grad[i], numeric,
                    2e-6 * std::max(1.0, std::fabs(numeric)))
            << c.name << ": input " << which << " coordinate " << i;
      }
    }
    for (void *t : results)
      amprt_tensor_release((amprt_tensor *)t);
    for (amprt_tensor *t : tensors)
      amprt_tensor_release(t);
    amprt_context_destroy(ctx);
  }
};

const std::string T45 = "tensor<4x5xf64>";

Case unaryCase(const char *op, double lo = -2, double hi = 2) {
  return {op, {{{4, 5}, lo, hi}},
          std::string("  %y = tg.") + op + " %a0 : " + T45, T45};
}
Case binaryCase(const char *op, double lo = -2, double hi = 2) {
  // The second operand broadcasts along the rows.
  return {op, {{{4, 5}, lo, hi}, {{5}, lo, hi}},
          std::string("  %y = tg.") + op + " %a0, %a1 : " + T45 +
              ", tensor<5xf64>",
          T45};
}

TEST_F(GradientCheck, Unary) {
  for (const char *op : {"neg", "abs", "exp", "square", "tanh", "sigmoid",
                         "relu", "gelu", "erf"})
    check(unaryCase(op));
  for (const char *op : {"log", "sqrt", "rsqrt", "reciprocal"})
    check(unaryCase(op, 0.5, 2));
  check({"leaky_relu", {{{4, 5}}},
         "  %y = tg.leaky_relu %a0 {alpha = 0.1 : f64} : " + T45, T45});
}

TEST_F(GradientCheck, BinaryAndSelect) {
  for (const char *op : {"add", "sub", "mul", "maximum", "minimum"})
    check(binaryCase(op));
  check(binaryCase("div", 0.5, 2));
  check(binaryCase("pow", 0.5, 2));
  check({"select",
         {{{4, 5}}, {{4, 5}}, {{4, 5}}},
         "  %z = arith.constant dense<0.0> : tensor<f64>\n"
         "  %c = tg.compare \"gt\", %a0, %z : " + T45 + ", tensor<f64>\n"
         "  %y = tg.select %c, %a1, %a2 : tensor<4x5xi1>, " + T45,
         T45});
}

TEST_F(GradientCheck, Contractions) {
  check({"matmul", {{{4, 3}}, {{3, 5}}},
         "  %y = tg.matmul %a0, %a1 : tensor<4x3xf64>, tensor<3x5xf64>", T45});
  check({"matmul_tt", {{{3, 4}}, {{5, 3}}},
         "  %y = tg.matmul %a0, %a1 {transpose_a = true, transpose_b = true} "
         ": tensor<3x4xf64>, tensor<5x3xf64>",
         T45});
  check({"batch_matmul", {{{2, 4, 3}}, {{2, 5, 3}}},
         "  %y = tg.batch_matmul %a0, %a1 {transpose_b = true} : "
         "tensor<2x4x3xf64>, tensor<2x5x3xf64>",
         "tensor<2x4x5xf64>"});
}

TEST_F(GradientCheck, ConvolutionBiasPooling) {
  check({"conv2d", {{{2, 5, 5, 2}}, {{3, 3, 3, 2}}},
         "  %y = tg.conv2d %a0, %a1 {strides = array<i64: 2, 1>, padding = "
         "array<i64: 1, 1, 0, 1>} : tensor<2x5x5x2xf64>, tensor<3x3x3x2xf64>",
         "tensor<2x3x4x3xf64>"});
  check({"conv2d_nchw", {{{1, 2, 5, 4}}, {{3, 2, 2, 2}}},
         "  %y = tg.conv2d %a0, %a1 {layout = \"NCHW\", dilations = "
         "array<i64: 2, 1>} : tensor<1x2x5x4xf64>, tensor<3x2x2x2xf64>",
         "tensor<1x3x3x3xf64>"});
  check({"bias_add", {{{2, 3, 3, 4}}, {{4}}},
         "  %y = tg.bias_add %a0, %a1 : tensor<2x3x3x4xf64>, tensor<4xf64>",
         "tensor<2x3x3x4xf64>"});
  check({"max_pool2d", {{{2, 4, 4, 3}}},
         "  %y = tg.max_pool2d %a0 {window = array<i64: 2, 2>, strides = "
         "array<i64: 2, 2>} : tensor<2x4x4x3xf64>",
         "tensor<2x2x2x3xf64>"});
  check({"avg_pool2d", {{{2, 4, 4, 3}}},
         "  %y = tg.avg_pool2d %a0 {window = array<i64: 3, 3>, padding = "
         "array<i64: 1, 1, 1, 1>} : tensor<2x4x4x3xf64>",
         "tensor<2x4x4x3xf64>"});
}

TEST_F(GradientCheck, NormalizationSoftmaxLoss) {
  check({"batch_norm", {{{3, 2, 2, 4}}, {{4}}, {{4}}},
         "  %y, %m, %i = tg.batch_norm %a0, %a1, %a2 : tensor<3x2x2x4xf64>, "
         "tensor<4xf64>",
         "tensor<3x2x2x4xf64>"});
  check({"layer_norm", {{{3, 6}}, {{6}}, {{6}}},
         "  %y, %m, %i = tg.layer_norm %a0, %a1, %a2 : tensor<3x6xf64>, "
         "tensor<6xf64>",
         "tensor<3x6xf64>"});
  check({"softmax", {{{4, 5}}}, "  %y = tg.softmax %a0 : " + T45, T45});
  check({"log_softmax", {{{4, 5}}},
         "  %y = tg.log_softmax %a0 {axis = 0 : i64} : " + T45, T45});
  check({"softmax_cross_entropy", {{{4, 5}}, {{4}, 0, 5, true}},
         "  %y = tg.softmax_cross_entropy %a0, %a1 : " + T45 +
             ", tensor<4xi32>",
         "tensor<4xf64>"});
}

TEST_F(GradientCheck, ReductionsAndShapes) {
  check({"reduce_sum", {{{4, 5}}},
         "  %y = tg.reduce_sum %a0 {dims = array<i64: 1>} : " + T45,
         "tensor<4xf64>"});
  check({"reduce_mean", {{{4, 5}}},
         "  %y = tg.reduce_mean %a0 {dims = array<i64: 0>, keepdims = true} "
         ": " + T45,
         "tensor<1x5xf64>"});
  check({"reduce_max", {{{4, 5}}},
         "  %y = tg.reduce_max %a0 {dims = array<i64: 1>} : " + T45,
         "tensor<4xf64>"});
  check({"reshape_transpose", {{{4, 5}}},
         "  %t = tg.transpose %a0 {perm = array<i64: 1, 0>} : " + T45 +
             "\n  %y = tg.reshape %t : tensor<5x4xf64> -> tensor<20xf64>",
         "tensor<20xf64>"});
  check({"broadcast_to", {{{5}}},
         "  %y = tg.broadcast_to %a0 : tensor<5xf64> -> " + T45, T45});
  check({"concat_slice_pad", {{{4, 5}}, {{4, 2}}},
         "  %c = tg.concat %a0, %a1 : " + T45 +
             ", tensor<4x2xf64>\n"
             "  %s = tg.slice %c {offsets = array<i64: 1, 1>, sizes = "
             "array<i64: 3, 5>} : tensor<4x7xf64>\n"
             "  %y = tg.pad %s {low = array<i64: 1, 0>, high = array<i64: 0, "
             "0>} : tensor<3x5xf64>",
         T45});
  check({"gather", {{{6, 5}}, {{4}, 0, 6, true}},
         "  %y = tg.gather %a0, %a1 : tensor<6x5xf64>, tensor<4xi32>", T45});
}

} // namespace
