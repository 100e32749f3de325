// tg.all_reduce parses, prints and verifies; the generic form is stable.
//
// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s

// CHECK-LABEL: func.func @buckets
// CHECK: %[[S:.*]]:2 = tg.all_reduce %arg0, %arg1, %arg2 {reduction = "mean"} : tensor<i64>, tensor<784x128xf32>, tensor<128xf32>
// CHECK: tg.all_reduce %arg0, %arg3 : tensor<i64>, tensor<2x8xf16>
// CHECK: tg.all_reduce %arg0, %arg4 {reduction = "min"} : tensor<i64>, tensor<i1>
// CHECK: tg.all_reduce %arg0, %arg5 {reduction = "max"} : tensor<i64>, tensor<4xi32>
func.func @buckets(%comm: tensor<i64> {tg.role = "communicator"},
                   %a: tensor<784x128xf32>, %b: tensor<128xf32>,
                   %c: tensor<2x8xf16>, %ok: tensor<i1>, %n: tensor<4xi32>)
    -> (tensor<784x128xf32>, tensor<128xf32>, tensor<2x8xf16>, tensor<i1>, tensor<4xi32>) {
  %r:2 = tg.all_reduce %comm, %a, %b {reduction = "mean"} : tensor<i64>, tensor<784x128xf32>, tensor<128xf32>
  %s = tg.all_reduce %comm, %c {reduction = "sum"} : tensor<i64>, tensor<2x8xf16>
  %m = tg.all_reduce %comm, %ok {reduction = "min"} : tensor<i64>, tensor<i1>
  %x = tg.all_reduce %comm, %n {reduction = "max"} : tensor<i64>, tensor<4xi32>
  return %r#0, %r#1, %s, %m, %x : tensor<784x128xf32>, tensor<128xf32>, tensor<2x8xf16>, tensor<i1>, tensor<4xi32>
}
