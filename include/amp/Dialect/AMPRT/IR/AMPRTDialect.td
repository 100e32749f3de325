//===- AMPRTDialect.td - Ops that are one runtime call -----*- tablegen -*-===//
//
// Declares `amprt`: the fused forms --amp-fuse-for-runtime makes of tg and
// amp ops, each of which --amp-lower-to-runtime lowers to one call of the
// runtime's C API (amprt.h), or to no call at all.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMPRT_IR_AMPRTDIALECT_TD
#define AMP_DIALECT_AMPRT_IR_AMPRTDIALECT_TD

include "mlir/IR/OpBase.td"

def AMPRT_Dialect : Dialect {
  let name = "amprt";
  let cppNamespace = "::amp::rt";
  let summary = "Fused runtime calls: what a lowered step runs together";
  let description = [{
    The `amprt` dialect holds what `--amp-fuse-for-runtime` makes of a
    training step before `--amp-lower-to-runtime` turns it into runtime
    calls: ops that run several tg/amp ops in one call of the runtime's C
    API (`amprt.product_epilogue`, `amprt.elementwise_chain`,
    `amprt.unscale_all_finite`) and ops that make no tensor of their own
    (`amprt.view`, `amprt.cast_on_read`). Each op's verifier holds what its
    runtime call can run, so a fusion that the runtime could not run is
    refused when the IR is built, not when it is lowered. The ops are
    named after the `amprt_*` entries they lower to.

    The region ops are isolated from above: their region's arguments are
    the op's operands, in order, and its `amprt.yield` gives the op's
    results. The ops in a region keep their own verifiers, types and
    locations. A chain step or an epilogue activation is recognised by its
    `RuntimeLoweringOpInterface` model (`getElementwiseStep`), so a context
    that verifies these ops registers the models
    (`amp::registerTGToRuntimeLowerings`, which `amp::registerAllDialects`
    calls) as it loads the dialect.
  }];
  let usePropertiesForAttributes = 0;
  let dependentDialects = ["::amp::tg::TGDialect"];
}

#endif // AMP_DIALECT_AMPRT_IR_AMPRTDIALECT_TD
