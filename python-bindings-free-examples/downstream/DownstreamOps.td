//===- DownstreamOps.td - A downstream compiler's own ops --*- tablegen -*-===//

include "amp/Interfaces/PrecisionPolicyTrait.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def DN_Dialect : Dialect {
  let name = "dn";
  let cppNamespace = "::dn";
  let summary = "A downstream compiler's dialect (example)";
}

class DN_Op<string mnemonic, list<Trait> traits = []>
    : Op<DN_Dialect, mnemonic, !listconcat([Pure], traits)>;

// dn.dense declares its precision class in ODS; dn.swish gets its class as
// an external model (downstream_dialect.cpp), the way to reach ops one
// cannot edit.
def DN_DenseOp : DN_Op<"dense", [AMP_Allow]> {
  let summary = "x * w, a contraction this compiler sends to Tensor Cores";
  let arguments = (ins AnyRankedTensor:$x, AnyRankedTensor:$w);
  let results = (outs AnyRankedTensor:$y);
  let assemblyFormat = "$x `,` $w attr-dict `:` functional-type(operands, results)";
}

def DN_SwishOp : DN_Op<"swish", [SameOperandsAndResultType]> {
  let summary = "x * sigmoid(x)";
  let arguments = (ins AnyRankedTensor:$x);
  let results = (outs AnyRankedTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}
