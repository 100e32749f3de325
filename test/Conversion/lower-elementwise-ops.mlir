// Each unary and binary arithmetic tg op, and each activation gradient,
// lowers to its own amprt_ entry (amprt.h), called with the context, the
// operands' handles in operand order (leaky_relu_grad's f64 alpha after
// them) and then the result tensor that amprt_tensor_new made for it.
// Fusions are off so that no op is folded into a chain or an epilogue.
// RUN: amp-opt %s --amp-lower-to-runtime="fuse-activation-epilogues=0 fuse-elementwise-chains=0" | FileCheck %s

// CHECK-LABEL: func.func @abs(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[ST:.*]] = call @amprt_abs(%[[CTX]], %[[X]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: call @amprt_record_status(%[[CTX]], %[[ST]])
func.func @abs(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tg.abs %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @log(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[ST:.*]] = call @amprt_log(%[[CTX]], %[[X]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: call @amprt_record_status(%[[CTX]], %[[ST]])
func.func @log(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tg.log %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @sqrt(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[ST:.*]] = call @amprt_sqrt(%[[CTX]], %[[X]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: call @amprt_record_status(%[[CTX]], %[[ST]])
func.func @sqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tg.sqrt %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @rsqrt(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[ST:.*]] = call @amprt_rsqrt(%[[CTX]], %[[X]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: call @amprt_record_status(%[[CTX]], %[[ST]])
func.func @rsqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tg.rsqrt %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @square(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[ST:.*]] = call @amprt_square(%[[CTX]], %[[X]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: call @amprt_record_status(%[[CTX]], %[[ST]])
func.func @square(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tg.square %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @reciprocal(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[ST:.*]] = call @amprt_reciprocal(%[[CTX]], %[[X]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: call @amprt_record_status(%[[CTX]], %[[ST]])
func.func @reciprocal(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tg.reciprocal %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// Binary ops broadcast their second operand (tensor<8xf32>) over the first:
// the handles must reach the runtime as (a, b), not (b, a).

// CHECK-LABEL: func.func @div(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[ST:.*]] = call @amprt_div(%[[CTX]], %[[A]], %[[B]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: call @amprt_record_status(%[[CTX]], %[[ST]])
func.func @div(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = tg.div %a, %b : tensor<4x8xf32>, tensor<8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @pow(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[ST:.*]] = call @amprt_pow(%[[CTX]], %[[A]], %[[B]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: call @amprt_record_status(%[[CTX]], %[[ST]])
func.func @pow(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = tg.pow %a, %b : tensor<4x8xf32>, tensor<8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @maximum(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[ST:.*]] = call @amprt_maximum(%[[CTX]], %[[A]], %[[B]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: call @amprt_record_status(%[[CTX]], %[[ST]])
func.func @maximum(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = tg.maximum %a, %b : tensor<4x8xf32>, tensor<8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @minimum(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[ST:.*]] = call @amprt_minimum(%[[CTX]], %[[A]], %[[B]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: call @amprt_record_status(%[[CTX]], %[[ST]])
func.func @minimum(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = tg.minimum %a, %b : tensor<4x8xf32>, tensor<8xf32>
  return %y : tensor<4x8xf32>
}

// Activation gradients take (dy, saved): tanh and sigmoid the forward
// result y, leaky_relu the forward input x; the handles must reach the
// runtime as (dy, saved), not swapped.

// CHECK-LABEL: func.func @tanh_grad(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[DY:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[Y:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DX:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[ST:.*]] = call @amprt_tanh_grad(%[[CTX]], %[[DY]], %[[Y]], %[[DX]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: call @amprt_record_status(%[[CTX]], %[[ST]])
func.func @tanh_grad(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %dx = tg.tanh_grad %dy, %y : tensor<4x8xf32>
  return %dx : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @sigmoid_grad(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[DY:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[Y:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DX:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[ST:.*]] = call @amprt_sigmoid_grad(%[[CTX]], %[[DY]], %[[Y]], %[[DX]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: call @amprt_record_status(%[[CTX]], %[[ST]])
func.func @sigmoid_grad(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %dx = tg.sigmoid_grad %dy, %y : tensor<4x8xf32>
  return %dx : tensor<4x8xf32>
}

// amprt_leaky_relu_grad(ctx, dy, x, alpha, dx).
// CHECK-LABEL: func.func @leaky_relu_grad(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[DY:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DX:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-NEXT: %[[ALPHA:.*]] = arith.constant 2.500000e-01 : f64
// CHECK-NEXT: %[[ST:.*]] = call @amprt_leaky_relu_grad(%[[CTX]], %[[DY]], %[[X]], %[[ALPHA]], %[[DX]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, f64, !llvm.ptr) -> i32
// CHECK: call @amprt_record_status(%[[CTX]], %[[ST]])
func.func @leaky_relu_grad(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %dx = tg.leaky_relu_grad %dy, %x {alpha = 0.25 : f64} : tensor<4x8xf32>
  return %dx : tensor<4x8xf32>
}
