//===- PipelineHarness.cpp - One fuzz input through compiler and runtime --===//

#include "PipelineHarness.h"
#include "ForeignFromBytes.h"
#include "GraphFromBytes.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/TG/IR/TGShapes.h"
#include "amp/Dialect/TG/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Runner/StepRunner.h"
#include "amp/Transforms/Passes.h"
#include "amp/Transforms/Pipeline.h"
#include "amprt/amprt.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>

using namespace mlir;

namespace {

[[noreturn]] void violation(const std::string &what, StringRef ir) {
  fprintf(stderr, "amp-pipeline-fuzzer: %s\n--- input ---\n%s\n", what.c_str(),
          ir.str().c_str());
  fflush(stderr);
  abort();
}

/// The pass manager's own verifier turns invalid IR into a pass failure,
/// which for hostile text is an allowed outcome; a pass that *succeeds* with
/// invalid IR is a bug, so check that here and abort.
class VerifyAfterEachPass : public PassInstrumentation {
public:
  explicit VerifyAfterEachPass(StringRef input) : input(input) {}
  void runAfterPass(Pass *pass, Operation *op) override {
    if (failed(verify(op)))
      violation("the IR does not verify after --" + pass->getArgument().str(),
                input);
  }

private:
  StringRef input;
};

DialectRegistry &registry() {
  // Built once and kept for the process: every input's context shares it.
  static DialectRegistry *r = [] {
    auto *r = new DialectRegistry;
    amp::registerAllForJit(*r);
    return r;
  }();
  return *r;
}

using amp::runner::Signature;

struct Compiled {
  std::optional<amp::runner::JitModule> jit;
  amp::runner::StepFn fn = nullptr;
  Signature signature;
};

/// Runs `build`'s passes and the lowering (with amp-lower-to-runtime's
/// `lowerOptions`) on `module`, then JITs @train_step.
/// A pipeline that fails returns nothing unless `mustCompile`, when it is a
/// violation (valid generated steps must always compile).
std::optional<Compiled> compile(ModuleOp module,
                                function_ref<void(OpPassManager &)> build,
                                StringRef input, bool mustCompile,
                                StringRef lowerOptions = "") {
  MLIRContext *ctx = module.getContext();
  PassManager pm(ctx);
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>(input));
  build(pm);
  if (failed(pm.run(module))) {
    if (mustCompile)
      violation("the pipeline rejected a valid training step", input);
    return std::nullopt;
  }
  auto step = module.lookupSymbol<func::FuncOp>("train_step");
  if (!step)
    return std::nullopt;
  // The lowering refuses other types; it must refuse them, not this harness.
  auto ranked = [](Type t) { return isa<RankedTensorType>(t); };
  bool allRanked = llvm::all_of(step.getArgumentTypes(), ranked) &&
                   llvm::all_of(step.getResultTypes(), ranked);
  Compiled c;
  if (allRanked)
    c.signature = Signature::of(step);
  PassManager lower(ctx);
  lower.enableVerifier(false);
  lower.addInstrumentation(std::make_unique<VerifyAfterEachPass>(input));
  if (failed(amp::buildLowerToLLVMPipeline(
          lower, lowerOptions, [&](const Twine &message) -> LogicalResult {
            violation("bad lowering options: " + message.str(), input);
          })))
    return std::nullopt;
  if (failed(lower.run(module))) {
    if (mustCompile)
      violation("lowering rejected a valid training step", input);
    return std::nullopt;
  }
  if (!allRanked)
    violation("lowering accepted a step with non-tensor arguments", input);
  amp::runner::JitModule::Options options;
  options.optLevel = llvm::CodeGenOptLevel::None;
  auto jit = amp::runner::JitModule::create(module, options);
  if (!jit)
    violation(llvm::toString(jit.takeError()), input);
  auto fn = jit->lookup("train_step");
  if (!fn)
    violation("no train_step after lowering: " + llvm::toString(fn.takeError()),
              input);
  c.fn = *fn;
  c.jit = std::move(*jit);
  return c;
}

/// Argument values by role, deterministic in `seed`.
struct StepData {
  std::vector<std::vector<double>> values; // per argument, row-major
};

StepData makeData(const Signature &s, uint32_t seed, int64_t classes) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::normal_distribution<double> normal(0, 1);
  StepData d;
  for (size_t i = 0; i < s.argTypes.size(); ++i) {
    auto type = cast<RankedTensorType>(s.argTypes[i]);
    std::vector<double> v(type.getNumElements());
    std::optional<amp::tg::Role> role = s.argRoles[i];
    int64_t fanIn = type.getRank() >= 2
                        ? type.getNumElements() / type.getShape().back()
                        : 1;
    for (double &x : v) {
      if (role == amp::tg::Role::Param)
        x = type.getRank() >= 2 ? normal(rng) / std::sqrt((double)fanIn)
                                : 1 + 0.1 * normal(rng);
      else if (role == amp::tg::Role::Label)
        x = (double)(rng() % (uint32_t)std::max<int64_t>(classes, 1));
      else if (role == amp::tg::Role::LearningRate)
        x = 0.1;
      else if (role == amp::tg::Role::Input)
        x = uniform(rng);
      else // state: the value the pipeline wrote (the loss scale), else 0
        x = s.argInitValues[i].value_or(0.0);
    }
    d.values.push_back(std::move(v));
  }
  return d;
}

struct StepResult {
  amprt_status status = AMPRT_OK;
  std::string error;
  /// f32 results read back; other element types stay empty.
  std::vector<std::vector<double>> results;
};

/// One step on a fresh context of `device`. Integer and f64/f32 arguments
/// get the data; 16-bit ones a constant, since the tests that need exact
/// 16-bit data live in the runtime's unit tests.
std::optional<StepResult> runStep(const Compiled &c, const StepData &data,
                                  amprt_device device = AMPRT_DEVICE_CPU) {
  auto context = amp::runner::createContext(device);
  if (!context) {
    llvm::consumeError(context.takeError());
    return std::nullopt;
  }
  amprt_context *ctx = context->get();
  std::vector<amp::runner::TensorPtr> owned;
  std::vector<amprt_tensor *> args;
  for (size_t i = 0; i < c.signature.argTypes.size(); ++i) {
    RankedTensorType type = c.signature.argTypes[i];
    auto tensor = amp::runner::makeTensor(ctx, type);
    if (!tensor) {
      llvm::consumeError(tensor.takeError());
      return std::nullopt;
    }
    amprt_tensor *t = tensor->get();
    owned.push_back(std::move(*tensor));
    args.push_back(t);
    const std::vector<double> &v = data.values[i];
    amprt_dtype dtype = amprt_tensor_dtype(t);
    switch (dtype) {
    case AMPRT_F32: {
      std::vector<float> f(v.begin(), v.end());
      amprt_tensor_write(t, f.data(), f.size() * 4);
      break;
    }
    case AMPRT_F64:
      amprt_tensor_write(t, v.data(), v.size() * 8);
      break;
    case AMPRT_I32: {
      std::vector<int32_t> n(v.begin(), v.end());
      amprt_tensor_write(t, n.data(), n.size() * 4);
      break;
    }
    case AMPRT_I64: {
      std::vector<int64_t> n(v.begin(), v.end());
      amprt_tensor_write(t, n.data(), n.size() * 8);
      break;
    }
    default:
      amprt_tensor_fill(t, 0.5);
    }
  }
  std::vector<void *> raw(c.signature.resultTypes.size(), nullptr);
  StepResult out;
  out.status = (amprt_status)c.fn(ctx, (void **)args.data(), raw.data());
  out.error = amprt_context_error(ctx);
  for (void *r : raw) {
    amp::runner::TensorPtr t(static_cast<amprt_tensor *>(r));
    std::vector<double> values;
    if (t && out.status == AMPRT_OK &&
        amprt_tensor_dtype(t.get()) == AMPRT_F32) {
      std::vector<float> f(amprt_tensor_numel(t.get()));
      amprt_tensor_read(t.get(), f.data(), f.size() * 4);
      values.assign(f.begin(), f.end());
    }
    out.results.push_back(std::move(values));
  }
  return out;
}

/// The reference: the step differentiated and trained in f32.
void buildF32Step(OpPassManager &pm) {
  amp::AmpPipelineOptions options;
  options.step = amp::PipelineStep::F32;
  amp::buildAmpPipeline(pm, options);
}

/// `got` holds the results `expected` does, up to summation order (1e-3
/// relative: reductions fold in another order on the device, and fused
/// epilogues round where separate ops would not).
void compareResults(const StepResult &expected, const StepResult &got,
                    const char *where, const std::string &text) {
  if (got.results.size() != expected.results.size())
    violation(std::string(where) + ": another number of results", text);
  for (size_t r = 0; r < expected.results.size(); ++r) {
    const std::vector<double> &a = expected.results[r], &b = got.results[r];
    if (a.size() != b.size())
      violation(std::string(where) + ": a result has the wrong size", text);
    for (size_t k = 0; k < a.size(); ++k)
      if (!(std::fabs(a[k] - b[k]) <= 1e-3 * std::max(1.0, std::fabs(a[k]))) &&
          !(std::isnan(a[k]) && std::isnan(b[k])) && a[k] != b[k]) {
        char buf[200];
        snprintf(buf, sizeof buf, "%s: result %zu element %zu: %.9g, not %.9g",
                 where, r, k, b[k], a[k]);
        violation(buf, text);
      }
  }
}

/// The device runs the step the CPU ran: same loss and updated params.
void compareDevice(const Compiled &c, const StepData &data,
                   const StepResult &cpu, const std::string &text) {
  std::optional<StepResult> dev = runStep(c, data, AMPRT_DEVICE_CUDA);
  if (!dev || dev->status != AMPRT_OK)
    violation("the step failed on the device: " + (dev ? dev->error : ""),
              text);
  compareResults(cpu, *dev, "on the device", text);
}

/// amp-lower-to-runtime's options for an input: every other one turns some
/// fusions, folds and views off (attention-min-keys=0 fuses attention of
/// any length on). Read from a hash of the bytes rather than
/// as a decoder choice, so that a seed's graph stays the graph it was.
std::string lowerOptionsFor(llvm::ArrayRef<uint8_t> bytes) {
  uint32_t hash = 2166136261u; // FNV-1a
  for (uint8_t b : bytes)
    hash = (hash ^ b) * 16777619u;
  if (!(hash & 1))
    return "";
  static const char *const names[] = {
      "fold-casts-into-products", "fold-casts-into-bias-grads",
      "in-place-elementwise",     "reshape-views",
      "fuse-bias-epilogues",      "fuse-activation-epilogues",
      "fuse-elementwise-chains",  "strided-products",
      "fuse-attention",           "attention-min-keys"};
  std::string options;
  for (unsigned i = 0; i < std::size(names); ++i)
    if (hash >> (i + 1) & 1)
      options += std::string(names[i]) + "=0 ";
  return options;
}

/// The f32 step lowered with `lowerOptions` trains as the default lowering
/// does: a fusion, fold or view that is off must not change the results.
void checkLoweringOptions(ModuleOp module, StringRef lowerOptions,
                          const StepData &data, const StepResult &ref,
                          const std::string &text) {
  std::optional<Compiled> f32 =
      compile(module, buildF32Step, text, /*mustCompile=*/true, lowerOptions);
  std::optional<StepResult> got = runStep(*f32, data);
  if (!got || got->status != AMPRT_OK)
    violation("the f32 step failed with " + lowerOptions.str(), text);
  compareResults(ref, *got, ("f32 with " + lowerOptions.str()).c_str(), text);
}

/// Steps whose tensors are this small run in a few milliseconds.
bool smallEnough(const Signature &s) {
  int64_t total = 0;
  for (Type t : s.argTypes) {
    auto ranked = dyn_cast<RankedTensorType>(t);
    if (!ranked || !ranked.hasStaticShape())
      return false;
    int64_t n = 1; // not getNumElements(), which hostile shapes overflow
    for (int64_t d : ranked.getShape())
      if (d > (1 << 16) || (n *= d) > (1 << 16))
        return false;
    total += n;
  }
  return total <= (1 << 18);
}

int64_t labelClasses(ModuleOp module) {
  return amp::tg::lossClassCount(module).value_or(2);
}

/// Hostile or mutated text: anything may fail, nothing may crash.
void runText(StringRef text) {
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return;
  int64_t classes = labelClasses(*module);
  auto compiled = compile(
      *module,
      [](OpPassManager &pm) {
        amp::AmpPipelineOptions options;
        options.precision = amp::LowPrecision::F16;
        options.mode = amp::LossScalingMode::Dynamic;
        amp::buildAmpPipeline(pm, options);
      },
      text, /*mustCompile=*/false);
  if (!compiled || !smallEnough(compiled->signature))
    return;
  // Runtime errors (a label out of range, say) are fine; crashes are not.
  std::optional<StepResult> ran =
      runStep(*compiled, makeData(compiled->signature, /*seed=*/1, classes));
  if (getenv("AMP_FUZZ_PRINT"))
    fprintf(stderr, "// text input ran one step: %s\n",
            !ran                      ? "no (argument types)"
            : ran->status == AMPRT_OK ? "ok"
                                      : ran->error.c_str());
}

double maxAbs(const std::vector<double> &v) {
  double m = 0;
  for (double x : v)
    m = std::max(m, std::fabs(x));
  return m;
}

/// Loss error relative to max(1, |loss|) and gradient error relative to the
/// f32 gradients' L2 norm. Calibrated on 15000 generated steps
/// (AMP_FUZZ_ERRORS=1; docs/hardening.md has the table): the bounds sit at
/// about twice the largest error seen. Random graphs hold ill-conditioned
/// spots (a batch norm's backward, relu right after a norm, max-pool ties)
/// whose 16-bit error no cast placement can avoid, so the gradient bounds
/// catch errors of order one — a missing or doubled unscale at scale >= 4,
/// a sign error, a mis-typed cast — not rounding noise; AMPGradientCheckTests
/// checks each rule exactly. force-all puts softmax, norm and loss math in
/// 16 bits too, hence its wider bounds.
struct Tolerance {
  double loss, grad;
};
Tolerance toleranceFor(StringRef precision, StringRef level) {
  Tolerance t = precision == "f16" ? Tolerance{0.05, 0.6} : Tolerance{0.3, 2.5};
  if (level == "force-all")
    t = {4 * t.loss, 3 * t.grad};
  return t;
}

/// A valid generated step: f32 and low precision must agree.
void runGraph(llvm::ArrayRef<uint8_t> bytes) {
  amp::fuzz::DecodedStep step = amp::fuzz::decodeStep(bytes);
  std::string lowering = lowerOptionsFor(bytes);
  if (getenv("AMP_FUZZ_PRINT")) // shows what a binary input decodes to
    fprintf(stderr, "// %s level=%s static scale %g, data seed %u%s%s\n%s",
            step.precision.c_str(), step.level.c_str(), step.lossScale,
            step.dataSeed, lowering.empty() ? "" : ", lowered with ",
            lowering.c_str(), step.text.c_str());
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  std::string diagnostics;
  ScopedDiagnosticHandler collect(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  auto parse = [&]() {
    OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(step.text, &context);
    if (!m)
      violation("a generated step does not parse: " + diagnostics, step.text);
    return m;
  };
  OwningOpRef<ModuleOp> full = parse(), low = parse();
  int64_t classes = labelClasses(*full);
  std::optional<Compiled> f32 =
      compile(*full, buildF32Step, step.text, /*mustCompile=*/true);
  std::optional<Compiled> mixed = compile(
      *low,
      [&](OpPassManager &pm) {
        amp::AmpPipelineOptions options;
        options.precision =
            *amp::parseOption<amp::LowPrecision>(step.precision);
        options.level = *amp::parseOption<amp::PrecisionLevel>(step.level);
        options.mode = amp::LossScalingMode::Static;
        options.initScale = step.lossScale;
        amp::buildAmpPipeline(pm, options);
      },
      step.text, /*mustCompile=*/true, lowering);
  if (!f32 || !mixed)
    violation("a valid step did not compile: " + diagnostics, step.text);

  StepData data = makeData(f32->signature, step.dataSeed, classes);
  std::optional<StepResult> ref = runStep(*f32, data);
  std::optional<StepResult> got = runStep(*mixed, data);
  if (!ref || ref->status != AMPRT_OK)
    violation("the f32 step failed: " + (ref ? ref->error : ""), step.text);
  if (!got || got->status != AMPRT_OK)
    violation("the " + step.precision +
                  " step failed: " + (got ? got->error : ""),
              step.text);
  if (!lowering.empty())
    checkLoweringOptions(*parse(), lowering, data, *ref, step.text);

  // Gradients from the SGD update: g = (w - w') / lr.
  const Signature &s = f32->signature;
  std::vector<std::vector<double>> refGrads, gotGrads;
  double gradScale = 0;
  size_t result = 1;
  for (size_t i = 0; i < s.argTypes.size(); ++i) {
    if (s.argRoles[i] != amp::tg::Role::Param)
      continue;
    const std::vector<double> &w = data.values[i];
    const std::vector<double> &a = ref->results[result];
    const std::vector<double> &b = got->results[result];
    ++result;
    if (a.size() != w.size() || b.size() != w.size())
      violation("an updated param has the wrong size", step.text);
    std::vector<double> ga(w.size()), gb(w.size());
    for (size_t k = 0; k < w.size(); ++k) {
      ga[k] = (w[k] - a[k]) / 0.1;
      gb[k] = (w[k] - b[k]) / 0.1;
    }
    gradScale = std::max(gradScale, maxAbs(ga));
    refGrads.push_back(std::move(ga));
    gotGrads.push_back(std::move(gb));
  }
  double refLoss = ref->results[0].at(0), gotLoss = got->results[0].at(0);
  // In range: the f32 loss is small enough that no 16-bit intermediate on
  // its way can overflow (the loss is at most a mean of 128 squares or
  // cross-entropies), and the gradients small enough that the static scale
  // cannot overflow f16 (bf16 shares f32's range).
  // Activation gradients run larger than the params', hence the margin.
  double limit = step.precision == "f16" ? 2e3 : 1e30;
  bool inRange = std::isfinite(refLoss) && std::fabs(refLoss) < 100 &&
                 std::isfinite(gradScale) && gradScale * step.lossScale < limit;
  if (!inRange)
    return;
  // The loss against max(1, |loss|); the gradients as one vector, in the
  // L2 norm, so that an isolated element that took the other side of a kink
  // (relu after batch norm, a max-pool tie) under 16-bit rounding does not
  // count as a miscompile while a wrong rule, cast or unscale still does.
  Tolerance tol = toleranceFor(step.precision, step.level);
  double lossErr =
      std::fabs(gotLoss - refLoss) / std::max(1.0, std::fabs(refLoss));
  double diff2 = 0, ref2 = 0;
  for (size_t p = 0; p < refGrads.size(); ++p)
    for (size_t k = 0; k < refGrads[p].size(); ++k) {
      double d = gotGrads[p][k] - refGrads[p][k];
      diff2 += d * d;
      ref2 += refGrads[p][k] * refGrads[p][k];
    }
  double gradErr = std::sqrt(diff2) / std::max(std::sqrt(ref2), 1e-3);
  // A static scale can overflow an activation's gradient even when every
  // param's gradient is small: that is the risk static scaling takes (and
  // dynamic scaling exists for). Unscaled, in range, it must not happen.
  if (!std::isfinite(gradErr) && step.lossScale > 1)
    return;
  // With a CUDA backend that has a device (a GPU, or the host-emulated
  // device of the tests), the mixed step must train the same there.
  if (amprt_cuda_device_count() > 0)
    compareDevice(*mixed, data, *got, step.text);
  if (getenv("AMP_FUZZ_ERRORS")) {
    // Calibration (docs/hardening.md): print the errors instead of judging.
    fprintf(stderr, "errors %s %s loss %.3g grad %.3g\n",
            step.precision.c_str(), step.level.c_str(), lossErr, gradErr);
    return;
  }
  char buf[256];
  if (!(lossErr <= tol.loss)) {
    snprintf(buf, sizeof buf, "%s loss %.6g vs f32 %.6g (level %s)",
             step.precision.c_str(), gotLoss, refLoss, step.level.c_str());
    violation(buf, step.text);
  }
  if (!(gradErr <= tol.grad)) {
    snprintf(buf, sizeof buf,
             "%s gradients differ from f32 by %.3g relative (L2; largest "
             "f32 gradient %.3g, scale %g, level %s)",
             step.precision.c_str(), gradErr, gradScale, step.lossScale,
             step.level.c_str());
    violation(buf, step.text);
  }
}

/// Foreign IR: the pass must accept every generated module, hand back IR
/// that verifies (the instrumentation checks), and accept its own output.
void runForeign(llvm::ArrayRef<uint8_t> bytes) {
  amp::fuzz::DecodedForeign foreign = amp::fuzz::decodeForeign(bytes);
  if (getenv("AMP_FUZZ_PRINT"))
    fprintf(stderr, "// --amp-auto-mixed-precision=\"%s\"\n%s",
            foreign.options.c_str(), foreign.text.c_str());
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  std::string diagnostics;
  ScopedDiagnosticHandler collect(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(foreign.text, &context);
  if (!module)
    violation("generated foreign IR does not parse: " + diagnostics,
              foreign.text);
  std::string pipeline =
      "builtin.module(amp-auto-mixed-precision{" + foreign.options + "})";
  for (int round = 0; round < 2; ++round) {
    PassManager pm(&context);
    pm.enableVerifier(false);
    pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>(foreign.text));
    if (failed(parsePassPipeline(pipeline, pm)))
      violation("bad generated options: " + foreign.options, foreign.text);
    if (failed(pm.run(*module)))
      violation(std::string(round ? "running the pass on its own output"
                                  : "the pass") +
                    " failed on valid foreign IR (" + foreign.options +
                    "): " + diagnostics,
                foreign.text);
  }
}

bool isText(llvm::ArrayRef<uint8_t> bytes) {
  return !bytes.empty() &&
         (bytes[0] == '\t' || bytes[0] == '\n' || bytes[0] == '\r' ||
          (bytes[0] >= 0x20 && bytes[0] < 0x7F));
}

} // namespace

void amp::fuzz::initializeHarness() {
  amp::initializeJitTarget();
  amp::registerAllPasses();
  (void)registry();
}

void amp::fuzz::runInput(llvm::ArrayRef<uint8_t> bytes) {
  if (bytes.empty())
    return;
  if (isText(bytes))
    return runText(StringRef((const char *)bytes.data(), bytes.size()));
  // Mode bytes below 0x20 (other than whitespace) decode to foreign IR;
  // the rest to training steps.
  if (bytes[0] < 0x20)
    return runForeign(bytes.drop_front());
  runGraph(bytes.drop_front());
}
