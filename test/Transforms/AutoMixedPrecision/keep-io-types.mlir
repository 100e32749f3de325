// keep-io-types=true keeps function signatures; by default results that no
// caller or tg.role pins come back in the precision that computed them.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s --check-prefix=DEFAULT
// RUN: amp-opt %s --amp-auto-mixed-precision=keep-io-types=true | FileCheck %s --check-prefix=KEEP

// DEFAULT-LABEL: func.func @io(%{{.*}}: tensor<32x32xf32>) -> (tensor<32x32xf16>, tensor<32x32xf32> {tg.role = "output"})
// DEFAULT: %[[M:.*]] = tg.matmul
// DEFAULT: %[[C:.*]] = amp.cast %[[M]] : tensor<32x32xf16> to tensor<32x32xf32>
// DEFAULT: return %[[M]], %[[C]] : tensor<32x32xf16>, tensor<32x32xf32>
// KEEP-LABEL: func.func @io(%{{.*}}: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32> {tg.role = "output"})
// KEEP: %[[M:.*]] = tg.matmul
// KEEP: %[[C:.*]] = amp.cast %[[M]] : tensor<32x32xf16> to tensor<32x32xf32>
// KEEP: return %[[C]], %[[C]] : tensor<32x32xf32>, tensor<32x32xf32>
func.func @io(%x: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32> {tg.role = "output"}) {
  %m = tg.matmul %x, %x : tensor<32x32xf32>
  return %m, %m : tensor<32x32xf32>, tensor<32x32xf32>
}

// A function with callers keeps its signature.
// DEFAULT-LABEL: func.func private @callee(%{{.*}}: tensor<32x32xf32>) -> tensor<32x32xf32>
func.func private @callee(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %m = tg.matmul %x, %x : tensor<32x32xf32>
  return %m : tensor<32x32xf32>
}
// DEFAULT-LABEL: func.func @caller
// DEFAULT: call @callee(%{{.*}}) : (tensor<32x32xf32>) -> tensor<32x32xf32>
func.func @caller(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %r = func.call @callee(%x) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}
