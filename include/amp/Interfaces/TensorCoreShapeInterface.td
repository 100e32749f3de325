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
  ];
}

#endif // AMP_INTERFACES_TENSORCORESHAPEINTERFACE_TD
