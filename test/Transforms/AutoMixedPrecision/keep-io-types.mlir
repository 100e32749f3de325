// keep-io-types=true (the default, as SPEC §4 and §7 say) keeps function
// signatures: a compiler that embeds the pass gets back the signatures it
// gave. With keep-io-types=false, results that no caller or tg.role pins
// come back in the precision that computed them.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s --check-prefix=KEEP
// RUN: amp-opt %s --amp-auto-mixed-precision=keep-io-types=true | FileCheck %s --check-prefix=KEEP
// RUN: amp-opt %s --amp-auto-mixed-precision=keep-io-types=false | FileCheck %s --check-prefix=FLEX

// KEEP-LABEL: func.func @io(%{{.*}}: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32> {tg.role = "output"})
// KEEP: %[[M:.*]] = tg.matmul
// KEEP: %[[C:.*]] = amp.cast %[[M]] : tensor<32x32xf16> to tensor<32x32xf32>
// KEEP: return %[[C]], %[[C]] : tensor<32x32xf32>, tensor<32x32xf32>
// FLEX-LABEL: func.func @io(%{{.*}}: tensor<32x32xf32>) -> (tensor<32x32xf16>, tensor<32x32xf32> {tg.role = "output"})
// FLEX: %[[M:.*]] = tg.matmul
// FLEX: %[[C:.*]] = amp.cast %[[M]] : tensor<32x32xf16> to tensor<32x32xf32>
// FLEX: return %[[M]], %[[C]] : tensor<32x32xf16>, tensor<32x32xf32>
func.func @io(%x: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32> {tg.role = "output"}) {
  %m = tg.matmul %x, %x : tensor<32x32xf32>
  return %m, %m : tensor<32x32xf32>, tensor<32x32xf32>
}

// A function with callers keeps its signature either way.
// FLEX-LABEL: func.func private @callee(%{{.*}}: tensor<32x32xf32>) -> tensor<32x32xf32>
func.func private @callee(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %m = tg.matmul %x, %x : tensor<32x32xf32>
  return %m : tensor<32x32xf32>
}
// FLEX-LABEL: func.func @caller
// FLEX: call @callee(%{{.*}}) : (tensor<32x32xf32>) -> tensor<32x32xf32>
func.func @caller(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %r = func.call @callee(%x) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// Functions in nested modules are converted too.
// FLEX-LABEL: module @inner
// FLEX: func.func @nested(%{{.*}}: tensor<32x32xf32>) -> tensor<32x32xf16>
// FLEX: tg.matmul {{.*}} : tensor<32x32xf16>
module @inner {
  func.func @nested(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
    %m = tg.matmul %x, %x : tensor<32x32xf32>
    return %m : tensor<32x32xf32>
  }
}
