// The pass never writes IR that fails verification, whatever it is given:
// ops whose float values are not all ranked tensors (an unranked
// tensor.cast, a splat of a scalar, an extract, a linalg op on memrefs)
// keep f32 with a reason, dynamic shapes convert, and ops with regions that
// a list names without a precision model keep their types. amp-opt verifies
// after the pass (--verify-each, on by default), and the pass checks every
// op it changed itself.
// RUN: amp-opt %s --verify-each --amp-auto-mixed-precision="clear=tensor.splat,tensor.extract,scf.for" | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision="clear=tensor.splat,tensor.extract,scf.for remarks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @unranked
// CHECK: %[[C:.*]] = tensor.cast %{{.*}} : tensor<*xf32> to tensor<4x4xf32>
// CHECK: %[[H:.*]] = amp.cast %[[C]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: tg.matmul %[[H]], %{{.*}} : tensor<4x4xf16>
// REMARK: :[[# @LINE + 2]]:8: remark: amp: f32 (cannot compute in f16)
func.func @unranked(%u: tensor<*xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %x = tensor.cast %u : tensor<*xf32> to tensor<4x4xf32>
  %m = tg.matmul %x, %w : tensor<4x4xf32>
  %r = tg.relu %m : tensor<4x4xf32>
  %n = tg.matmul %r, %w : tensor<4x4xf32>
  return %n : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @dynamic
// CHECK: %[[H:.*]] = amp.cast %{{.*}} : tensor<?x4xf32> to tensor<?x4xf16>
// CHECK: tensor.cast %[[H]] : tensor<?x4xf16> to tensor<8x4xf16>
// CHECK: %[[D:.*]] = tensor.cast %{{.*}} : tensor<8x4xf16> to tensor<?x4xf16>
// CHECK: amp.cast %[[D]] : tensor<?x4xf16> to tensor<?x4xf32>
func.func @dynamic(%d: tensor<?x4xf32>, %w: tensor<4x4xf32>) -> tensor<?x4xf32> {
  %x = tensor.cast %d : tensor<?x4xf32> to tensor<8x4xf32>
  %m = "tg.matmul"(%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %y = tensor.cast %m : tensor<8x4xf32> to tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @memref_generic
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : memref<4x4xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
func.func @memref_generic(%a: memref<4x4xf32>, %x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = tg.matmul %x, %x : tensor<4x4xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%a : memref<4x4xf32>) {
  ^bb0(%o: f32):
    %t = arith.addf %o, %o : f32
    linalg.yield %t : f32
  }
  return %m : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @scalars
// CHECK: tensor.splat %{{.*}} : tensor<4x4xf32>
// CHECK: tensor.extract %{{.*}} : tensor<4x4xf32>
// REMARK: :[[# @LINE + 2]]:8: remark: amp: f32 (cannot compute in f16)
func.func @scalars(%s: f32, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, f32) {
  %x = tensor.splat %s : tensor<4x4xf32>
  %m = tg.matmul %x, %w : tensor<4x4xf32>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %m[%c0, %c0] : tensor<4x4xf32>
  return %m, %e : tensor<4x4xf32>, f32
}

// A listed op with regions and no precision model is not retyped as an op
// (its regions would not follow); a loop's values still change precision
// as carried values, consistently with its body.
// CHECK-LABEL: func.func @listed_loop
// CHECK: scf.for {{.*}} -> (tensor<4x4xf16>)
// CHECK:   tg.matmul {{.*}} : tensor<4x4xf16>
// REMARK: :[[# @LINE + 5]]:8: remark: amp: f16 (control flow: its values are carried values, coloured with the ops they connect)
func.func @listed_loop(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<4x4xf32>) {
    %m = tg.matmul %acc, %x : tensor<4x4xf32>
    scf.yield %m : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}
