//===- AmpRunTest.cpp - amp-run's library, run in process -----------------===//
//
// What amp-run does, without a subprocess: checkConfig's refusals, the
// pipelines buildStepPipeline makes of one config (every step through
// buildAmpPipeline), and compileAndRun training and validating a small MLP
// on synthetic data, its reports read back.
//
//===----------------------------------------------------------------------===//

#include "amp/InitAll.h"
#include "amp/Run/Compile.h"
#include "amp/Run/Run.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

using namespace mlir;
using amp::run::RunConfig;

namespace {

// 16 features -> 8 -> 4 classes, batch 8, SGD.
const char *kMlp = R"mlir(
func.func @train_step(
    %w1: tensor<16x8xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b1: tensor<8xf32> {tg.role = "param", tg.init = "zeros"},
    %w2: tensor<8x4xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b2: tensor<4xf32> {tg.role = "param", tg.init = "zeros"},
    %x: tensor<8x16xf32> {tg.role = "input"},
    %y: tensor<8xi32> {tg.role = "label"},
    %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"},
        tensor<16x8xf32> {tg.role = "param"}, tensor<8xf32> {tg.role = "param"},
        tensor<8x4xf32> {tg.role = "param"}, tensor<4xf32> {tg.role = "param"}) {
  %h = tg.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x8xf32>
  %hb = tg.bias_add %h, %b1 : tensor<8x8xf32>, tensor<8xf32>
  %r = tg.relu %hb : tensor<8x8xf32>
  %l = tg.matmul %r, %w2 : tensor<8x8xf32>, tensor<8x4xf32>
  %logits = tg.bias_add %l, %b2 : tensor<8x4xf32>, tensor<4xf32>
  %ce = tg.softmax_cross_entropy %logits, %y : tensor<8x4xf32>, tensor<8xi32>
  %loss = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<8xf32>
  %g:4 = tg.gradients %loss wrt %w1, %b1, %w2, %b2
      : tensor<f32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>
  %w1n = tg.sgd_update %w1, %g#0, %lr : tensor<16x8xf32>
  %b1n = tg.sgd_update %b1, %g#1, %lr : tensor<8xf32>
  %w2n = tg.sgd_update %w2, %g#2, %lr : tensor<8x4xf32>
  %b2n = tg.sgd_update %b2, %g#3, %lr : tensor<4xf32>
  return %loss, %w1n, %b1n, %w2n, %b2n
      : tensor<f32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>
}
)mlir";

class AmpRunTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("amp-run-test", dir));
    std::error_code ec;
    llvm::raw_fd_ostream(path("mlp.mlir"), ec) << kMlp;
    ASSERT_FALSE(ec);
    config.run.inputFile = path("mlp.mlir");
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string path(llvm::StringRef name) const {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }
  /// The JSON file at `name` in the test's folder, as an object.
  llvm::json::Object readJSON(llvm::StringRef name) const {
    auto buffer = llvm::MemoryBuffer::getFile(path(name));
    EXPECT_TRUE(bool(buffer)) << name.str();
    if (!buffer)
      return {};
    auto value = llvm::json::parse((*buffer)->getBuffer());
    EXPECT_TRUE(bool(value)) << llvm::toString(value.takeError());
    if (!value || !value->getAsObject())
      return {};
    return std::move(*value->getAsObject());
  }
  /// The pass names `step`'s pipeline holds, as text.
  std::string pipeline(amp::PipelineStep step, bool parallel = false) {
    MLIRContext context;
    PassManager pm(&context);
    amp::run::buildStepPipeline(pm, config, step, parallel, {"train_step"});
    std::string text;
    llvm::raw_string_ostream os(text);
    pm.printAsTextualPipeline(os);
    return text;
  }

  llvm::SmallString<128> dir;
  RunConfig config;
};

TEST_F(AmpRunTest, DefaultConfigIsAccepted) {
  EXPECT_EQ(amp::run::checkConfig(config), "");
}

TEST_F(AmpRunTest, ConfigRefusals) {
  auto refusal = [&](auto change) {
    RunConfig c = config;
    change(c);
    return amp::run::checkConfig(c);
  };
  EXPECT_NE(refusal([](RunConfig &c) { c.run.precision = "f8"; }), "");
  EXPECT_EQ(refusal([](RunConfig &c) {
              c.run.precision = "f32";
              c.listsFile = "lists.json";
            }),
            "--lists-file needs --precision=f16, bf16 or fp8");
  EXPECT_EQ(refusal([](RunConfig &c) { c.accumulate = 0; }),
            "--accumulate=K needs K >= 1 micro-batches, got 0");
  EXPECT_NE(refusal([](RunConfig &c) {
              c.validateSteps = 2;
              c.accumulate = 2;
            }).find("takes no --accumulate"),
            std::string::npos);
  EXPECT_NE(refusal([](RunConfig &c) {
              c.compileOnly = true;
              c.validateSteps = 1;
            }).find("--compile-only stops before training"),
            std::string::npos);
  EXPECT_NE(refusal([](RunConfig &c) {
              c.run.precision = "f32";
              c.validateSteps = 1;
            }).find("give --precision=f16, bf16 or fp8"),
            std::string::npos);
  EXPECT_EQ(refusal([](RunConfig &c) { c.validateSteps = 0; }),
            "--validate=N needs a step count >= 1, got '0'");
  // The command line's word is quoted, after the checks before it.
  EXPECT_EQ(refusal([](RunConfig &c) {
              c.validateSteps = 0;
              c.validateText = "abc";
            }),
            "--validate=N needs a step count >= 1, got 'abc'");
  EXPECT_NE(refusal([](RunConfig &c) {
              c.run.precision = "f32";
              c.validateSteps = 0;
              c.validateText = "abc";
            }).find("give --precision=f16, bf16 or fp8"),
            std::string::npos);
  EXPECT_NE(refusal([](RunConfig &c) {
              c.validateSteps = 1;
              c.tolerances.flushed = -1;
            }).find("finite values > 0"),
            std::string::npos);
  EXPECT_NE(refusal([](RunConfig &c) {
              c.tolerancesGiven = true;
            }).find("need --validate"),
            std::string::npos);
  EXPECT_NE(refusal([](RunConfig &c) {
              c.validateSteps = 1;
              c.run.gradCommGiven = true;
            }).find("in one process"),
            std::string::npos);
  // An output that is the input would destroy it.
  EXPECT_NE(refusal([&](RunConfig &c) { c.emitObj = c.run.inputFile; }), "");
  EXPECT_NE(refusal([&](RunConfig &c) {
              c.run.reportPath = path("same.json");
              c.validateSteps = 1;
              c.validateFix = path("same.json");
            }),
            "");
}

TEST_F(AmpRunTest, EveryStepGoesThroughTheAmpPipeline) {
  config.run.precision = "f32";
  std::string f32 = pipeline(amp::PipelineStep::F32);
  EXPECT_NE(f32.find("tg-autodiff"), std::string::npos) << f32;
  EXPECT_EQ(f32.find("amp-auto-mixed-precision"), std::string::npos) << f32;
  EXPECT_EQ(f32.find("amp-loss-scaling"), std::string::npos) << f32;

  config.run.precision = "bf16";
  std::string bf16 = pipeline(amp::PipelineStep::Mixed);
  EXPECT_NE(bf16.find("amp-auto-mixed-precision"), std::string::npos) << bf16;
  EXPECT_EQ(bf16.find("amp-loss-scaling"), std::string::npos) << bf16;
  EXPECT_NE(pipeline(amp::PipelineStep::Mixed, /*parallel=*/true)
                .find("tg-data-parallel"),
            std::string::npos);

  // --validate's two steps: the mixed one returns its gradients' norms; the
  // probed one is scaled as f16's is, and neither padded nor accumulated.
  config.run.precision = "f16";
  config.validateSteps = 3;
  config.padTensorCores = true;
  std::string mixed = pipeline(amp::PipelineStep::Mixed);
  EXPECT_NE(mixed.find("amp-pad-for-tensor-cores"), std::string::npos);
  EXPECT_NE(mixed.find("amp-validation-probes"), std::string::npos) << mixed;
  config.accumulate = 2;
  std::string probed = pipeline(amp::PipelineStep::Probed);
  EXPECT_EQ(probed.find("amp-auto-mixed-precision"), std::string::npos);
  EXPECT_NE(probed.find("amp-validation-probes"), std::string::npos);
  EXPECT_NE(probed.find("amp-loss-scaling"), std::string::npos) << probed;
  EXPECT_EQ(probed.find("amp-pad-for-tensor-cores"), std::string::npos);
  EXPECT_EQ(probed.find("amp-accumulate-gradients"), std::string::npos);
}

TEST_F(AmpRunTest, TrainsInProcess) {
  config.run.steps = 4;
  config.run.logEvery = 2;
  config.run.reportPath = path("report.json");
  ASSERT_EQ(amp::run::checkConfig(config), "");
  ASSERT_EQ(amp::run::compileAndRun(config), 0);
  llvm::json::Object report = readJSON("report.json");
  EXPECT_EQ(report.getString("precision"), "f16");
  const llvm::json::Array *perStep = report.getArray("per_step");
  ASSERT_TRUE(perStep);
  EXPECT_EQ(perStep->size(), 4u);
}

TEST_F(AmpRunTest, ValidatesInProcess) {
  config.validateSteps = 2;
  config.run.reportPath = path("report.json");
  ASSERT_EQ(amp::run::compileAndRun(config), 0);
  llvm::json::Object report = readJSON("report.json");
  const llvm::json::Object *validation = report.getObject("validation");
  ASSERT_TRUE(validation);
  EXPECT_EQ(validation->getInteger("failing_ops"), 0);
  const llvm::json::Array *ops = validation->getArray("ops");
  ASSERT_TRUE(ops);
  EXPECT_FALSE(ops->empty());
  EXPECT_EQ(validation->getArray("steps")->size(), 2u);
  // Four params, one gradient norm each per step.
  EXPECT_EQ(validation->getArray("gradient_norms")->size(), 8u);

  // No f16 op is within a billionth of f32: every matmul fails, and the
  // fix denies them.
  config.tolerances.relativeF16 = 1e-9;
  config.tolerancesGiven = true;
  config.validateFix = path("lists.json");
  ASSERT_EQ(amp::run::compileAndRun(config), 0);
  report = readJSON("report.json");
  validation = report.getObject("validation");
  ASSERT_TRUE(validation);
  EXPECT_GT(*validation->getInteger("failing_ops"), 0);
  llvm::json::Object lists = readJSON("lists.json");
  const llvm::json::Array *deny = lists.getArray("deny");
  ASSERT_TRUE(deny);
  EXPECT_NE(llvm::find(*deny, llvm::json::Value("tg.matmul")), deny->end());
}

TEST_F(AmpRunTest, ErrorsAreAnExitStatus) {
  config.entry = "missing";
  EXPECT_EQ(amp::run::compileAndRun(config), 1);
}

} // namespace
