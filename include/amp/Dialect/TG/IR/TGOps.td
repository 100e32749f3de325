//===- TGOps.td - Operations of the training-graph dialect -*- tablegen -*-===//
//
// Every op of SPEC section 2. Result types are inferred wherever the operands
// and attributes determine them; the few ops whose result shape is not
// determined (reshape, broadcast, backward convolution and average pooling)
// spell the result type and verify it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_TG_IR_TGOPS_TD
#define AMP_DIALECT_TG_IR_TGOPS_TD

include "amp/Dialect/TG/IR/TGDialect.td"
include "amp/Dialect/TG/IR/TGEnums.td"
include "amp/Dialect/TG/IR/TGTypes.td"
include "amp/Interfaces/PrecisionPolicyTrait.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// At most 2^60 elements in every tensor: a byte size at 8 bytes an element
// fits in 64 bits, so no size computed from a shape wraps.
def TG_AddressableTensors : NativeOpTrait<"AddressableTensors"> {
  let cppNamespace = "::amp::tg";
}

class TG_Op<string mnemonic, list<Trait> traits = []>
    : Op<TG_Dialect, mnemonic,
         !listconcat([Pure, TG_AddressableTensors], traits)>;

// Attribute kinds and defaults fixed by the SPEC.
def TG_TransposeFlag : DefaultValuedOptionalAttr<BoolAttr, "false">;
def TG_Strides : DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{1, 1}">;
def TG_Padding : DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">;
def TG_Dilations : DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{1, 1}">;
def TG_Layout
    : DefaultValuedOptionalAttr<TG_LayoutAttr, "::amp::tg::Layout::NHWC">;
def TG_Axis : DefaultValuedOptionalAttr<I64Attr, "-1">;
def TG_Epsilon : DefaultValuedOptionalAttr<F64Attr, "1e-5">;
def TG_Alpha : DefaultValuedOptionalAttr<F64Attr, "0.01">;
def TG_KeepDims : DefaultValuedOptionalAttr<BoolAttr, "false">;

// Each op's list in --amp-auto-mixed-precision is its AMP_Precision trait
// (amp/Interfaces/PrecisionPolicyTrait.td): Tensor Core contractions allow,
// numerically safe math infer, exponentials, sums, losses and updates deny,
// data movement clear, as TensorFlow's CUDA lists (docs/
// auto-mixed-precision.md, "The default lists (f16)"). A norm's affine
// parameters (operands 1, 2) and saved statistics (results 1, 2), and its
// gradient's statistics operands (2-4), are not precision data: they stay
// f32 when the data goes to 16 bits.
def TG_NormPrecision : AMP_Precision<"Infer", 0, 1, [1, 2], [1, 2]>;
def TG_NormGradPrecision : AMP_Precision<"Infer", 0, 1, [2, 3, 4], [1, 2]>;

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

class TG_UnaryOp<string mnemonic, string formula, list<Trait> traits = [],
                 Type tensorType = TG_FloatTensor>
    : TG_Op<mnemonic, !listconcat([SameOperandsAndResultType], traits)> {
  let summary = "elementwise " # formula;
  let description = "Computes `y = " # formula # "` element by element; the "
    # "result has the operand's type.\n\nExample:\n\n```mlir\n"
    # "%y = tg." # mnemonic # " %x : tensor<32x64xf32>\n```";
  let arguments = (ins tensorType:$x);
  let results = (outs tensorType:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def TG_NegOp : TG_UnaryOp<"neg", "-x", [AMP_Clear], TG_NumericTensor> {
  let hasFolder = 1;
}
def TG_AbsOp : TG_UnaryOp<"abs", "|x|", [AMP_Clear], TG_NumericTensor>;
def TG_ExpOp : TG_UnaryOp<"exp", "exp(x)", [AMP_Deny]>;
def TG_LogOp : TG_UnaryOp<"log", "log(x)", [AMP_Infer]>;
def TG_SqrtOp : TG_UnaryOp<"sqrt", "sqrt(x)", [AMP_Infer]>;
def TG_RsqrtOp : TG_UnaryOp<"rsqrt", "1 / sqrt(x)", [AMP_Infer]>;
def TG_SquareOp : TG_UnaryOp<"square", "x * x", [AMP_Infer]>;
def TG_ReciprocalOp : TG_UnaryOp<"reciprocal", "1 / x", [AMP_Infer]>;
def TG_TanhOp : TG_UnaryOp<"tanh", "tanh(x)", [AMP_Infer]>;
def TG_SigmoidOp : TG_UnaryOp<"sigmoid", "1 / (1 + exp(-x))", [AMP_Infer]>;
def TG_ReluOp
    : TG_UnaryOp<"relu",
                 "max(x, 0), NaN kept (IEEE maximum, as PyTorch's relu)",
                 [AMP_Clear]>;
def TG_GeluOp
    : TG_UnaryOp<"gelu", "x * Phi(x) (exact, erf-based)", [AMP_Infer]>;
def TG_SiluOp : TG_UnaryOp<"silu", "x * sigmoid(x) (swish)", [AMP_Infer]>;
def TG_ErfOp : TG_UnaryOp<"erf", "erf(x)", [AMP_Infer]>;

def TG_LeakyReluOp
    : TG_Op<"leaky_relu", [AMP_Infer, SameOperandsAndResultType]> {
  let summary = "elementwise leaky ReLU";
  let description = [{
    `y = x > 0 ? x : alpha * x`, with `alpha` defaulting to 0.01.

    ```mlir
    %y = tg.leaky_relu %x {alpha = 2.000000e-01 : f64} : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$x, TG_Alpha:$alpha);
  let results = (outs TG_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

//===----------------------------------------------------------------------===//
// Binary elementwise (NumPy broadcasting)
//===----------------------------------------------------------------------===//

// Shares one C++ inference for every broadcasting binary op.
class TG_BroadcastingOp<string mnemonic, list<Trait> traits = []>
    : TG_Op<mnemonic, !listconcat([InferTypeOpAdaptor], traits)> {
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::amp::tg::inferBroadcastingResult(
          loc, adaptor.getOperands().getTypes(), getOperationName(), types);
    }
  }];
}

class TG_BinaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : TG_BroadcastingOp<mnemonic, traits> {
  let summary = "elementwise " # formula # " with broadcasting";
  let description = "Computes `c = " # formula # "` element by element. The "
    # "operands share an element type and broadcast like NumPy (trailing "
    # "dimensions align, size-1 dimensions expand). When both operands have "
    # "the same type it is written once.\n\nExample:\n\n```mlir\n"
    # "%c = tg." # mnemonic # " %a, %b : tensor<32x64xf32>, tensor<64xf32>\n"
    # "%d = tg." # mnemonic # " %c, %c : tensor<32x64xf32>\n```";
  let arguments = (ins TG_NumericTensor:$a, TG_NumericTensor:$b);
  let results = (outs TG_NumericTensor:$c);
  let assemblyFormat =
      "$a `,` $b attr-dict `:` custom<TypePair>(type($a), type($b))";
}

def TG_AddOp : TG_BinaryOp<"add", "a + b", [AMP_Infer, Commutative]>;
def TG_SubOp : TG_BinaryOp<"sub", "a - b", [AMP_Infer]>;
def TG_MulOp : TG_BinaryOp<"mul", "a * b", [AMP_Infer, Commutative]> {
  let hasFolder = 1;
}
def TG_DivOp : TG_BinaryOp<"div", "a / b", [AMP_Infer]>;
def TG_PowOp : TG_BinaryOp<"pow", "a ^ b", [AMP_Deny]>;
def TG_MaximumOp
    : TG_BinaryOp<"maximum", "max(a, b)", [AMP_Clear, Commutative]>;
def TG_MinimumOp
    : TG_BinaryOp<"minimum", "min(a, b)", [AMP_Clear, Commutative]>;

//===----------------------------------------------------------------------===//
// Compare and select
//===----------------------------------------------------------------------===//

def TG_CompareOp : TG_BroadcastingOp<"compare", [AMP_Clear]> {
  let summary = "elementwise comparison with broadcasting, giving i1";
  let description = [{
    Compares `a` and `b` element by element with `predicate`, one of `"eq"`,
    `"ne"`, `"lt"`, `"le"`, `"gt"`, `"ge"`. The result has the broadcast shape
    and element type `i1`. Comparisons with NaN are false except `"ne"`.

    ```mlir
    %m = tg.compare "gt", %x, %zero : tensor<8x16xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins TG_ComparisonDirectionAttr:$predicate, TG_NumericTensor:$a,
                   TG_NumericTensor:$b);
  let results = (outs TG_PredTensor:$c);
  let assemblyFormat = "$predicate `,` $a `,` $b attr-dict `:` "
                       "custom<TypePair>(type($a), type($b))";
  }

def TG_SelectOp : TG_BroadcastingOp<"select", [AMP_Clear]> {
  let summary = "elementwise choice between two tensors by an i1 condition";
  let description = [{
    `c = cond ? a : b` element by element; all three operands broadcast
    together and `a` and `b` share an element type.

    ```mlir
    %c = tg.select %cond, %a, %b : tensor<8x16xi1>, tensor<8x16xf32>
    ```
  }];
  let arguments = (ins TG_PredTensor:$cond, TG_AnyTensor:$a,
                   TG_AnyTensor:$b);
  let results = (outs TG_AnyTensor:$c);
  let assemblyFormat = "$cond `,` $a `,` $b attr-dict `:` type($cond) `,` "
                       "custom<TypePair>(type($a), type($b))";
  let hasFolder = 1;
}

def TG_IsFiniteOp : TG_Op<"is_finite", [AMP_Clear, InferTypeOpAdaptor]> {
  let summary = "elementwise test for a finite value (not inf, not NaN)";
  let description = [{
    ```mlir
    %ok = tg.is_finite %x : tensor<8x16xf16>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$x);
  let results = (outs TG_PredTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

//===----------------------------------------------------------------------===//
// Activation gradients
//===----------------------------------------------------------------------===//

class TG_ActivationGradOp<string mnemonic, string forward, string saved,
                          string formula, list<Trait> traits>
    : TG_Op<mnemonic, !listconcat([SameOperandsAndResultType], traits)> {
  let summary = "gradient of tg." # forward;
  let description = "Given the upstream gradient `dy` and the forward op's "
    # saved # ", computes `dx = " # formula # "`.\n\nExample:\n\n```mlir\n"
    # "%dx = tg." # mnemonic # " %dy, %v : tensor<32x64xf32>\n```";
  let results = (outs TG_FloatTensor:$dx);
}

def TG_ReluGradOp
    : TG_ActivationGradOp<"relu_grad", "relu",
                          "input `x` or its output (relu(x) > 0 exactly "
                          "where x > 0, NaN and -0 included; `tg-autodiff` "
                          "passes the output, so the input can die at the "
                          "relu)",
                          "x > 0 ? dy : 0",
                          [AMP_Clear]> {
  let arguments = (ins TG_FloatTensor:$dy, TG_FloatTensor:$x);
  let assemblyFormat = "$dy `,` $x attr-dict `:` type($dx)";
}
def TG_GeluGradOp
    : TG_ActivationGradOp<"gelu_grad", "gelu", "input `x`",
                          "dy * (Phi(x) + x * phi(x))",
                          [AMP_Infer]> {
  let arguments = (ins TG_FloatTensor:$dy, TG_FloatTensor:$x);
  let assemblyFormat = "$dy `,` $x attr-dict `:` type($dx)";
}
def TG_TanhGradOp
    : TG_ActivationGradOp<"tanh_grad", "tanh", "output `y`",
                          "dy * (1 - y * y)",
                          [AMP_Infer]> {
  let arguments = (ins TG_FloatTensor:$dy, TG_FloatTensor:$y);
  let assemblyFormat = "$dy `,` $y attr-dict `:` type($dx)";
}
def TG_SigmoidGradOp
    : TG_ActivationGradOp<"sigmoid_grad", "sigmoid", "output `y`",
                          "dy * y * (1 - y)",
                          [AMP_Infer]> {
  let arguments = (ins TG_FloatTensor:$dy, TG_FloatTensor:$y);
  let assemblyFormat = "$dy `,` $y attr-dict `:` type($dx)";
}
def TG_LeakyReluGradOp
    : TG_ActivationGradOp<"leaky_relu_grad", "leaky_relu", "input `x`",
                          "x > 0 ? dy : alpha * dy",
                          [AMP_Infer]> {
  let arguments = (ins TG_FloatTensor:$dy, TG_FloatTensor:$x, TG_Alpha:$alpha);
  let assemblyFormat = "$dy `,` $x attr-dict `:` type($dx)";
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def TG_MatmulOp : TG_Op<"matmul", [AMP_Allow, InferTypeOpAdaptor]> {
  let summary = "rank-2 matrix product (Tensor Core work)";
  let description = [{
    `c = op(a) x op(b)` where `op` transposes when `transpose_a` /
    `transpose_b` is set. Operands share an element type; low-precision
    inputs accumulate in f32 at run time and the result has the input
    element type.

    ```mlir
    %c = tg.matmul %a, %b {transpose_b = true} : tensor<32x64xf16>, tensor<128x64xf16>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$a, TG_FloatTensor:$b,
                   TG_TransposeFlag:$transpose_a,
                   TG_TransposeFlag:$transpose_b);
  let results = (outs TG_FloatTensor:$c);
  let assemblyFormat =
      "$a `,` $b attr-dict `:` custom<TypePair>(type($a), type($b))";
}

def TG_BatchMatmulOp : TG_Op<"batch_matmul", [AMP_Allow, InferTypeOpAdaptor]> {
  let summary = "batched matrix product over leading dimensions";
  let description = [{
    Operands of equal rank >= 3 with equal leading (batch) dimensions; the
    last two dimensions multiply as in `tg.matmul`.

    ```mlir
    %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<4x16x32xf32>, tensor<4x16x32xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$a, TG_FloatTensor:$b,
                   TG_TransposeFlag:$transpose_a,
                   TG_TransposeFlag:$transpose_b);
  let results = (outs TG_FloatTensor:$c);
  let assemblyFormat =
      "$a `,` $b attr-dict `:` custom<TypePair>(type($a), type($b))";
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

class TG_ConvOp<string mnemonic, list<Trait> traits = []>
    : TG_Op<mnemonic, traits> {
  code convAttrsDoc = [{
    Attributes: `strides` [sh, sw] (default [1, 1]), `padding` [top, bottom,
    left, right] (default zeros), `dilations` [dh, dw] (default [1, 1]),
    `layout` "NHWC" (default; filters OHWI) or "NCHW" (filters OIHW).
  }];
}

def TG_Conv2DOp : TG_ConvOp<"conv2d", [AMP_Allow, InferTypeOpAdaptor]> {
  let summary = "2-D convolution (Tensor Core work)";
  let description = [{
    Cross-correlates input `x` with filter `w`; the output spatial size is
    `(H + top + bottom - dh * (KH - 1) - 1) / sh + 1` (and likewise for W).
    Attributes: `strides` [sh, sw] (default [1, 1]), `padding` [top, bottom,
    left, right] (default zeros), `dilations` [dh, dw] (default [1, 1]),
    `layout` "NHWC" (default; filters OHWI) or "NCHW" (filters OIHW).

    ```mlir
    %y = tg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<8x28x28x1xf32>, tensor<16x3x3x1xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$x, TG_FloatTensor:$w,
                   TG_Strides:$strides, TG_Padding:$padding,
                   TG_Dilations:$dilations, TG_Layout:$layout);
  let results = (outs TG_FloatTensor:$y);
  let assemblyFormat =
      "$x `,` $w attr-dict `:` custom<TypePair>(type($x), type($w))";
}

def TG_Conv2DBackwardInputOp : TG_ConvOp<"conv2d_backward_input", [AMP_Allow]> {
  let summary = "gradient of tg.conv2d with respect to its input";
  let description = [{
    Given `dy` (shaped like the forward output) and the filter `w`, computes
    `dx`. The forward input shape is not determined by `dy` when strides
    drop rows, so the result type is written and verified: a `tg.conv2d` of
    `dx`'s shape with these attributes must produce `dy`'s shape.
    Attributes as for `tg.conv2d`.

    ```mlir
    %dx = tg.conv2d_backward_input %dy, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<8x28x28x16xf32>, tensor<16x3x3x1xf32> -> tensor<8x28x28x1xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$dy, TG_FloatTensor:$w,
                   TG_Strides:$strides, TG_Padding:$padding,
                   TG_Dilations:$dilations, TG_Layout:$layout);
  let results = (outs TG_FloatTensor:$dx);
  let assemblyFormat = "$dy `,` $w attr-dict `:` type($dy) `,` type($w) `->` "
                       "type($dx)";
  let hasVerifier = 1;
}

def TG_Conv2DBackwardFilterOp
    : TG_ConvOp<"conv2d_backward_filter", [AMP_Allow]> {
  let summary = "gradient of tg.conv2d with respect to its filter";
  let description = [{
    Given the forward input `x` and `dy`, computes `dw`. The filter's
    spatial size is written in the result type and verified against the
    forward shape rule. Attributes as for `tg.conv2d`.

    ```mlir
    %dw = tg.conv2d_backward_filter %x, %dy {padding = array<i64: 1, 1, 1, 1>} : tensor<8x28x28x1xf32>, tensor<8x28x28x16xf32> -> tensor<16x3x3x1xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$x, TG_FloatTensor:$dy,
                   TG_Strides:$strides, TG_Padding:$padding,
                   TG_Dilations:$dilations, TG_Layout:$layout);
  let results = (outs TG_FloatTensor:$dw);
  let assemblyFormat = "$x `,` $dy attr-dict `:` type($x) `,` type($dy) `->` "
                       "type($dw)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Bias
//===----------------------------------------------------------------------===//

def TG_BiasAddOp : TG_Op<"bias_add", [AMP_Infer, AllTypesMatch<["x", "y"]>]> {
  let summary = "adds a per-channel bias";
  let description = [{
    Adds the rank-1 `b` along the channel dimension of `x`: the last dimension
    for "NHWC" and for rank-2 inputs, dimension 1 for "NCHW".

    ```mlir
    %y = tg.bias_add %x, %b : tensor<32x128xf32>, tensor<128xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$x, TG_FloatTensor:$b,
                   TG_Layout:$layout);
  let results = (outs TG_FloatTensor:$y);
  let assemblyFormat = "$x `,` $b attr-dict `:` type($x) `,` type($b)";
  let hasVerifier = 1;
}

def TG_BiasAddGradOp : TG_Op<"bias_add_grad", [AMP_Infer, InferTypeOpAdaptor]> {
  let summary = "gradient of tg.bias_add with respect to the bias";
  let description = [{
    Sums `dy` over every dimension except the channel dimension.

    ```mlir
    %db = tg.bias_add_grad %dy : tensor<32x128xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$dy, TG_Layout:$layout);
  let results = (outs TG_FloatTensor:$db);
  let assemblyFormat = "$dy attr-dict `:` type($dy)";
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

class TG_Pool2DOp<string mnemonic, string kind, list<Trait> traits>
    : TG_Op<mnemonic, !listconcat([InferTypeOpAdaptor], traits)> {
  let summary = "2-D " # kind # " pooling";
  let description = "Pools each `window` [kh, kw] of `x` with " # kind
    # "; `strides`, `padding` and `layout` as for `tg.conv2d` (padded "
    # "elements are ignored by max and counted as zeros by avg).\n\n"
    # "Example:\n\n```mlir\n%y = tg." # mnemonic
    # " %x {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : "
    # "tensor<8x28x28x16xf32>\n```";
  let arguments = (ins TG_FloatTensor:$x, DenseI64ArrayAttr:$window,
                   TG_Strides:$strides, TG_Padding:$padding,
                   TG_Layout:$layout);
  let results = (outs TG_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::amp::tg::inferPoolResult(loc, getOperationName(), adaptor,
                                        types);
    }
  }];
}

def TG_MaxPool2DOp : TG_Pool2DOp<"max_pool2d", "max", [AMP_Clear]>;
def TG_AvgPool2DOp : TG_Pool2DOp<"avg_pool2d", "average", [AMP_Infer]>;

def TG_MaxPool2DGradOp : TG_Op<"max_pool2d_grad",
    [AMP_Clear, AllTypesMatch<["dy", "y"]>, AllTypesMatch<["x", "dx"]>]> {
  let summary = "gradient of tg.max_pool2d";
  let description = [{
    Routes each element of `dy` to the position of its window's maximum in
    `x` (`y` is the forward output). Attributes as for `tg.max_pool2d`.

    ```mlir
    %dx = tg.max_pool2d_grad %dy, %x, %y {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<8x14x14x16xf32>, tensor<8x28x28x16xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$dy, TG_FloatTensor:$x,
                   TG_FloatTensor:$y, DenseI64ArrayAttr:$window,
                   TG_Strides:$strides, TG_Padding:$padding,
                   TG_Layout:$layout);
  let results = (outs TG_FloatTensor:$dx);
  let assemblyFormat =
      "$dy `,` $x `,` $y attr-dict `:` type($dy) `,` type($x)";
  let hasVerifier = 1;
}

def TG_AvgPool2DGradOp : TG_Op<"avg_pool2d_grad", [AMP_Infer]> {
  let summary = "gradient of tg.avg_pool2d";
  let description = [{
    Spreads each element of `dy` evenly over its window. The input shape is
    written in the result type and verified against the pooling shape rule.

    ```mlir
    %dx = tg.avg_pool2d_grad %dy {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<8x14x14x16xf32> -> tensor<8x28x28x16xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$dy, DenseI64ArrayAttr:$window,
                   TG_Strides:$strides, TG_Padding:$padding,
                   TG_Layout:$layout);
  let results = (outs TG_FloatTensor:$dx);
  let assemblyFormat = "$dy attr-dict `:` type($dy) `->` type($dx)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def TG_BatchNormOp : TG_Op<"batch_norm",
    [TG_NormPrecision, InferTypeOpAdaptor,
     AllTypesMatch<["scale", "offset"]>]> {
  let summary = "batch normalization with batch statistics";
  let description = [{
    Normalizes `x` per channel (last dim for "NHWC" and rank 2, dim 1 for
    "NCHW") with the batch mean and `inv_std = 1 / sqrt(var + epsilon)`,
    then applies `scale` and `offset`. `scale`, `offset`, `mean` and
    `inv_std` are f32 whatever `x` is (f64 for f64 reference runs).

    ```mlir
    %y, %mean, %inv_std = tg.batch_norm %x, %scale, %offset : tensor<8x14x14x16xf16>, tensor<16xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$x, TG_WideFloatTensor:$scale,
                   TG_WideFloatTensor:$offset, TG_Epsilon:$epsilon,
                   TG_Layout:$layout);
  let results = (outs TG_FloatTensor:$y, TG_WideFloatTensor:$mean,
                 TG_WideFloatTensor:$inv_std);
  let assemblyFormat =
      "$x `,` $scale `,` $offset attr-dict `:` type($x) `,` type($scale)";
}

def TG_BatchNormGradOp : TG_Op<"batch_norm_grad",
    [TG_NormGradPrecision, InferTypeOpAdaptor, AllTypesMatch<["dy", "x"]>,
     AllTypesMatch<["scale", "mean", "inv_std"]>]> {
  let summary = "gradient of tg.batch_norm";
  let description = [{
    From `dy`, the forward input `x`, `scale` and the saved statistics,
    computes `dx` (typed like `x`) and the f32 `dscale` and `doffset`.

    ```mlir
    %dx, %dscale, %doffset = tg.batch_norm_grad %dy, %x, %scale, %mean, %inv_std : tensor<8x14x14x16xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$dy, TG_FloatTensor:$x,
                   TG_WideFloatTensor:$scale, TG_WideFloatTensor:$mean,
                   TG_WideFloatTensor:$inv_std, TG_Epsilon:$epsilon,
                   TG_Layout:$layout);
  let results = (outs TG_FloatTensor:$dx, TG_WideFloatTensor:$dscale,
                 TG_WideFloatTensor:$doffset);
  let assemblyFormat = "$dy `,` $x `,` $scale `,` $mean `,` $inv_std "
                       "attr-dict `:` type($x) `,` type($scale)";
}

def TG_LayerNormOp : TG_Op<"layer_norm",
    [TG_NormPrecision, InferTypeOpAdaptor, AllTypesMatch<["gamma", "beta"]>]> {
  let summary = "layer normalization over the last dimension";
  let description = [{
    Normalizes each row of the last dimension of `x` and applies `gamma` and
    `beta` (f32, shaped like the last dimension). `mean` and `inv_std` are
    f32 with the shape of `x` without its last dimension.

    ```mlir
    %y, %mean, %inv_std = tg.layer_norm %x, %gamma, %beta : tensor<4x16x32xf16>, tensor<32xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$x, TG_WideFloatTensor:$gamma,
                   TG_WideFloatTensor:$beta, TG_Epsilon:$epsilon);
  let results = (outs TG_FloatTensor:$y, TG_WideFloatTensor:$mean,
                 TG_WideFloatTensor:$inv_std);
  let assemblyFormat =
      "$x `,` $gamma `,` $beta attr-dict `:` type($x) `,` type($gamma)";
}

def TG_LayerNormGradOp : TG_Op<"layer_norm_grad",
    [TG_NormGradPrecision, InferTypeOpAdaptor, AllTypesMatch<["dy", "x"]>,
     AllTypesMatch<["mean", "inv_std"]>]> {
  let summary = "gradient of tg.layer_norm";
  let description = [{
    ```mlir
    %dx, %dgamma, %dbeta = tg.layer_norm_grad %dy, %x, %gamma, %mean, %inv_std : tensor<4x16x32xf32>, tensor<32xf32>, tensor<4x16xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$dy, TG_FloatTensor:$x,
                   TG_WideFloatTensor:$gamma, TG_WideFloatTensor:$mean,
                   TG_WideFloatTensor:$inv_std, TG_Epsilon:$epsilon);
  let results = (outs TG_FloatTensor:$dx, TG_WideFloatTensor:$dgamma,
                 TG_WideFloatTensor:$dbeta);
  let assemblyFormat = "$dy `,` $x `,` $gamma `,` $mean `,` $inv_std "
                       "attr-dict `:` type($x) `,` type($gamma) `,` "
                       "type($mean)";
}

//===----------------------------------------------------------------------===//
// Softmax and loss
//===----------------------------------------------------------------------===//

class TG_AxisOp<string mnemonic, list<Trait> traits = []>
    : TG_Op<mnemonic, !listconcat([SameOperandsAndResultType], traits)> {
  let hasVerifier = 1;
}

def TG_SoftmaxOp : TG_AxisOp<"softmax", [AMP_Infer]> {
  let summary = "softmax along one axis, optionally under a causal mask";
  let description = [{
    `y = exp(x - max) / sum(exp(x - max))` along `axis` (default -1; negative
    axes count from the end).

    With `causal`, `x` is attention scores `[..., queries, keys]` and the
    axis the last: query `i` attends to keys `0..i` only (a top-left causal
    mask, as torch's `is_causal`), and `y` is 0 at the keys it does not
    see. The mask is part of the op rather than a large negative added to
    the scores, so it holds in f16 and bf16 (no -inf or -65504 in the
    data), and `tg.softmax_grad` is its gradient unchanged.

    ```mlir
    %y = tg.softmax %x {axis = -1 : i64} : tensor<4x16x16xf32>
    %p = tg.softmax %scores {causal} : tensor<32x4x128x128xf16>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$x, TG_Axis:$axis, UnitAttr:$causal);
  let results = (outs TG_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def TG_LogSoftmaxOp : TG_AxisOp<"log_softmax", [AMP_Infer]> {
  let summary = "log-softmax along one axis";
  let description = [{
    `y = x - max - log(sum(exp(x - max)))` along `axis`.

    ```mlir
    %y = tg.log_softmax %x : tensor<32x10xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$x, TG_Axis:$axis);
  let results = (outs TG_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def TG_SoftmaxGradOp : TG_AxisOp<"softmax_grad", [AMP_Infer]> {
  let summary = "gradient of tg.softmax";
  let description = [{
    `dx = y * (dy - sum(dy * y))` along `axis`, from the forward output `y`.

    ```mlir
    %dx = tg.softmax_grad %dy, %y : tensor<4x16x16xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$dy, TG_FloatTensor:$y, TG_Axis:$axis);
  let results = (outs TG_FloatTensor:$dx);
  let assemblyFormat = "$dy `,` $y attr-dict `:` type($dx)";
}

def TG_LogSoftmaxGradOp : TG_AxisOp<"log_softmax_grad", [AMP_Infer]> {
  let summary = "gradient of tg.log_softmax";
  let description = [{
    `dx = dy - exp(y) * sum(dy)` along `axis`, from the forward output `y`.

    ```mlir
    %dx = tg.log_softmax_grad %dy, %y : tensor<32x10xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$dy, TG_FloatTensor:$y, TG_Axis:$axis);
  let results = (outs TG_FloatTensor:$dx);
  let assemblyFormat = "$dy `,` $y attr-dict `:` type($dx)";
}

def TG_SoftmaxCrossEntropyOp
    : TG_Op<"softmax_cross_entropy", [AMP_Deny, InferTypeOpAdaptor]> {
  let summary = "per-example softmax cross-entropy loss";
  let description = [{
    `loss[n] = -sum_c p[n, c] * log_softmax(logits)[n, c]`, where `p` is the
    one-hot of integer `labels` [N] (each in [0, C)) or the float
    distribution `labels` [N, C] typed like `logits`.

    ```mlir
    %loss = tg.softmax_cross_entropy %logits, %labels : tensor<32x10xf32>, tensor<32xi32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$logits, TG_AnyTensor:$labels);
  let results = (outs TG_FloatTensor:$loss);
  let assemblyFormat =
      "$logits `,` $labels attr-dict `:` type($logits) `,` type($labels)";
}

def TG_SoftmaxCrossEntropyGradOp : TG_Op<"softmax_cross_entropy_grad",
    [AMP_Deny, AllTypesMatch<["logits", "dlogits"]>]> {
  let summary = "gradient of tg.softmax_cross_entropy";
  let description = [{
    `dlogits[n, c] = dloss[n] * (softmax(logits)[n, c] - p[n, c])`.

    ```mlir
    %dlogits = tg.softmax_cross_entropy_grad %dloss, %logits, %labels : tensor<32xf32>, tensor<32x10xf32>, tensor<32xi32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$dloss, TG_FloatTensor:$logits,
                   TG_AnyTensor:$labels);
  let results = (outs TG_FloatTensor:$dlogits);
  let assemblyFormat = "$dloss `,` $logits `,` $labels attr-dict `:` "
                       "type($dloss) `,` type($logits) `,` type($labels)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class TG_ReduceOp<string mnemonic, string kind, list<Trait> traits>
    : TG_Op<mnemonic, !listconcat([InferTypeOpAdaptor], traits)> {
  let summary = "reduces dimensions by " # kind;
  let description = "Reduces `x` over `dims` (each in [-rank, rank), no "
    # "repeats) by " # kind # ". With `keepdims` the reduced dimensions stay "
    # "as size 1; reducing every dimension without it gives a rank-0 tensor."
    # "\n\nExample:\n\n```mlir\n%s = tg." # mnemonic
    # " %x {dims = array<i64: 0, 1>} : tensor<32x10xf32>\n```";
  let arguments = (ins TG_NumericTensor:$x, DenseI64ArrayAttr:$dims,
                   TG_KeepDims:$keepdims);
  let results = (outs TG_NumericTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::amp::tg::inferReduceResult(loc, getOperationName(), adaptor,
                                          types);
    }
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor) {
      return ::amp::tg::foldIdentityReduce(*this);
    }
  }];
}

def TG_ReduceSumOp : TG_ReduceOp<"reduce_sum", "sum", [AMP_DenyForF16]>;
def TG_ReduceMeanOp : TG_ReduceOp<"reduce_mean", "mean", [AMP_DenyForF16]>;
def TG_ReduceMaxOp : TG_ReduceOp<"reduce_max", "max", [AMP_Clear]>;

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

def TG_ReshapeOp : TG_Op<"reshape", [AMP_Clear]> {
  let summary = "reinterprets a tensor with a new shape";
  let description = [{
    The result type gives the shape; element count and element type are
    unchanged.

    ```mlir
    %y = tg.reshape %x : tensor<8x28x28x1xf32> -> tensor<8x784xf32>
    ```
  }];
  let arguments = (ins TG_AnyTensor:$x);
  let results = (outs TG_AnyTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TG_BroadcastToOp : TG_Op<"broadcast_to", [AMP_Clear]> {
  let summary = "expands a tensor to a broadcast-compatible shape";
  let description = [{
    NumPy broadcasting to the result type's shape.

    ```mlir
    %y = tg.broadcast_to %b : tensor<64xf32> -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins TG_AnyTensor:$x);
  let results = (outs TG_AnyTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TG_TransposeOp : TG_Op<"transpose", [AMP_Clear, InferTypeOpAdaptor]> {
  let summary = "permutes dimensions";
  let description = [{
    Result dimension `i` is operand dimension `perm[i]`.

    ```mlir
    %y = tg.transpose %x {perm = array<i64: 1, 0>} : tensor<32x64xf32>
    ```
  }];
  let arguments = (ins TG_AnyTensor:$x, DenseI64ArrayAttr:$perm);
  let results = (outs TG_AnyTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TG_ConcatOp : TG_Op<"concat", [AMP_Clear, InferTypeOpAdaptor]> {
  let summary = "joins tensors along an axis";
  let description = [{
    Operands share rank, element type and every dimension but `axis`
    (default -1).

    ```mlir
    %y = tg.concat %a, %b {axis = 1 : i64} : tensor<8x16xf32>, tensor<8x4xf32>
    ```
  }];
  let arguments = (ins Variadic<TG_AnyTensor>:$xs, TG_Axis:$axis);
  let results = (outs TG_AnyTensor:$y);
  let assemblyFormat = "$xs attr-dict `:` type($xs)";
  let hasFolder = 1;
}

def TG_SliceOp : TG_Op<"slice", [AMP_Clear, InferTypeOpAdaptor]> {
  let summary = "extracts a strided window";
  let description = [{
    Result dimension `i` has `sizes[i]` elements taken from `offsets[i]` in
    steps of `strides[i]` (each >= 1); the window must lie inside the
    operand. `strides` defaults to ones.

    ```mlir
    %y = tg.slice %x {offsets = array<i64: 0, 4>, sizes = array<i64: 8, 4>, strides = array<i64: 1, 2>} : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins TG_AnyTensor:$x, DenseI64ArrayAttr:$offsets,
                   DenseI64ArrayAttr:$sizes,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs TG_AnyTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasFolder = 1;
}

def TG_PadOp : TG_Op<"pad", [AMP_Clear, InferTypeOpAdaptor]> {
  let summary = "pads every dimension with a constant";
  let description = [{
    Adds `low[i]` elements before and `high[i]` after dimension `i` (each
    >= 0), filled with `value` (default 0).

    ```mlir
    %y = tg.pad %x {low = array<i64: 0, 1>, high = array<i64: 0, 1>} : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins TG_AnyTensor:$x, DenseI64ArrayAttr:$low,
                   DenseI64ArrayAttr:$high,
                   DefaultValuedOptionalAttr<F64Attr, "0.0">:$value);
  let results = (outs TG_AnyTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

def TG_GatherOp : TG_Op<"gather", [AMP_Clear, InferTypeOpAdaptor]> {
  let summary = "looks up rows of a table";
  let description = [{
    `y[i..., j...] = table[indices[i...], j...]`: the result shape is the
    indices' shape followed by the table's shape without its first
    dimension. Out-of-range indices are a run-time error.

    ```mlir
    %e = tg.gather %table, %ids : tensor<1000x64xf32>, tensor<8x16xi32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$table, TG_IndexTensor:$indices);
  let results = (outs TG_FloatTensor:$y);
  let assemblyFormat =
      "$table `,` $indices attr-dict `:` type($table) `,` type($indices)";
}

def TG_GatherGradOp : TG_Op<"gather_grad", [AMP_Deny, InferTypeOpAdaptor]> {
  let summary = "gradient of tg.gather: scatter-add into a zero table";
  let description = [{
    Adds each row of `dy` into row `indices[...]` of a `num_rows`-row table
    of zeros.

    ```mlir
    %dtable = tg.gather_grad %dy, %ids {num_rows = 1000 : i64} : tensor<8x16x64xf32>, tensor<8x16xi32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$dy, TG_IndexTensor:$indices,
                   I64Attr:$num_rows);
  let results = (outs TG_FloatTensor:$dtable);
  let assemblyFormat =
      "$dy `,` $indices attr-dict `:` type($dy) `,` type($indices)";
}

//===----------------------------------------------------------------------===//
// Autodiff
//===----------------------------------------------------------------------===//

def TG_GradSeedOp : TG_Op<"grad_seed", [AMP_Clear, SameOperandsAndResultType]> {
  let summary = "ones shaped like the loss: the root of the backward pass";
  let description = [{
    `--amp-loss-scaling` multiplies this seed by the loss scale.

    ```mlir
    %seed = tg.grad_seed %loss : tensor<f32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$loss);
  let results = (outs TG_FloatTensor:$seed);
  let assemblyFormat = "$loss attr-dict `:` type($loss)";
}

def TG_GradientsOp : TG_Op<"gradients", [InferTypeOpAdaptor]> {
  let summary = "d loss / d wrt, expanded by --tg-autodiff";
  let description = [{
    A placeholder for reverse-mode differentiation: result `i` is the
    gradient of the float `loss` with respect to `wrt[i]` and has its type.
    `--tg-autodiff` replaces it with backward ops.

    ```mlir
    %dw1, %db1 = tg.gradients %loss wrt %w1, %b1 : tensor<f32>, tensor<784x128xf32>, tensor<128xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$loss, Variadic<TG_FloatTensor>:$wrt);
  let results = (outs Variadic<TG_FloatTensor>:$grads);
  let assemblyFormat =
      "$loss `wrt` $wrt attr-dict `:` type($loss) `,` type($wrt)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Optimizer
//===----------------------------------------------------------------------===//

def TG_SgdUpdateOp : TG_Op<"sgd_update",
    [AMP_F32Only, AllTypesMatch<["param", "grad", "new_param"]>]> {
  let summary = "plain SGD step: param - lr * grad";
  let description = [{
    ```mlir
    %w2 = tg.sgd_update %w, %dw, %lr : tensor<784x128xf32>
    ```
  }];
  let arguments = (ins TG_WideFloatTensor:$param, TG_WideFloatTensor:$grad,
                   TG_F32Scalar:$lr);
  let results = (outs TG_WideFloatTensor:$new_param);
  let assemblyFormat =
      "$param `,` $grad `,` $lr attr-dict `:` type($param)";
}

def TG_MomentumUpdateOp : TG_Op<"momentum_update",
    [AMP_F32Only, AllTypesMatch<["param", "grad", "velocity", "new_param",
                    "new_velocity"]>]> {
  let summary = "SGD with (optionally Nesterov) momentum and weight decay";
  let description = [{
    torch.optim.SGD's step (no dampening): `g = grad + weight_decay *
    param` (L2 weight decay, added to the gradient; default 0),
    `v' = momentum * v + g`, `param' = param - lr * v'`, or with
    `nesterov`, `param' = param - lr * (g + momentum * v')`. Under loss
    scaling the gradient is unscaled before the decay joins it.

    ```mlir
    %w2, %v2 = tg.momentum_update %w, %dw, %v, %lr {momentum = 9.000000e-01 : f64, weight_decay = 5.000000e-04 : f64} : tensor<784x128xf32>
    ```
  }];
  let arguments = (ins TG_WideFloatTensor:$param, TG_WideFloatTensor:$grad,
                   TG_WideFloatTensor:$velocity, TG_F32Scalar:$lr,
                   DefaultValuedOptionalAttr<F64Attr, "0.9">:$momentum,
                   DefaultValuedOptionalAttr<F64Attr, "0.0">:$weight_decay,
                   DefaultValuedOptionalAttr<BoolAttr, "false">:$nesterov);
  let results = (outs TG_WideFloatTensor:$new_param,
                 TG_WideFloatTensor:$new_velocity);
  let assemblyFormat = "$param `,` $grad `,` $velocity `,` $lr attr-dict `:` "
                       "type($param)";
  let hasVerifier = 1;
}

def TG_AdamUpdateOp : TG_Op<"adam_update",
    [AMP_F32Only,
     AllTypesMatch<["param", "grad", "m", "v", "new_param", "new_m",
                    "new_v"]>]> {
  let summary = "Adam / AdamW step with bias correction";
  let description = [{
    `step` is the 1-based step number used for bias correction.
    `m' = beta1 m + (1 - beta1) g`, `v' = beta2 v + (1 - beta2) g^2`,
    `param' = param - lr * (m'/(1 - beta1^step)) / (sqrt(v'/(1 - beta2^step))
    + epsilon) - lr * weight_decay * param` (decoupled weight decay).
    Defaults: beta1 0.9, beta2 0.999, epsilon 1e-5 (the SPEC's default for
    every `epsilon`), weight_decay 0. The runtime updates in the tensors'
    type (f32 master weights and state in f32) with torch.optim.AdamW's
    arithmetic: `param * (1 - lr * weight_decay) - (step_size * m') /
    (sqrt(v') / sqrt(1 - beta2^step) + epsilon)`, `step_size = lr / (1 -
    beta1^step)`, the per-step scalars formed in double.

    ```mlir
    %w2, %m2, %v2 = tg.adam_update %w, %dw, %m, %v, %step, %lr {beta1 = 9.000000e-01 : f64} : tensor<784x128xf32>
    ```
  }];
  let arguments = (ins TG_WideFloatTensor:$param, TG_WideFloatTensor:$grad,
                   TG_WideFloatTensor:$m, TG_WideFloatTensor:$v,
                   TG_I64Scalar:$step, TG_F32Scalar:$lr,
                   DefaultValuedOptionalAttr<F64Attr, "0.9">:$beta1,
                   DefaultValuedOptionalAttr<F64Attr, "0.999">:$beta2,
                   TG_Epsilon:$epsilon,
                   DefaultValuedOptionalAttr<F64Attr, "0.0">:$weight_decay);
  let results = (outs TG_WideFloatTensor:$new_param, TG_WideFloatTensor:$new_m,
                 TG_WideFloatTensor:$new_v);
  let assemblyFormat = "$param `,` $grad `,` $m `,` $v `,` $step `,` $lr "
                       "attr-dict `:` type($param)";
  let hasVerifier = 1;
}

def TG_ClipByGlobalNormOp
    : TG_Op<"clip_by_global_norm", [AMP_F32Only, InferTypeOpAdaptor]> {
  let summary = "rescales gradients so their joint L2 norm is <= max_norm";
  let description = [{
    `g_i' = g_i * min(1, max_norm / sqrt(sum_i |g_i|^2))`.

    ```mlir
    %g1, %g2 = tg.clip_by_global_norm %dw, %db {max_norm = 1.000000e+00 : f64} : tensor<784x128xf32>, tensor<128xf32>
    ```
  }];
  let arguments = (ins Variadic<TG_WideFloatTensor>:$grads, F64Attr:$max_norm);
  let results = (outs Variadic<TG_WideFloatTensor>:$clipped);
  let assemblyFormat = "$grads attr-dict `:` type($grads)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// Not Pure: every rank must run the same collectives in the same order, so
// none may be removed, merged or moved by a pass that would treat it as
// arithmetic (it has unknown side effects).
def TG_AllReduceOp
    : Op<TG_Dialect, "all_reduce", [AMP_F32Only, InferTypeOpAdaptor]> {
  let summary = "combines tensors over the ranks of a process group";
  let description = [{
    Every rank of the process group named by `comm` (an argument with
    `tg.role = "communicator"`, a rank-0 i64 whose value names the group; 0
    is the world) passes its tensors; each result is the `reduction`
    (`"sum"`, `"mean"`, `"min"` or `"max"`, default `"sum"`) of that operand
    over the ranks, the same on every rank. `sum` and `mean` take float
    tensors; `min` and `max` any type (on `i1` they are logical and / or,
    which is how the ranks agree that every gradient was finite). All
    operands share one element type and travel in one message (a bucket, as
    `--tg-data-parallel` forms them). The runtime reduces each element on one
    rank, over the ranks in rank order, accumulating 16-bit floats in f32,
    so results do not depend on scheduling.

    The op has side effects: each rank must run the same all-reduces in the
    same order, so passes neither remove nor reorder it.

    ```mlir
    %dw, %db = tg.all_reduce %comm, %gw, %gb {reduction = "mean"} : tensor<i64>, tensor<784x128xf32>, tensor<128xf32>
    ```
  }];
  let arguments = (ins 0DTensorOf<[I64]>:$comm, Variadic<TG_AnyTensor>:$xs,
                   DefaultValuedOptionalAttr<TG_ReductionAttr,
                       "::amp::tg::Reduction::Sum">:$reduction);
  let results = (outs Variadic<TG_AnyTensor>:$ys);
  let assemblyFormat =
      "$comm `,` $xs attr-dict `:` type($comm) `,` type($xs)";
  let hasVerifier = 1;
}

#endif // AMP_DIALECT_TG_IR_TGOPS_TD
