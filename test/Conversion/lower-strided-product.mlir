// An amprt.strided_batch_matmul (here made by the lowering's own fusion
// from attention's head transposes) is one amprt_batch_matmul_strided
// call: the rank, then each tensor with its view {offset, shape,
// strides} as an i64 array; the q/k/v tensor is read in place, so no
// slice, transpose or copy of it is made.
// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s

// CHECK-LABEL: func.func @weighted(
// CHECK: %[[P:.*]] = llvm.load
// CHECK: %[[QKV:.*]] = llvm.load
// CHECK: %[[M:.*]] = call @amprt_tensor_new
// CHECK: %[[RANK:.*]] = arith.constant 4 : i32
// CHECK: call @amprt_batch_matmul_strided(%arg0, %[[RANK]], %[[P]], %{{.*}}, %[[QKV]], %{{.*}}, %[[M]], %{{.*}})
// CHECK-NOT: call @amprt_transpose
// CHECK-NOT: call @amprt_slice
// CHECK: return
func.func @weighted(%p: tensor<2x3x5x5xf32>, %qkv: tensor<10x36xf32>) -> tensor<2x5x3x4xf32> {
  %v0 = tg.slice %qkv {offsets = array<i64: 0, 24>, sizes = array<i64: 10, 12>} : tensor<10x36xf32>
  %v1 = tg.reshape %v0 : tensor<10x12xf32> -> tensor<2x5x3x4xf32>
  %v = tg.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x3x5x5xf32>, tensor<2x3x5x4xf32>
  %m = tg.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x5x4xf32>
  return %m : tensor<2x5x3x4xf32>
}
