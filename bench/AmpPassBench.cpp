//===- AmpPassBench.cpp - Time --amp-auto-mixed-precision at scale --------===//
//
// Generates training-graph-like modules of N ops (a long dependency chain
// with side inputs, the mix of matmuls, activations, reductions and shape
// ops of real models), then times --amp-auto-mixed-precision and
// --canonicalize on identical copies, side by side, and prints a table:
// median milliseconds of each pass alone, nanoseconds per op, the ratio to
// canonicalize, and the ratio when each is followed by the pass manager's
// verifier (as amp-opt runs them).
//
// Usage: amp-pass-bench [N...] [--repeats=R] [--only=amp|canonicalize]
// (default sizes 10000 100000 1000000)
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/TG/IR/TG.h"
#include "amp/InitAll.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
namespace tg = amp::tg;

static OwningOpRef<ModuleOp> generate(MLIRContext *ctx, unsigned numOps,
                                      unsigned seed) {
  OpBuilder b(ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto type = RankedTensorType::get({16, 16}, b.getF32Type());
  auto func = func::FuncOp::create(b, loc, "graph",
                                   b.getFunctionType({type, type}, {type}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  std::mt19937 rng(seed);
  std::vector<Value> values(entry->getArguments().begin(),
                            entry->getArguments().end());
  Value last = values.back();
  for (unsigned i = 0; i < numOps; ++i) {
    // Every op consumes the previous one, so the whole graph stays live.
    Value side = values[values.size() - 1 -
                        std::min<size_t>(rng() % 64, values.size() - 1)];
    Value next;
    switch (rng() % 10) {
    case 0:
    case 1:
      next = tg::MatmulOp::create(b, loc, last, side, b.getBoolAttr(false),
                                  b.getBoolAttr(false));
      break;
    case 2:
      next = tg::AddOp::create(b, loc, last, side);
      break;
    case 3:
      next = tg::ReluOp::create(b, loc, last);
      break;
    case 4:
      next = tg::MulOp::create(b, loc, last, side);
      break;
    case 5:
      next = tg::TanhOp::create(b, loc, last);
      break;
    case 6:
      next = tg::ExpOp::create(b, loc, last);
      break;
    case 7:
      next =
          tg::TransposeOp::create(b, loc, last, b.getDenseI64ArrayAttr({1, 0}));
      break;
    case 8: {
      Value sum = tg::ReduceSumOp::create(
          b, loc, last, b.getDenseI64ArrayAttr({1}), b.getBoolAttr(true));
      next = tg::SubOp::create(b, loc, last, sum);
      ++i;
      break;
    }
    default:
      next = tg::MaximumOp::create(b, loc, last, side);
      break;
    }
    values.push_back(next);
    last = next;
  }
  func::ReturnOp::create(b, loc, last);
  return module;
}

/// One run of `pass` on a copy of `module`; `verify`: with the pass
/// manager's verifier after it (what amp-opt runs by default).
static double timePass(MLIRContext *ctx, ModuleOp module,
                       std::unique_ptr<Pass> pass, bool verify) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(ctx);
  pm.enableVerifier(verify);
  pm.addPass(std::move(pass));
  auto start = std::chrono::steady_clock::now();
  if (failed(pm.run(*copy))) {
    llvm::errs() << "amp-pass-bench: pass failed\n";
    std::exit(1);
  }
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  std::vector<unsigned> sizes;
  unsigned repeats = 3;
  std::string only; // "amp" or "canonicalize": time one pass (profiling).
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--only=", 0) == 0) {
      only = arg.substr(7);
      continue;
    }
    if (arg.rfind("--repeats=", 0) == 0) {
      repeats = std::max(1, std::atoi(arg.c_str() + 10));
      continue;
    }
    char *end = nullptr;
    unsigned long n = std::strtoul(arg.c_str(), &end, 10);
    if (!end || *end || n == 0 || n > 10000000) {
      llvm::errs() << "amp-pass-bench: expected op counts (1..1e7) and "
                      "--repeats=R, got '"
                   << arg << "'\n";
      return 2;
    }
    sizes.push_back(n);
  }
  if (sizes.empty())
    sizes = {10000, 100000, 1000000};

  DialectRegistry registry;
  amp::registerAllPrecisionModelsAndDialects(registry);
  registry.insert<func::FuncDialect>();
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();

  llvm::outs() << "| ops | amp-auto-mixed-precision ms | ns/op | "
                  "canonicalize ms | ns/op | amp / canonicalize | "
                  "same, verifier on |\n"
               << "|---:|---:|---:|---:|---:|---:|---:|\n";
  for (unsigned n : sizes) {
    OwningOpRef<ModuleOp> module = generate(&ctx, n, 7);
    // The passes alone, then each followed by the pass manager's verifier
    // (it walks the whole output, so it narrows the ratio), alternated.
    std::vector<double> ampMs, canonMs, ampVerifiedMs, canonVerifiedMs;
    for (unsigned r = 0; r < repeats; ++r) {
      for (bool verify : {false, true}) {
        double a = only == "canonicalize"
                       ? 0.0
                       : timePass(&ctx, *module,
                                  amp::createAutoMixedPrecisionPass(), verify);
        double c = only == "amp" ? 1.0
                                 : timePass(&ctx, *module,
                                            createCanonicalizerPass(), verify);
        (verify ? ampVerifiedMs : ampMs).push_back(a);
        (verify ? canonVerifiedMs : canonMs).push_back(c);
      }
    }
    double a = median(ampMs), c = median(canonMs);
    double av = median(ampVerifiedMs), cv = median(canonVerifiedMs);
    llvm::outs() << llvm::format(
        "| %u | %.1f | %.0f | %.1f | %.0f | %.2f | %.2f |\n", n, a, a * 1e6 / n,
        c, c * 1e6 / n, a / c, av / cv);
    llvm::outs().flush();
  }
  return 0;
}
