//===- Fp8UpstreamOps.cpp - FP8 chains in upstream ops only ---------------===//

#include "Fp8UpstreamOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "llvm/ADT/STLExtras.h"
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;

namespace amp {

namespace {

Value f32Constant(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr((float)value));
}

/// `value` (a float scalar) in f32.
Value toF32(OpBuilder &b, Location loc, Value value) {
  if (value.getType().isF32())
    return value;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), value);
}

/// An elementwise linalg.generic from `in` to a new tensor of `outType`,
/// whose body maps the input element with `body`.
Value mapElements(OpBuilder &b, Location loc, Value in,
                  RankedTensorType outType,
                  function_ref<Value(OpBuilder &, Location, Value)> body) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, in);
  Value init = tensor::EmptyOp::create(b, loc, sizes, outType.getElementType());
  unsigned rank = outType.getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{in}, ValueRange{init},
      ArrayRef<AffineMap>{identity, identity}, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                body(nested, nestedLoc, args[0]));
      });
  return generic.getResult(0);
}

} // namespace

Value buildUpstreamAmax(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  auto scalarType = RankedTensorType::get({}, b.getF32Type());
  Value init =
      tensor::EmptyOp::create(b, loc, scalarType.getShape(), b.getF32Type());
  Value zero = f32Constant(b, loc, 0.0);
  Value filled =
      linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{init})
          .getResult(0);
  SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  auto reduce = linalg::ReduceOp::create(
      b, loc, ValueRange{x}, ValueRange{filled}, dims,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value v = toF32(nested, nestedLoc, args[0]);
        Value negated = arith::NegFOp::create(nested, nestedLoc, v);
        // |v| as max(v, -v): NaN stays NaN through maximumf.
        Value magnitude =
            arith::MaximumFOp::create(nested, nestedLoc, v, negated);
        Value m =
            arith::MaximumFOp::create(nested, nestedLoc, magnitude, args[1]);
        linalg::YieldOp::create(nested, nestedLoc, m);
      });
  return tensor::ExtractOp::create(b, loc, reduce.getResult(0), ValueRange{});
}

Value buildUpstreamScale(OpBuilder &b, Location loc, Value amax, double fp8Max,
                         int64_t margin) {
  Type i32 = b.getI32Type();
  auto i32Constant = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr((int32_t)v));
  };
  // floor(log2(fp8Max / amax)) exactly, in integers: with a = 1.fa * 2^ea
  // and m = 1.fm * 2^em, the ratio is (1.fa / 1.fm) * 2^(ea - em), and
  // 1.fa / 1.fm < 1 exactly when fm > fa. A subnormal amax is scaled by
  // 2^64 first (exact) and the 64 added back. (f64 arithmetic, as the
  // runtime uses, does not lower upstream through convert-arith-to-apfloat.)
  Value zero = f32Constant(b, loc, 0.0);
  Value magnitude = arith::MaximumFOp::create(
      b, loc, amax, arith::NegFOp::create(b, loc, amax));
  Value subnormal =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, magnitude,
                            f32Constant(b, loc, std::ldexp(1.0, -126)));
  Value normalised = arith::SelectOp::create(
      b, loc, subnormal,
      arith::MulFOp::create(b, loc, amax, f32Constant(b, loc, 0x1p64)), amax);
  Value bits = arith::BitcastOp::create(b, loc, i32, normalised);
  Value exponent = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, i32Constant(23)),
      i32Constant(0xFF));
  Value fraction = arith::AndIOp::create(b, loc, bits, i32Constant(0x7FFFFF));
  float maxValue = (float)fp8Max;
  uint32_t maxBits;
  std::memcpy(&maxBits, &maxValue, sizeof(maxBits));
  int64_t maxExponent = (maxBits >> 23) & 0xFF,
          maxFraction = maxBits & 0x7FFFFF;
  Value below = arith::ExtUIOp::create(
      b, loc, i32,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, fraction,
                            i32Constant(maxFraction)));
  Value power = arith::SubIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, i32Constant(maxExponent - margin),
                            exponent),
      below);
  power = arith::AddIOp::create(b, loc, power,
                                arith::SelectOp::create(b, loc, subnormal,
                                                        i32Constant(64),
                                                        i32Constant(0)));
  power = arith::MaxSIOp::create(b, loc, power, i32Constant(-126));
  power = arith::MinSIOp::create(b, loc, power, i32Constant(126));
  Value scaleBits = arith::ShLIOp::create(
      b, loc, arith::AddIOp::create(b, loc, power, i32Constant(127)),
      i32Constant(23));
  Value scale = arith::BitcastOp::create(b, loc, b.getF32Type(), scaleBits);
  // 1 unless 0 < amax < inf (NaN compares false).
  Value positive =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, amax, zero);
  Value finite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OLT, amax,
      f32Constant(b, loc, std::numeric_limits<double>::infinity()));
  Value valid = arith::AndIOp::create(b, loc, positive, finite);
  return arith::SelectOp::create(b, loc, valid, scale,
                                 f32Constant(b, loc, 1.0));
}

Value buildUpstreamQuantize(OpBuilder &b, Location loc, Value x, Value scale,
                            RankedTensorType fp8Type, double fp8Max) {
  return mapElements(
      b, loc, x, fp8Type, [&](OpBuilder &n, Location l, Value in) -> Value {
        Value p = arith::MulFOp::create(n, l, toF32(n, l, in), scale);
        // Saturate finite values; inf goes to the conversion as it is (NaN
        // in E4M3FN, inf in E5M2), NaN stays NaN, as amprt_fp8.h does.
        Value clamped = arith::MinimumFOp::create(
            n, l,
            arith::MaximumFOp::create(n, l, p, f32Constant(n, l, -fp8Max)),
            f32Constant(n, l, fp8Max));
        double inf = std::numeric_limits<double>::infinity();
        Value isInf = arith::OrIOp::create(
            n, l,
            arith::CmpFOp::create(n, l, arith::CmpFPredicate::OEQ, p,
                                  f32Constant(n, l, inf)),
            arith::CmpFOp::create(n, l, arith::CmpFPredicate::OEQ, p,
                                  f32Constant(n, l, -inf)));
        Value v = arith::SelectOp::create(n, l, isInf, p, clamped);
        return arith::TruncFOp::create(n, l, fp8Type.getElementType(), v);
      });
}

Value buildUpstreamDequantize(OpBuilder &b, Location loc, Value q, Value scale,
                              RankedTensorType type) {
  Value inverse =
      arith::DivFOp::create(b, loc, f32Constant(b, loc, 1.0), scale);
  Type element = type.getElementType();
  return mapElements(
      b, loc, q, type, [&](OpBuilder &n, Location l, Value in) -> Value {
        Value y = arith::MulFOp::create(
            n, l, arith::ExtFOp::create(n, l, n.getF32Type(), in), inverse);
        if (element.isF32())
          return y;
        return arith::TruncFOp::create(n, l, element, y);
      });
}

} // namespace amp
