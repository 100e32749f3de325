//===- TensorCoreShapeInterface.td - What Tensor Cores need -*- tablegen -*-===//
//
// The op interface through which a contraction of any dialect says which of
// its dimensions decide whether it runs on Tensor Cores, so
// --amp-auto-mixed-precision can report the ones that miss the alignment.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERFACES_TENSORCORESHAPEINTERFACE_TD
#define AMP_INTERFACES_TENSORCORESHAPEINTERFACE_TD

include "mlir/IR/OpBase.td"

def TensorCoreShapeOpInterface : OpInterface<"TensorCoreShapeOpInterface"> {
  let cppNamespace = "::amp";
  let description = [{
    A contraction's Tensor Core dimensions: NVIDIA's Tensor Cores run a
    matrix product whose M, N and K are multiples of 8 elements for 16-bit
    operands (16 for FP8), and a convolution whose input and output channels
    are. The batch of a batched product, and a convolution's batch and
    image sizes, do not matter.

    `tg` contractions implement it, external models attach it to linalg's
    contractions and convolutions (dimensions inferred from their indexing
    maps) and to TOSA's `matmul` and convolutions, and a downstream compiler
    attaches it to its own contractions the same way.
  }];

  let methods = [
    InterfaceMethod<[{
        The dimensions that decide whether the op runs on Tensor Cores, in
        the order a reader expects them (M, N, K; input then output
        channels), with their sizes (`ShapedType::kDynamic` when not
        static). Empty when the op's form gives none (a linalg op that is
        no contraction or convolution).
      }],
      "::llvm::SmallVector<::amp::TensorCoreDim>", "getTensorCoreDims">,
    InterfaceMethod<[{
        Builds, at `builder`'s insertion point, the op over operands padded
        with zeros so that each dimension `getTensorCoreDims` lists has the
        size in `sizes` (one per dimension, each at least its own), and
        slices its results back to their types. Zeros add nothing to a
        product's or a convolution's sums, so the users of the values
        returned (one per result) see what the op's results held. The
        caller replaces the op with them. Failure (the default) when the
        op cannot be padded; nothing is built then.
      }],
      "::mlir::FailureOr<::llvm::SmallVector<::mlir::Value>>",
      "padTensorCoreDims",
      (ins "::mlir::OpBuilder &":$builder, "::llvm::ArrayRef<int64_t>":$sizes),
      [{}], /*defaultImplementation=*/[{ return ::mlir::failure(); }]>,
  ];
}

#endif // AMP_INTERFACES_TENSORCORESHAPEINTERFACE_TD
