//===- PrecisionColoring.h - The allow/infer/clear/deny graph ---*- C++ -*-===//
//
// The colouring half of --amp-auto-mixed-precision: a graph whose nodes are
// the f32 ops that take part (and one node per class of values carried
// through loops and branches), and TensorFlow's painting steps over it. The
// pass rewrites the IR from the result.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TRANSFORMS_PRECISIONCOLORING_H
#define AMP_LIB_TRANSFORMS_PRECISIONCOLORING_H

#include "amp/Transforms/PrecisionPolicy.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include <string>
#include <vector>

namespace amp {

/// An op, or a class of values carried through region control flow, in the
/// colouring graph.
struct ColorNode {
  mlir::Operation *op = nullptr; // Null for a carried-value class.
  PrecisionClass cls = PrecisionClass::Clear;
  bool supports = true;
  bool forcedF32 = false;
  mlir::FloatType forcedType; // amp.precision = "f16" / "bf16".
  /// Carried values only: fed or used by something outside the graph.
  bool foreignNeighbour = false;
  /// Carried values only: the carried values themselves.
  llvm::SmallVector<mlir::Value, 4> carriers;
  llvm::SmallVector<unsigned, 4> in, out;

  // The outcome.
  bool allow = false;
  bool deny = false;
  mlir::FloatType target;
  std::string reason;
};

class ColoringGraph {
public:
  explicit ColoringGraph(const PrecisionPolicy &policy) : policy(policy) {}

  /// Builds the graph for the body of `function`; fails (with a diagnostic)
  /// on IR the pass cannot handle, such as an unexpanded tg.gradients.
  llvm::LogicalResult build(mlir::Operation *function);

  /// Runs the painting steps. Returns false when the allow set is empty:
  /// nothing is converted.
  bool color();

  llvm::ArrayRef<ColorNode> getNodes() const { return nodes; }
  const ColorNode *lookup(mlir::Operation *op) const;
  /// The carried-value class a terminator operand forwards into, if any.
  const ColorNode *forwardedInto(mlir::Operation *user, unsigned index) const;
  /// Why an op that is not in the graph keeps its types ("unknown op", ...).
  llvm::StringRef outsideReason(mlir::Operation *op) const;

private:
  unsigned addOpNode(mlir::Operation *op, PrecisionClass cls);
  void buildCarriedValueClasses(mlir::Operation *function);
  void addEdge(unsigned from, unsigned to);
  PrecisionClass effectiveClass(const ColorNode &node) const;
  bool isPromotable(const ColorNode &node) const;
  void markAllow(unsigned id, llvm::StringRef reason);

  void spreadDeny();
  void joinBetweenAllow();
  void followAllowForBF16();
  void spreadAllowThroughClear();
  void removeUnsupported();
  void unifyCarriedValues();

  const PrecisionPolicy &policy;
  std::vector<ColorNode> nodes;
  llvm::DenseMap<mlir::Operation *, unsigned> opNodes;
  llvm::DenseMap<mlir::Value, unsigned> carrierNodes;
  llvm::DenseMap<std::pair<mlir::Operation *, unsigned>, unsigned> forwards;
  llvm::DenseMap<mlir::Operation *, std::string> outside;
};

/// True when every element of `values` converts to `type` without
/// overflowing to inf or flushing a non-zero to zero.
bool fitsInType(mlir::Attribute values, mlir::FloatType type);

/// "loc(...)" of `loc`, for reasons and reports.
std::string formatLocation(mlir::Location loc);

} // namespace amp

#endif // AMP_LIB_TRANSFORMS_PRECISIONCOLORING_H
