// Every op's remark names why it ends in its precision: the painting steps'
// reasons, and for ops that keep f32 without one (worked out only when a
// remark, annotation or report asks), why nothing moved them.
// RUN: amp-opt %s --amp-auto-mixed-precision=remarks -o /dev/null 2>&1 | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision="remarks level=tensor-cores-only" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TC
// RUN: amp-opt %s --amp-auto-mixed-precision="remarks level=infer-as-deny" -o /dev/null 2>&1 | FileCheck %s --check-prefix=IAD

// CHECK:      32:9: remark: amp: f16 (allow list)
// CHECK:      33:8: remark: amp: f16 (between allow ops)
// CHECK:      34:9: remark: amp: f16 (allow list)
// CHECK:      35:8: remark: amp: f16 (clear op connected to allow ops)
// CHECK:      36:8: remark: amp: f32 (clear op not connected to allow ops)
// CHECK:      37:8: remark: amp: f32 (deny list)
// CHECK:      38:8: remark: amp: f32 (deny spread from tg.exp at loc({{.*}}reasons.mlir":37:8))
// CHECK:      39:8: remark: amp: f32 (deny spread from tg.exp at loc({{.*}}reasons.mlir":37:8))
// CHECK:      40:8: remark: amp: f32 (forced by amp.precision)
// CHECK:      44:8: remark: amp: f32 (deny list)
// CHECK:      45:8: remark: amp: f32 (no allow op in the function: nothing converts)
// CHECK:      46:8: remark: amp: f32 (forced by amp.precision)

// TC:         32:9: remark: amp: f16 (allow list)
// TC:         33:8: remark: amp: f32 (level=tensor-cores-only converts only allow ops)
// TC:         35:8: remark: amp: f32 (level=tensor-cores-only converts only allow ops)
// TC:         36:8: remark: amp: f32 (level=tensor-cores-only converts only allow ops)
// TC:         37:8: remark: amp: f32 (deny list)

// IAD:        33:8: remark: amp: f32 (infer op treated as deny (level=infer-as-deny))
// IAD:        35:8: remark: amp: f16 (clear op connected to allow ops)
// IAD:        39:8: remark: amp: f32 (infer op treated as deny (level=infer-as-deny))

func.func @painted(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %m1 = tg.matmul %x, %w : tensor<8x8xf32>
  %t = tg.tanh %m1 : tensor<8x8xf32>
  %m2 = tg.matmul %t, %w : tensor<8x8xf32>
  %r = tg.relu %m2 : tensor<8x8xf32>
  %n = tg.neg %x : tensor<8x8xf32>
  %e = tg.exp %n : tensor<8x8xf32>
  %a = tg.abs %e : tensor<8x8xf32>
  %s = tg.sigmoid %a : tensor<8x8xf32>
  %f = tg.matmul %s, %r {amp.precision = "f32"} : tensor<8x8xf32>
  return %r, %s, %f : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
func.func @nothing(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tg.exp %x : tensor<8x8xf32>
  %r = tg.relu %e : tensor<8x8xf32>
  %f = tg.matmul %r, %r {amp.precision = "f32"} : tensor<8x8xf32>
  return %f : tensor<8x8xf32>
}
