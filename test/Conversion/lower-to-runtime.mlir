// --amp-lower-to-runtime turns a step into runtime calls over tensor
// handles: one amprt_tensor_new (unless an elementwise op reuses a dying
// operand) and one checked call per op, attributes as arguments, releases
// after last uses, results stored for the caller.
// Activation epilogues (lower-activation-epilogue.mlir) are off here.
// RUN: amp-opt %s --amp-lower-to-runtime=fuse-activation-epilogues=0 | FileCheck %s
// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s --check-prefix=GLOBAL
// RUN: amp-opt %s --amp-lower-to-runtime=fuse-activation-epilogues=0 --convert-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[W:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[MM:.*]] = call @amprt_tensor_new(%[[CTX]], %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i32, i32, !llvm.ptr) -> !llvm.ptr
// CHECK: %[[TB:.*]] = arith.constant 1 : i32
// CHECK: %[[S1:.*]] = call @amprt_matmul(%[[CTX]], %[[X]], %[[W]], %{{.*}}, %[[TB]], %[[MM]])
// CHECK: call @amprt_record_status(%[[CTX]], %[[S1]])
// The matmul result dies at the relu, which writes over it (see
// lower-in-place.mlir): no new tensor and no release.
// CHECK-NOT: amprt_tensor_new
// CHECK: call @amprt_relu(%[[CTX]], %[[MM]], %[[MM]])
// CHECK-NOT: call @amprt_tensor_release(%[[MM]])
// CHECK: call @amprt_tensor_fill(%{{.*}}, %{{.*}}) : (!llvm.ptr, f64) -> i32
// CHECK: call @amprt_sgd_update
// CHECK: llvm.store %{{.*}}, %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: %[[ST:.*]] = call @amprt_context_status(%[[CTX]])
// CHECK: return %[[ST]] : i32
// LLVM: define i32 @step(ptr %0, ptr %1, ptr %2)
// LLVM: call i32 @amprt_matmul(
func.func @step(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %lr: tensor<f32>) -> (tensor<4x16xf32>, tensor<16x8xf32>) {
  %m = tg.matmul %x, %w {transpose_b = true} : tensor<4x8xf32>, tensor<16x8xf32>
  %r = tg.relu %m : tensor<4x16xf32>
  %g = arith.constant dense<0.5> : tensor<16x8xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<16x8xf32>
  return %r, %w2 : tensor<4x16xf32>, tensor<16x8xf32>
}

// A non-splat constant is copied from an LLVM global.
// GLOBAL: llvm.mlir.global internal constant @consts_cst0(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>)
// CHECK-LABEL: func.func @consts
// CHECK: llvm.mlir.addressof @consts_cst0
// CHECK: call @amprt_tensor_write
func.func @consts(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %y = tg.add %x, %c : tensor<3xf32>
  return %y : tensor<3xf32>
}

// Enum-valued attributes become amprt.h's codes (AMPRT_LT = 2 for "lt",
// AMPRT_NCHW = 1), and tg.silu calls its own entry.
// CHECK-LABEL: func.func @codes
// CHECK: %[[LT:.*]] = arith.constant 2 : i32
// CHECK: call @amprt_compare(%{{.*}}, %[[LT]], %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: %[[NCHW:.*]] = arith.constant 1 : i32
// CHECK: call @amprt_bias_add(%{{.*}}, %{{.*}}, %{{.*}}, %[[NCHW]], %{{.*}})
// CHECK: call @amprt_silu(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @codes(%a: tensor<4xf32>, %b: tensor<4xf32>, %x: tensor<2x3x4x4xf32>, %bias: tensor<3xf32>) -> (tensor<4xi1>, tensor<2x3x4x4xf32>, tensor<4xf32>) {
  %c = tg.compare "lt", %a, %b : tensor<4xf32>
  %y = tg.bias_add %x, %bias {layout = "NCHW"} : tensor<2x3x4x4xf32>, tensor<3xf32>
  %s = tg.silu %a : tensor<4xf32>
  return %c, %y, %s : tensor<4xi1>, tensor<2x3x4x4xf32>, tensor<4xf32>
}

// SGD momentum passes its momentum, weight decay and Nesterov flag by value.
// CHECK-LABEL: func.func @momentum
// CHECK-DAG: %[[M:.*]] = arith.constant 9.000000e-01 : f64
// CHECK-DAG: %[[WD:.*]] = arith.constant 5.000000e-04 : f64
// CHECK: call @amprt_momentum_update(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[M]], %[[WD]], %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, f64, f64, i32, !llvm.ptr, !llvm.ptr) -> i32
func.func @momentum(%w: tensor<16xf32>, %g: tensor<16xf32>, %v: tensor<16xf32>, %lr: tensor<f32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %w2, %v2 = tg.momentum_update %w, %g, %v, %lr {momentum = 0.9 : f64, weight_decay = 5.0e-4 : f64, nesterov = true} : tensor<16xf32>
  return %w2, %v2 : tensor<16xf32>, tensor<16xf32>
}

// A causal softmax calls its own entry, with no axis.
// CHECK-LABEL: func.func @causal_softmax
// CHECK: call @amprt_causal_softmax(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-NOT: call @amprt_softmax(
// CHECK: return
func.func @causal_softmax(%s: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %p = tg.softmax %s {causal} : tensor<2x4x4xf32>
  return %p : tensor<2x4x4xf32>
}
