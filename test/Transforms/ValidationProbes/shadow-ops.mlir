// Every op the precision pass would move to f16 keeps computing in f32 and
// gets a shadow in f16 on its own operands cast down, and an f32 copy on the
// rounded operands; the numeric errors of the shadow against both come back
// as tg.role "output" results described by amp.probe. Ops that stay f32
// (the deny-listed exp) are not probed, and the f32 graph is unchanged.
// RUN: amp-opt %s --amp-validation-probes | FileCheck %s
// RUN: amp-opt %s --amp-validation-probes="precision=bf16" | FileCheck %s --check-prefix=BF16

// CHECK-LABEL: func.func @f
// CHECK-SAME: -> (tensor<4x4xf32>,
// CHECK-SAME: tensor<10xf32> {amp.probe = {backward = false, class = "allow", id = 0 : i64, index = 0 : i64, kind = "result", loc = "loc(\22{{[^"]*}}shadow-ops.mlir\22:{{[0-9]+}}:8)", op = "tg.matmul", precision = "f16"}, tg.role = "output"},
// CHECK-SAME: tensor<10xf32> {amp.probe = {backward = false, class = "allow", id = 0 : i64, index = 0 : i64, kind = "arithmetic"
// CHECK-SAME: tensor<10xf32> {amp.probe = {backward = false, class = "allow", id = 0 : i64, index = 0 : i64, kind = "input"
// CHECK-SAME: tensor<10xf32> {amp.probe = {backward = false, class = "allow", id = 0 : i64, index = 1 : i64, kind = "input"
// CHECK: %[[M:.*]] = tg.matmul %arg0, %arg1 : tensor<4x4xf32>
// CHECK: %[[A:.*]] = amp.cast %arg0 : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: %[[B:.*]] = amp.cast %arg1 : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: %[[LOW:.*]] = tg.matmul %[[A]], %[[B]] : tensor<4x4xf16>
// CHECK: %[[A32:.*]] = amp.cast %[[A]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: %[[B32:.*]] = amp.cast %[[B]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: %[[ROUNDED:.*]] = tg.matmul %[[A32]], %[[B32]] : tensor<4x4xf32>
// CHECK: %[[S0:.*]] = amp.numeric_error %[[M]], %[[LOW]] : tensor<4x4xf32>, tensor<4x4xf16> -> tensor<10xf32>
// CHECK: %[[S1:.*]] = amp.numeric_error %[[ROUNDED]], %[[LOW]]
// CHECK: %[[S2:.*]] = amp.numeric_error %arg0, %[[A]]
// CHECK: %[[S3:.*]] = amp.numeric_error %arg1, %[[B]]
// CHECK: %[[E:.*]] = tg.exp %[[M]] : tensor<4x4xf32>
// CHECK-NOT: tg.exp
// CHECK: return %[[E]], %[[S0]], %[[S1]], %[[S2]], %[[S3]]
// BF16: precision = "bf16"
// BF16: tg.matmul %{{.*}}, %{{.*}} : tensor<4x4xbf16>
func.func @f(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = tg.matmul %x, %w : tensor<4x4xf32>
  %e = tg.exp %m : tensor<4x4xf32>
  return %e : tensor<4x4xf32>
}

// Nothing in the allow set: nothing to probe, the function is unchanged.
// CHECK-LABEL: func.func @all_f32
// CHECK-SAME: -> tensor<4xf32>
// CHECK-NOT: amp.numeric_error
func.func @all_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tg.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}
