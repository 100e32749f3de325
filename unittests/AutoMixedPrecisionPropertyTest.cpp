//===- AutoMixedPrecisionPropertyTest.cpp - AMP on random graphs ----------===//
//
// Generates thousands of random valid tg graphs (any topology, up to a few
// hundred ops, f32 inputs) and checks the pass's invariants on each: the IR
// verifies, deny ops stay f32, allow ops go low unless they cannot, every
// cast is a colour boundary (one per value and type, never an identity,
// never undoing another cast), and a second run changes nothing.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/InitAll.h"
#include "amp/Interfaces/PrecisionPolicyInterface.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseSet.h"
#include <gtest/gtest.h>
#include <random>

using namespace mlir;
namespace tg = amp::tg;

namespace {

constexpr int64_t kN = 8;

class GraphGenerator {
public:
  GraphGenerator(MLIRContext *ctx, unsigned seed) : builder(ctx), rng(seed) {}

  OwningOpRef<ModuleOp> generate(unsigned numOps) {
    Location loc = builder.getUnknownLoc();
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
    auto square = RankedTensorType::get({kN, kN}, builder.getF32Type());
    unsigned numArgs = 1 + pick(3);
    SmallVector<Type> argTypes(numArgs, square);
    auto func = func::FuncOp::create(builder, loc, "graph",
                                     builder.getFunctionType(argTypes, {}));
    Block *entry = func.addEntryBlock();
    builder.setInsertionPointToEnd(entry);
    values.assign(entry->getArguments().begin(), entry->getArguments().end());
    for (unsigned i = 0; i < numOps; ++i)
      values.push_back(addRandomOp(loc));
    // Return a few values so that not everything is dead.
    SmallVector<Value> results;
    for (unsigned i = 0, e = 1 + pick(3); i < e; ++i)
      results.push_back(values[values.size() - 1 - pick(values.size())]);
    func::ReturnOp::create(builder, loc, results);
    func.setFunctionType(builder.getFunctionType(
        argTypes, ValueRange(results).getTypes()));
    return module;
  }

private:
  unsigned pick(unsigned n) {
    return std::uniform_int_distribution<unsigned>(0, n - 1)(rng);
  }
  Value operand() { return values[pick(values.size())]; }
  /// An operand broadcast-compatible with a square: square or [N, 1].
  Value square() {
    for (int tries = 0; tries < 8; ++tries) {
      Value v = operand();
      if (cast<RankedTensorType>(v.getType()).getShape() ==
          ArrayRef<int64_t>{kN, kN})
        return v;
    }
    return values.front();
  }

  Value addRandomOp(Location loc) {
    switch (pick(18)) {
    case 0:
      return tg::ExpOp::create(builder, loc, square());
    case 1:
      return tg::LogOp::create(builder, loc, square());
    case 2:
      return tg::TanhOp::create(builder, loc, square());
    case 3:
      return tg::ReluOp::create(builder, loc, square());
    case 4:
      return tg::NegOp::create(builder, loc, square());
    case 5:
      return tg::SigmoidOp::create(builder, loc, square());
    case 6:
      return tg::AddOp::create(builder, loc, square(), operand());
    case 7:
      return tg::MulOp::create(builder, loc, square(), operand());
    case 8:
      return tg::PowOp::create(builder, loc, square(), square());
    case 9:
      return tg::MaximumOp::create(builder, loc, square(), operand());
    case 10:
    case 11:
      return tg::MatmulOp::create(builder, loc, square(), square(),
                                  builder.getBoolAttr(pick(2)),
                                  builder.getBoolAttr(pick(2)));
    case 12:
      return tg::ReduceSumOp::create(builder, loc, square(),
                                     builder.getDenseI64ArrayAttr({1}),
                                     builder.getBoolAttr(true));
    case 13:
      return tg::ReduceMaxOp::create(builder, loc, square(),
                                     builder.getDenseI64ArrayAttr({0, 1}),
                                     builder.getBoolAttr(false));
    case 14:
      return tg::TransposeOp::create(builder, loc, square(),
                                     builder.getDenseI64ArrayAttr({1, 0}));
    case 15: {
      Value x = square();
      auto cmp = tg::CompareOp::create(builder, loc,
                                       builder.getStringAttr("gt"), x,
                                       operand());
      return tg::SelectOp::create(builder, loc, cmp, x, square());
    }
    case 16:
      return tg::SoftmaxOp::create(builder, loc, square(),
                                   builder.getI64IntegerAttr(-1));
    default:
      return tg::SqrtOp::create(builder, loc, square());
    }
  }

  OpBuilder builder;
  std::mt19937 rng;
  SmallVector<Value> values;
};

std::string print(ModuleOp module) {
  std::string s;
  llvm::raw_string_ostream os(s);
  module.print(os);
  return s;
}

bool isLow(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && (tensor.getElementType().isF16() ||
                    tensor.getElementType().isBF16());
}

void checkInvariants(ModuleOp module, StringRef precision) {
  ASSERT_TRUE(succeeded(verify(module))) << print(module);
  FloatType low = amp::parseLowPrecisionType(module.getContext(), precision);
  llvm::DenseSet<std::pair<Value, Type>> castPairs;
  module.walk([&](Operation *op) {
    if (auto castOp = dyn_cast<amp::CastOp>(op)) {
      EXPECT_NE(castOp.getX().getType(), castOp.getType())
          << "identity cast\n" << print(module);
      EXPECT_TRUE(castPairs.insert({castOp.getX(), castOp.getType()}).second)
          << "value cast twice to one type\n" << print(module);
      if (auto inner = castOp.getX().getDefiningOp<amp::CastOp>()) {
        EXPECT_NE(inner.getX().getType(), castOp.getType())
            << "round trip through a cast\n" << print(module);
      }
      return;
    }
    auto iface = dyn_cast<amp::PrecisionPolicyOpInterface>(op);
    if (!iface)
      return;
    amp::PrecisionClass cls = iface.getPrecisionClass(low);
    bool anyLow = false, allLow = true, any = false;
    for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
      if (iface.isPrecisionResult(i)) {
        any = true;
        anyLow |= isLow(op->getResult(i).getType());
        allLow &= isLow(op->getResult(i).getType());
      }
    if (!any)
      return;
    if (cls == amp::PrecisionClass::Deny) {
      EXPECT_FALSE(anyLow) << "deny op in low precision\n" << print(module);
    }
    if (cls == amp::PrecisionClass::Allow && iface.supportsPrecision(low)) {
      EXPECT_TRUE(allLow) << "allow op left in f32\n" << print(module);
    }
  });
}

class AutoMixedPrecisionProperty : public ::testing::TestWithParam<const char *> {
protected:
  AutoMixedPrecisionProperty() {
    DialectRegistry registry;
    amp::registerAllPrecisionModelsAndDialects(registry);
    registry.insert<func::FuncDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  LogicalResult runPass(ModuleOp module, StringRef precision) {
    PassManager pm(&context);
    amp::AutoMixedPrecisionPassOptions options;
    options.precision = *amp::parseOption<amp::LowPrecision>(precision);
    options.keepIoTypes = true;
    pm.addPass(amp::createAutoMixedPrecisionPass(options));
    return pm.run(module);
  }
  MLIRContext context;
};

TEST_P(AutoMixedPrecisionProperty, RandomGraphsKeepInvariants) {
  StringRef precision = GetParam();
  std::mt19937 sizes(2024);
  unsigned converted = 0;
  for (unsigned seed = 0; seed < 1500; ++seed) {
    unsigned numOps =
        1 + std::uniform_int_distribution<unsigned>(0, 299)(sizes);
    GraphGenerator generator(&context, seed);
    OwningOpRef<ModuleOp> module = generator.generate(numOps);
    ASSERT_TRUE(succeeded(verify(*module)));
    ASSERT_TRUE(succeeded(runPass(*module, precision))) << "seed " << seed;
    checkInvariants(*module, precision);
    if (HasFailure()) {
      ADD_FAILURE() << "seed " << seed;
      return;
    }
    std::string once = print(*module);
    converted += StringRef(once).count(precision.str() + ">");
    ASSERT_TRUE(succeeded(runPass(*module, precision)));
    ASSERT_EQ(once, print(*module)) << "second run changed seed " << seed;
  }
  // The generator is not degenerate: low precision appears.
  EXPECT_GT(converted, 1000u);
}

INSTANTIATE_TEST_SUITE_P(Precisions, AutoMixedPrecisionProperty,
                         ::testing::Values("f16", "bf16"));

} // namespace
