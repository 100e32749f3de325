//===- RuntimeABI.h - The amprt C API as the lowering sees it ---*- C++ -*-===//
//
// The lowering emits calls to the runtime's C entry points. Their names,
// parameter types and codes come from the runtime's own header, amprt.h,
// not from strings kept in sync by hand: `AMPRT_ENTRY(amprt_matmul)` names
// the C declaration itself, the function type the lowering declares is
// derived from the C parameter types, and a call with the wrong number of
// arguments does not compile. A changed signature therefore either changes
// what the lowering declares or fails the build; the IR verifier catches a
// value of the wrong type in every test that lowers the op.
//
// The codes for enum-valued parameters (element types, layouts, comparison
// directions) map from the dialects' enums in exhaustive switches, so a new
// enumerant without a runtime code is a compiler warning (-Wswitch) and the
// runtime's numbering is used by name, never as a literal.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_RUNTIMEABI_H
#define AMP_CONVERSION_RUNTIMEABI_H

#include "amp/Dialect/TG/IR/TGEnums.h"
#include "amprt/amprt.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"
#include <type_traits>

namespace amp::abi {

/// The MLIR type a C parameter or result of type `T` has in the lowered
/// code (the C calling convention of the host, as the LLVM dialect's
/// `func.call` lowering sees it).
template <typename T> mlir::Type cType(mlir::MLIRContext *context) {
  if constexpr (std::is_pointer_v<T>) {
    return mlir::LLVM::LLVMPointerType::get(context);
  } else if constexpr (std::is_enum_v<T>) {
    // The amprt enums end in a 0x7FFFFFFF member, so they are int-sized.
    static_assert(sizeof(T) == 4, "amprt enums are passed as i32");
    return mlir::IntegerType::get(context, 32);
  } else if constexpr (std::is_same_v<T, double>) {
    return mlir::Float64Type::get(context);
  } else if constexpr (std::is_integral_v<T>) {
    return mlir::IntegerType::get(context, 8 * sizeof(T));
  } else {
    static_assert(!sizeof(T), "no lowering for this C type in amprt.h");
  }
}

/// One runtime entry point: its C name and, through `Fn`, its C signature.
template <typename Fn> struct Entry;
template <typename R, typename... Params> struct Entry<R (*)(Params...)> {
  using Result = R;
  llvm::StringLiteral name;
  static constexpr size_t arity = sizeof...(Params);
  static constexpr bool returnsValue = !std::is_void_v<R>;

  mlir::FunctionType type(mlir::MLIRContext *context) const {
    llvm::SmallVector<mlir::Type> results;
    if constexpr (!std::is_void_v<R>)
      results.push_back(cType<R>(context));
    return mlir::FunctionType::get(context, {cType<Params>(context)...},
                                   results);
  }
};

inline amprt_layout layoutCode(tg::Layout layout) {
  switch (layout) {
  case tg::Layout::NHWC:
    return AMPRT_NHWC;
  case tg::Layout::NCHW:
    return AMPRT_NCHW;
  }
  llvm_unreachable("unknown tg layout");
}

inline amprt_predicate predicateCode(tg::ComparisonDirection direction) {
  switch (direction) {
  case tg::ComparisonDirection::EQ:
    return AMPRT_EQ;
  case tg::ComparisonDirection::NE:
    return AMPRT_NE;
  case tg::ComparisonDirection::LT:
    return AMPRT_LT;
  case tg::ComparisonDirection::LE:
    return AMPRT_LE;
  case tg::ComparisonDirection::GT:
    return AMPRT_GT;
  case tg::ComparisonDirection::GE:
    return AMPRT_GE;
  }
  llvm_unreachable("unknown tg comparison direction");
}

inline amprt_reduction reductionCode(tg::Reduction reduction) {
  switch (reduction) {
  case tg::Reduction::Sum:
    return AMPRT_REDUCE_SUM;
  case tg::Reduction::Mean:
    return AMPRT_REDUCE_MEAN;
  case tg::Reduction::Min:
    return AMPRT_REDUCE_MIN;
  case tg::Reduction::Max:
    return AMPRT_REDUCE_MAX;
  }
  llvm_unreachable("unknown tg reduction");
}

} // namespace amp::abi

/// The runtime entry point `fn` of amprt.h, with its name and C signature.
#define AMPRT_ENTRY(fn) (::amp::abi::Entry<decltype(&::fn)>{#fn})

#endif // AMP_CONVERSION_RUNTIMEABI_H
