// tg.adam_update, tg.clip_by_global_norm, tg.grad_seed and tg.is_finite
// each lower to one amprt_ call: the context, the operand handles in operand
// order, the attributes (adam's beta1, beta2, epsilon, weight_decay as f64)
// in amprt.h's order, then the results' tensors in result order.
// The constants and arrays are matched with CHECK-DAG (their order is
// lower-argument-order.mlir's test).
// RUN: amp-opt %s --amp-lower-to-runtime="fuse-activation-epilogues=0 fuse-elementwise-chains=0" | FileCheck %s

// CHECK-LABEL: func.func @adam_update(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[W:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[G:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[M:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[STEP:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[LR:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[W2:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[M2:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[V2:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[B1:.*]] = arith.constant 8.000000e-01 : f64
// CHECK-DAG: %[[B2:.*]] = arith.constant 0.98999999999999999 : f64
// CHECK-DAG: %[[EPS:.*]] = arith.constant 9.9999999999999995E-7 : f64
// CHECK-DAG: %[[WD:.*]] = arith.constant 1.000000e-02 : f64
// CHECK: call @amprt_adam_update(%[[CTX]], %[[W]], %[[G]], %[[M]], %[[V]], %[[STEP]], %[[LR]], %[[B1]], %[[B2]], %[[EPS]], %[[WD]], %[[W2]], %[[M2]], %[[V2]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, f64, f64, f64, f64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @adam_update(%w: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>, %t: tensor<i64>, %lr: tensor<f32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %w2, %m2, %v2 = tg.adam_update %w, %g, %m, %v, %t, %lr {beta1 = 0.8 : f64, beta2 = 0.99 : f64, epsilon = 1.0e-06 : f64, weight_decay = 0.01 : f64} : tensor<4x8xf32>
  return %w2, %m2, %v2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// The variadic op passes its gradients and its results as arrays of handles
// on the stack, each checked element by element: amprt_clip_by_global_norm(
// ctx, grads, count (i32), max_norm (f64), clipped).
// CHECK-LABEL: func.func @clip_by_global_norm(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[G1:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[G2:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[C1:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[C2:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[MAXNORM:.*]] = arith.constant 2.500000e+00 : f64
// CHECK-DAG: %[[COUNT:.*]] = arith.constant 2 : i32
// CHECK-DAG: llvm.store %[[G1]], %[[IN0P:.*]] : !llvm.ptr, !llvm.ptr
// CHECK-DAG: %[[IN0P]] = llvm.getelementptr %[[INS:.*]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-DAG: llvm.store %[[G2]], %[[IN1P:.*]] : !llvm.ptr, !llvm.ptr
// CHECK-DAG: %[[IN1P]] = llvm.getelementptr %[[INS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-DAG: llvm.store %[[C1]], %[[OUT0P:.*]] : !llvm.ptr, !llvm.ptr
// CHECK-DAG: %[[OUT0P]] = llvm.getelementptr %[[OUTS:.*]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-DAG: llvm.store %[[C2]], %[[OUT1P:.*]] : !llvm.ptr, !llvm.ptr
// CHECK-DAG: %[[OUT1P]] = llvm.getelementptr %[[OUTS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: call @amprt_clip_by_global_norm(%[[CTX]], %[[INS]], %[[COUNT]], %[[MAXNORM]], %[[OUTS]]) : (!llvm.ptr, !llvm.ptr, i32, f64, !llvm.ptr) -> i32
func.func @clip_by_global_norm(%g1: tensor<4x8xf32>, %g2: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  %c1, %c2 = tg.clip_by_global_norm %g1, %g2 {max_norm = 2.5 : f64} : tensor<4x8xf32>, tensor<8xf32>
  return %c1, %c2 : tensor<4x8xf32>, tensor<8xf32>
}

// The seed only writes its result (ones shaped like the loss); the loss
// handle is not passed.
// CHECK-LABEL: func.func @grad_seed(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[LOSS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[SEED:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-NEXT: call @amprt_grad_seed(%[[CTX]], %[[SEED]]) : (!llvm.ptr, !llvm.ptr) -> i32
func.func @grad_seed(%l: tensor<f32>) -> tensor<f32> {
  %s = tg.grad_seed %l : tensor<f32>
  return %s : tensor<f32>
}

// CHECK-LABEL: func.func @is_finite(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-NEXT: call @amprt_is_finite(%[[CTX]], %[[X]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @is_finite(%x: tensor<4x8xf32>) -> tensor<4x8xi1> {
  %f = tg.is_finite %x : tensor<4x8xf32>
  return %f : tensor<4x8xi1>
}
