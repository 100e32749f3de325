//===- TGTypes.td - Type constraints shared by tg and amp --*- tablegen -*-===//
//
// tg tensors are ranked with static shapes (a training step the runtime
// runs); amp's precision ops take dynamic dimensions too. These constraints
// name the element-type families the ops accept.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_TG_IR_TGTYPES_TD
#define AMP_DIALECT_TG_IR_TGTYPES_TD

include "mlir/IR/CommonTypeConstraints.td"

// A static shape; TG_AddressableTensors (TGOps.td) bounds its size.
class TG_TensorOf<list<Type> allowedTypes>
    : RankedTensorOf<allowedTypes, [HasStaticShapePred],
                     "statically shaped tensor">;

def TG_FloatTensor : TG_TensorOf<[F16, BF16, F32, F64]>;
def TG_NumericTensor : TG_TensorOf<[F16, BF16, F32, F64, I32, I64]>;
def TG_AnyTensor : TG_TensorOf<[F16, BF16, F32, F64, I1, I32, I64]>;
def TG_IndexTensor : TG_TensorOf<[I32, I64]>;
def TG_PredTensor : TG_TensorOf<[I1]>;
// Master weights, optimizer state and norm statistics: f32 (f64 for
// reference runs), never a low-precision type.
def TG_WideFloatTensor : TG_TensorOf<[F32, F64]>;

// The amp ops also take ranked tensors with dynamic dimensions, as the IR
// of other front ends has them (a dynamic batch): the precision pass works
// on any ranked tensor; only the runtime lowering needs static shapes.
def AMP_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def AMP_WideFloatTensor : RankedTensorOf<[F32, F64]>;
// FP8 storage: E4M3FN (weights, activations) and E5M2 (gradients). Only
// amp.quantize makes these tensors and only amp.dequantize reads them.
def AMP_Fp8Tensor : RankedTensorOf<[F8E4M3FN, F8E5M2]>;

// Rank-0 scalars whose type is fixed, so the assembly format need not spell
// them out.
def TG_F32Scalar : Type<And<[TensorRankOf<[F32], [0]>.predicate]>,
                        "tensor<f32>", "::mlir::TensorType">,
                   BuildableType<"::mlir::RankedTensorType::get({}, "
                                 "$_builder.getF32Type())">;
def TG_I64Scalar : Type<And<[TensorRankOf<[I64], [0]>.predicate]>,
                        "tensor<i64>", "::mlir::TensorType">,
                   BuildableType<"::mlir::RankedTensorType::get({}, "
                                 "$_builder.getIntegerType(64))">;
def TG_I1Scalar : Type<And<[TensorRankOf<[I1], [0]>.predicate]>,
                       "tensor<i1>", "::mlir::TensorType">,
                  BuildableType<"::mlir::RankedTensorType::get({}, "
                                "$_builder.getI1Type())">;

#endif // AMP_DIALECT_TG_IR_TGTYPES_TD
