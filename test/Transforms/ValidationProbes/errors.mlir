// Bad options and functions that cannot be probed are errors, never
// invalid IR.
// RUN: not amp-opt %s --amp-validation-probes="functions=missing" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not amp-opt %s --amp-validation-probes="functions=callee" 2>&1 | FileCheck %s --check-prefix=CALLED
// RUN: not amp-opt %s --amp-validation-probes="precision=f8" 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: amp-opt %s --amp-validation-probes | FileCheck %s --check-prefix=DEFAULT

// MISSING: amp-validation-probes: no function @missing
// CALLED: amp-validation-probes: @callee is called, and probes add results to its signature
// TYPE: for the --precision option: Cannot find option named 'f8'!
// A called function keeps its signature when no function is named.
// DEFAULT-LABEL: func.func @callee
// DEFAULT-SAME: -> tensor<4x4xf32> {
// DEFAULT-LABEL: func.func @caller
// DEFAULT: amp.numeric_error
func.func @callee(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = tg.matmul %x, %x : tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}

func.func @caller(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c = func.call @callee(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = tg.matmul %c, %x : tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}
