// --amp-fuse-for-runtime reads a tg.batch_matmul's transposed operands
// (through reshapes and slices) where they lie, and writes a result that
// only a tg.transpose reads as that transpose's result: one
// amprt.strided_batch_matmul over views {offset, shape, strides} of the
// tensors the chains start from. Transposes and slices nothing reads any
// more go; one that another op still reads stays. strided-products=0
// leaves them all.
// RUN: amp-opt %s --amp-fuse-for-runtime | FileCheck %s
// RUN: amp-opt %s --amp-fuse-for-runtime=strided-products=0 \
// RUN:   | FileCheck %s --check-prefix=OFF

// q and k: heads of 4 in columns 0-11 and 12-23 of a [10, 36] projection
// (batch 2, 5 tokens, 3 heads).
// CHECK-LABEL: func.func @scores(
// CHECK-NEXT: %[[S:.*]] = amprt.strided_batch_matmul %arg0 [0, 2, 3, 5, 4, 180, 4, 36, 1], %arg0 [12, 2, 3, 4, 5, 180, 4, 1, 36] into [0, 2, 3, 5, 5, 75, 25, 5, 1] : tensor<10x36xf32>, tensor<10x36xf32> -> tensor<2x3x5x5xf32>
// CHECK-NEXT: return %[[S]]
// OFF-LABEL: func.func @scores(
// OFF-NOT: amprt.strided_batch_matmul
// OFF: tg.batch_matmul
func.func @scores(%qkv: tensor<10x36xf32>) -> tensor<2x3x5x5xf32> {
  %q0 = tg.slice %qkv {offsets = array<i64: 0, 0>, sizes = array<i64: 10, 12>} : tensor<10x36xf32>
  %q1 = tg.reshape %q0 : tensor<10x12xf32> -> tensor<2x5x3x4xf32>
  %q = tg.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xf32>
  %k0 = tg.slice %qkv {offsets = array<i64: 0, 12>, sizes = array<i64: 10, 12>} : tensor<10x36xf32>
  %k1 = tg.reshape %k0 : tensor<10x12xf32> -> tensor<2x5x3x4xf32>
  %k = tg.transpose %k1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xf32>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32>
  return %s : tensor<2x3x5x5xf32>
}

// The weighted v, written with its heads merged back: [2, 5, 3, 4].
// CHECK-LABEL: func.func @weighted(
// CHECK-NEXT: %[[O:.*]] = amprt.strided_batch_matmul %arg0 [0, 2, 3, 5, 5, 75, 25, 5, 1], %arg1 [24, 2, 3, 5, 4, 180, 4, 36, 1] into [0, 2, 3, 5, 4, 60, 4, 12, 1] : tensor<2x3x5x5xf32>, tensor<10x36xf32> -> tensor<2x5x3x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @weighted(%p: tensor<2x3x5x5xf32>, %qkv: tensor<10x36xf32>) -> tensor<2x5x3x4xf32> {
  %v0 = tg.slice %qkv {offsets = array<i64: 0, 24>, sizes = array<i64: 10, 12>} : tensor<10x36xf32>
  %v1 = tg.reshape %v0 : tensor<10x12xf32> -> tensor<2x5x3x4xf32>
  %v = tg.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x3x5x5xf32>, tensor<2x3x5x4xf32>
  %m = tg.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x5x4xf32>
  return %m : tensor<2x5x3x4xf32>
}

// A strided slice (every third column from column 1) is a view too.
// CHECK-LABEL: func.func @every_third(
// CHECK-NEXT: %[[S:.*]] = amprt.strided_batch_matmul %arg0 [1, 2, 3, 5, 4, 180, 12, 36, 3], %arg1 [0, 2, 3, 4, 4, 48, 16, 4, 1] into [0, 2, 3, 5, 4, 60, 20, 4, 1] : tensor<10x36xf32>, tensor<2x3x4x4xf32> -> tensor<2x3x5x4xf32>
// CHECK-NEXT: return %[[S]]
func.func @every_third(%qkv: tensor<10x36xf32>, %w: tensor<2x3x4x4xf32>) -> tensor<2x3x5x4xf32> {
  %x0 = tg.slice %qkv {offsets = array<i64: 0, 1>, sizes = array<i64: 10, 12>, strides = array<i64: 1, 3>} : tensor<10x36xf32>
  %x1 = tg.reshape %x0 : tensor<10x12xf32> -> tensor<2x5x3x4xf32>
  %x = tg.transpose %x1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xf32>
  %p = tg.batch_matmul %x, %w : tensor<2x3x5x4xf32>, tensor<2x3x4x4xf32>
  return %p : tensor<2x3x5x4xf32>
}

// A transpose another op reads stays for it; products of plain tensors,
// and a result read by more than a transpose, stay tg.batch_matmul.
// CHECK-LABEL: func.func @shared(
// CHECK: %[[T:.*]] = tg.transpose %arg0
// CHECK: amprt.strided_batch_matmul %arg0 [0, 2, 3, 5, 4, 60, 4, 12, 1], %arg1
// CHECK: tg.exp %[[T]]
// CHECK: tg.batch_matmul %arg1, %arg1
// CHECK-NOT: amprt.strided_batch_matmul
func.func @shared(%x: tensor<2x5x3x4xf32>, %y: tensor<2x3x4x4xf32>)
    -> (tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) {
  %t = tg.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xf32>
  %p = tg.batch_matmul %t, %y : tensor<2x3x5x4xf32>, tensor<2x3x4x4xf32>
  %e = tg.exp %t : tensor<2x3x5x4xf32>
  %q = tg.batch_matmul %y, %y : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
  %r = tg.exp %q : tensor<2x3x4x4xf32>
  return %p, %e, %q, %r : tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
}
