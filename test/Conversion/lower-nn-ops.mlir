// Normalization, pooling and their gradients, convolution gradients,
// softmax/log_softmax and their gradients and softmax cross-entropy and its
// gradient each lower to one amprt_ call: the context, the operand handles
// in operand order, the attributes in amprt.h's order (i64 arrays on the
// stack, f64 epsilon, i32 layout code AMPRT_NHWC = 0 / AMPRT_NCHW = 1, i64
// axis), then the results' tensors in result order.
// The attribute constants and array stores between the last
// amprt_tensor_new and the call are matched with CHECK-DAG (their order is
// lower-argument-order.mlir's test), each array by its element at each
// index; attribute values are chosen distinct so that each constant is
// matched once.
// RUN: amp-opt %s --amp-lower-to-runtime="fuse-activation-epilogues=0 fuse-elementwise-chains=0" | FileCheck %s

// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[SCALE:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OFFSET:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[Y:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[MEAN:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[INVSTD:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[EPS:.*]] = arith.constant 1.000000e-03 : f64
// CHECK-DAG: %[[NCHW:.*]] = arith.constant 1 : i32
// CHECK: call @amprt_batch_norm(%[[CTX]], %[[X]], %[[SCALE]], %[[OFFSET]], %[[EPS]], %[[NCHW]], %[[Y]], %[[MEAN]], %[[INVSTD]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, f64, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @batch_norm(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %m, %i = tg.batch_norm %x, %s, %o {epsilon = 1.0e-03 : f64, layout = "NCHW"} : tensor<2x3x4x4xf32>, tensor<3xf32>
  return %y, %m, %i : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// The gradient takes the saved inv_std, not epsilon.
// CHECK-LABEL: func.func @batch_norm_grad(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[DY:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[SCALE:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[MEAN:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[INVSTD:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DX:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[DSCALE:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[DOFFSET:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-NEXT: %[[NHWC:.*]] = arith.constant 0 : i32
// CHECK-NEXT: call @amprt_batch_norm_grad(%[[CTX]], %[[DY]], %[[X]], %[[SCALE]], %[[MEAN]], %[[INVSTD]], %[[NHWC]], %[[DX]], %[[DSCALE]], %[[DOFFSET]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @batch_norm_grad(%dy: tensor<2x4x4x3xf32>, %x: tensor<2x4x4x3xf32>, %s: tensor<3xf32>, %m: tensor<3xf32>, %i: tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %dx, %ds, %do = tg.batch_norm_grad %dy, %x, %s, %m, %i : tensor<2x4x4x3xf32>, tensor<3xf32>
  return %dx, %ds, %do : tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[GAMMA:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[BETA:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[Y:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[MEAN:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[INVSTD:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-NEXT: %[[EPS:.*]] = arith.constant 1.000000e-02 : f64
// CHECK-NEXT: call @amprt_layer_norm(%[[CTX]], %[[X]], %[[GAMMA]], %[[BETA]], %[[EPS]], %[[Y]], %[[MEAN]], %[[INVSTD]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, f64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @layer_norm(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %y, %m, %i = tg.layer_norm %x, %g, %b {epsilon = 1.0e-02 : f64} : tensor<2x4x8xf32>, tensor<8xf32>
  return %y, %m, %i : tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// CHECK-LABEL: func.func @layer_norm_grad(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[DY:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[GAMMA:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[MEAN:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[INVSTD:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DX:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[DGAMMA:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: %[[DBETA:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-NEXT: call @amprt_layer_norm_grad(%[[CTX]], %[[DY]], %[[X]], %[[GAMMA]], %[[MEAN]], %[[INVSTD]], %[[DX]], %[[DGAMMA]], %[[DBETA]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @layer_norm_grad(%dy: tensor<2x4x8xf32>, %x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %m: tensor<2x4xf32>, %i: tensor<2x4xf32>) -> (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %dx, %dg, %db = tg.layer_norm_grad %dy, %x, %g, %m, %i : tensor<2x4x8xf32>, tensor<8xf32>, tensor<2x4xf32>
  return %dx, %dg, %db : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// amprt_max_pool2d(ctx, x, window, strides, padding, layout, y).
// CHECK-LABEL: func.func @max_pool2d(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[Y:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[NCHW:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[WIN0V:.*]] = arith.constant 9 : i64
// CHECK-DAG: llvm.store %[[WIN0V]], %[[WIN0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[WIN0P]] = llvm.getelementptr %[[WIN:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[WIN1V:.*]] = arith.constant 8 : i64
// CHECK-DAG: llvm.store %[[WIN1V]], %[[WIN1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[WIN1P]] = llvm.getelementptr %[[WIN]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[STR0V:.*]] = arith.constant 6 : i64
// CHECK-DAG: llvm.store %[[STR0V]], %[[STR0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR0P]] = llvm.getelementptr %[[STR:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[STR1V:.*]] = arith.constant 7 : i64
// CHECK-DAG: llvm.store %[[STR1V]], %[[STR1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR1P]] = llvm.getelementptr %[[STR]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD0V:.*]] = arith.constant 0 : i64
// CHECK-DAG: llvm.store %[[PAD0V]], %[[PAD0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD0P]] = llvm.getelementptr %[[PAD:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD1V:.*]] = arith.constant 1 : i64
// CHECK-DAG: llvm.store %[[PAD1V]], %[[PAD1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD1P]] = llvm.getelementptr %[[PAD]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD2V:.*]] = arith.constant 3 : i64
// CHECK-DAG: llvm.store %[[PAD2V]], %[[PAD2P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD2P]] = llvm.getelementptr %[[PAD]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD3V:.*]] = arith.constant 5 : i64
// CHECK-DAG: llvm.store %[[PAD3V]], %[[PAD3P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD3P]] = llvm.getelementptr %[[PAD]][3] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: call @amprt_max_pool2d(%[[CTX]], %[[X]], %[[WIN]], %[[STR]], %[[PAD]], %[[NCHW]], %[[Y]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr) -> i32
func.func @max_pool2d(%x: tensor<1x3x20x21xf32>) -> tensor<1x3x3x4xf32> {
  %y = tg.max_pool2d %x {window = array<i64: 9, 8>, strides = array<i64: 6, 7>, padding = array<i64: 0, 1, 3, 5>, layout = "NCHW"} : tensor<1x3x20x21xf32>
  return %y : tensor<1x3x3x4xf32>
}

// The layout defaults to NHWC.
// amprt_avg_pool2d(ctx, x, window, strides, padding, layout, y).
// CHECK-LABEL: func.func @avg_pool2d(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[Y:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[NHWC:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[WIN0V:.*]] = arith.constant 9 : i64
// CHECK-DAG: llvm.store %[[WIN0V]], %[[WIN0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[WIN0P]] = llvm.getelementptr %[[WIN:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[WIN1V:.*]] = arith.constant 8 : i64
// CHECK-DAG: llvm.store %[[WIN1V]], %[[WIN1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[WIN1P]] = llvm.getelementptr %[[WIN]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[STR0V:.*]] = arith.constant 6 : i64
// CHECK-DAG: llvm.store %[[STR0V]], %[[STR0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR0P]] = llvm.getelementptr %[[STR:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[STR1V:.*]] = arith.constant 7 : i64
// CHECK-DAG: llvm.store %[[STR1V]], %[[STR1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR1P]] = llvm.getelementptr %[[STR]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD0V:.*]] = arith.constant 0 : i64
// CHECK-DAG: llvm.store %[[PAD0V]], %[[PAD0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD0P]] = llvm.getelementptr %[[PAD:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD1V:.*]] = arith.constant 1 : i64
// CHECK-DAG: llvm.store %[[PAD1V]], %[[PAD1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD1P]] = llvm.getelementptr %[[PAD]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD2V:.*]] = arith.constant 3 : i64
// CHECK-DAG: llvm.store %[[PAD2V]], %[[PAD2P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD2P]] = llvm.getelementptr %[[PAD]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD3V:.*]] = arith.constant 5 : i64
// CHECK-DAG: llvm.store %[[PAD3V]], %[[PAD3P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD3P]] = llvm.getelementptr %[[PAD]][3] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: call @amprt_avg_pool2d(%[[CTX]], %[[X]], %[[WIN]], %[[STR]], %[[PAD]], %[[NHWC]], %[[Y]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr) -> i32
func.func @avg_pool2d(%x: tensor<1x20x21x3xf32>) -> tensor<1x3x4x3xf32> {
  %y = tg.avg_pool2d %x {window = array<i64: 9, 8>, strides = array<i64: 6, 7>, padding = array<i64: 0, 1, 3, 5>} : tensor<1x20x21x3xf32>
  return %y : tensor<1x3x4x3xf32>
}

// amprt_max_pool2d_grad(ctx, dy, x, y, window, strides, padding, layout, dx).
// CHECK-LABEL: func.func @max_pool2d_grad(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[DY:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[Y:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DX:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[NCHW:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[WIN0V:.*]] = arith.constant 9 : i64
// CHECK-DAG: llvm.store %[[WIN0V]], %[[WIN0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[WIN0P]] = llvm.getelementptr %[[WIN:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[WIN1V:.*]] = arith.constant 8 : i64
// CHECK-DAG: llvm.store %[[WIN1V]], %[[WIN1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[WIN1P]] = llvm.getelementptr %[[WIN]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[STR0V:.*]] = arith.constant 6 : i64
// CHECK-DAG: llvm.store %[[STR0V]], %[[STR0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR0P]] = llvm.getelementptr %[[STR:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[STR1V:.*]] = arith.constant 7 : i64
// CHECK-DAG: llvm.store %[[STR1V]], %[[STR1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR1P]] = llvm.getelementptr %[[STR]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD0V:.*]] = arith.constant 0 : i64
// CHECK-DAG: llvm.store %[[PAD0V]], %[[PAD0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD0P]] = llvm.getelementptr %[[PAD:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD1V:.*]] = arith.constant 1 : i64
// CHECK-DAG: llvm.store %[[PAD1V]], %[[PAD1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD1P]] = llvm.getelementptr %[[PAD]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD2V:.*]] = arith.constant 3 : i64
// CHECK-DAG: llvm.store %[[PAD2V]], %[[PAD2P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD2P]] = llvm.getelementptr %[[PAD]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD3V:.*]] = arith.constant 5 : i64
// CHECK-DAG: llvm.store %[[PAD3V]], %[[PAD3P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD3P]] = llvm.getelementptr %[[PAD]][3] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: call @amprt_max_pool2d_grad(%[[CTX]], %[[DY]], %[[X]], %[[Y]], %[[WIN]], %[[STR]], %[[PAD]], %[[NCHW]], %[[DX]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr) -> i32
func.func @max_pool2d_grad(%dy: tensor<1x3x3x4xf32>, %x: tensor<1x3x20x21xf32>, %y: tensor<1x3x3x4xf32>) -> tensor<1x3x20x21xf32> {
  %dx = tg.max_pool2d_grad %dy, %x, %y {window = array<i64: 9, 8>, strides = array<i64: 6, 7>, padding = array<i64: 0, 1, 3, 5>, layout = "NCHW"} : tensor<1x3x3x4xf32>, tensor<1x3x20x21xf32>
  return %dx : tensor<1x3x20x21xf32>
}

// amprt_avg_pool2d_grad(ctx, dy, window, strides, padding, layout, dx).
// CHECK-LABEL: func.func @avg_pool2d_grad(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[DY:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DX:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[NHWC:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[WIN0V:.*]] = arith.constant 9 : i64
// CHECK-DAG: llvm.store %[[WIN0V]], %[[WIN0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[WIN0P]] = llvm.getelementptr %[[WIN:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[WIN1V:.*]] = arith.constant 8 : i64
// CHECK-DAG: llvm.store %[[WIN1V]], %[[WIN1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[WIN1P]] = llvm.getelementptr %[[WIN]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[STR0V:.*]] = arith.constant 6 : i64
// CHECK-DAG: llvm.store %[[STR0V]], %[[STR0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR0P]] = llvm.getelementptr %[[STR:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[STR1V:.*]] = arith.constant 7 : i64
// CHECK-DAG: llvm.store %[[STR1V]], %[[STR1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR1P]] = llvm.getelementptr %[[STR]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD0V:.*]] = arith.constant 0 : i64
// CHECK-DAG: llvm.store %[[PAD0V]], %[[PAD0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD0P]] = llvm.getelementptr %[[PAD:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD1V:.*]] = arith.constant 1 : i64
// CHECK-DAG: llvm.store %[[PAD1V]], %[[PAD1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD1P]] = llvm.getelementptr %[[PAD]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD2V:.*]] = arith.constant 3 : i64
// CHECK-DAG: llvm.store %[[PAD2V]], %[[PAD2P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD2P]] = llvm.getelementptr %[[PAD]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD3V:.*]] = arith.constant 5 : i64
// CHECK-DAG: llvm.store %[[PAD3V]], %[[PAD3P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD3P]] = llvm.getelementptr %[[PAD]][3] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: call @amprt_avg_pool2d_grad(%[[CTX]], %[[DY]], %[[WIN]], %[[STR]], %[[PAD]], %[[NHWC]], %[[DX]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr) -> i32
func.func @avg_pool2d_grad(%dy: tensor<1x3x4x3xf32>) -> tensor<1x20x21x3xf32> {
  %dx = tg.avg_pool2d_grad %dy {window = array<i64: 9, 8>, strides = array<i64: 6, 7>, padding = array<i64: 0, 1, 3, 5>} : tensor<1x3x4x3xf32> -> tensor<1x20x21x3xf32>
  return %dx : tensor<1x20x21x3xf32>
}

// amprt_conv2d_backward_input(ctx, dy, w, strides, padding, dilations,
// layout, dx).
// CHECK-LABEL: func.func @conv2d_backward_input(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[DY:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[W:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DX:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[NHWC:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[STR0V:.*]] = arith.constant 3 : i64
// CHECK-DAG: llvm.store %[[STR0V]], %[[STR0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR0P]] = llvm.getelementptr %[[STR:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[STR1V:.*]] = arith.constant 5 : i64
// CHECK-DAG: llvm.store %[[STR1V]], %[[STR1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR1P]] = llvm.getelementptr %[[STR]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD0V:.*]] = arith.constant 0 : i64
// CHECK-DAG: llvm.store %[[PAD0V]], %[[PAD0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD0P]] = llvm.getelementptr %[[PAD:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD1V:.*]] = arith.constant 1 : i64
// CHECK-DAG: llvm.store %[[PAD1V]], %[[PAD1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD1P]] = llvm.getelementptr %[[PAD]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD2V:.*]] = arith.constant 8 : i64
// CHECK-DAG: llvm.store %[[PAD2V]], %[[PAD2P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD2P]] = llvm.getelementptr %[[PAD]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD3V:.*]] = arith.constant 9 : i64
// CHECK-DAG: llvm.store %[[PAD3V]], %[[PAD3P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD3P]] = llvm.getelementptr %[[PAD]][3] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[DIL0V:.*]] = arith.constant 6 : i64
// CHECK-DAG: llvm.store %[[DIL0V]], %[[DIL0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[DIL0P]] = llvm.getelementptr %[[DIL:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[DIL1V:.*]] = arith.constant 7 : i64
// CHECK-DAG: llvm.store %[[DIL1V]], %[[DIL1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[DIL1P]] = llvm.getelementptr %[[DIL]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: call @amprt_conv2d_backward_input(%[[CTX]], %[[DY]], %[[W]], %[[STR]], %[[PAD]], %[[DIL]], %[[NHWC]], %[[DX]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr) -> i32
func.func @conv2d_backward_input(%dy: tensor<1x2x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x16x16x3xf32> {
  %dx = tg.conv2d_backward_input %dy, %w {strides = array<i64: 3, 5>, padding = array<i64: 0, 1, 8, 9>, dilations = array<i64: 6, 7>} : tensor<1x2x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<1x16x16x3xf32>
  return %dx : tensor<1x16x16x3xf32>
}

// amprt_conv2d_backward_filter(ctx, x, dy, strides, padding, dilations,
// layout, dw).
// CHECK-LABEL: func.func @conv2d_backward_filter(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DY:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DW:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[NHWC:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[STR0V:.*]] = arith.constant 3 : i64
// CHECK-DAG: llvm.store %[[STR0V]], %[[STR0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR0P]] = llvm.getelementptr %[[STR:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[STR1V:.*]] = arith.constant 5 : i64
// CHECK-DAG: llvm.store %[[STR1V]], %[[STR1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR1P]] = llvm.getelementptr %[[STR]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD0V:.*]] = arith.constant 0 : i64
// CHECK-DAG: llvm.store %[[PAD0V]], %[[PAD0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD0P]] = llvm.getelementptr %[[PAD:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD1V:.*]] = arith.constant 1 : i64
// CHECK-DAG: llvm.store %[[PAD1V]], %[[PAD1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD1P]] = llvm.getelementptr %[[PAD]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD2V:.*]] = arith.constant 8 : i64
// CHECK-DAG: llvm.store %[[PAD2V]], %[[PAD2P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD2P]] = llvm.getelementptr %[[PAD]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PAD3V:.*]] = arith.constant 9 : i64
// CHECK-DAG: llvm.store %[[PAD3V]], %[[PAD3P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PAD3P]] = llvm.getelementptr %[[PAD]][3] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[DIL0V:.*]] = arith.constant 6 : i64
// CHECK-DAG: llvm.store %[[DIL0V]], %[[DIL0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[DIL0P]] = llvm.getelementptr %[[DIL:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[DIL1V:.*]] = arith.constant 7 : i64
// CHECK-DAG: llvm.store %[[DIL1V]], %[[DIL1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[DIL1P]] = llvm.getelementptr %[[DIL]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: call @amprt_conv2d_backward_filter(%[[CTX]], %[[X]], %[[DY]], %[[STR]], %[[PAD]], %[[DIL]], %[[NHWC]], %[[DW]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr) -> i32
func.func @conv2d_backward_filter(%x: tensor<1x16x16x3xf32>, %dy: tensor<1x2x4x4xf32>) -> tensor<4x3x3x3xf32> {
  %dw = tg.conv2d_backward_filter %x, %dy {strides = array<i64: 3, 5>, padding = array<i64: 0, 1, 8, 9>, dilations = array<i64: 6, 7>} : tensor<1x16x16x3xf32>, tensor<1x2x4x4xf32> -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// CHECK-LABEL: func.func @log_softmax(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[Y:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-NEXT: %[[AXIS:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @amprt_log_softmax(%[[CTX]], %[[X]], %[[AXIS]], %[[Y]]) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32
func.func @log_softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tg.log_softmax %x {axis = 0 : i64} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @softmax_grad(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[DY:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[Y:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DX:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-NEXT: %[[AXIS:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @amprt_softmax_grad(%[[CTX]], %[[DY]], %[[Y]], %[[AXIS]], %[[DX]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32
func.func @softmax_grad(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %dx = tg.softmax_grad %dy, %y {axis = 0 : i64} : tensor<4x8xf32>
  return %dx : tensor<4x8xf32>
}

// The axis defaults to -1.
// CHECK-LABEL: func.func @log_softmax_grad(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[DY:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[Y:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DX:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-NEXT: %[[AXIS:.*]] = arith.constant -1 : i64
// CHECK-NEXT: call @amprt_log_softmax_grad(%[[CTX]], %[[DY]], %[[Y]], %[[AXIS]], %[[DX]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32
func.func @log_softmax_grad(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %dx = tg.log_softmax_grad %dy, %y : tensor<4x8xf32>
  return %dx : tensor<4x8xf32>
}

// amprt_softmax_cross_entropy(ctx, logits, labels, loss): no attributes.
// CHECK-LABEL: func.func @softmax_cross_entropy(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[LOGITS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[LABELS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[LOSS:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-NEXT: call @amprt_softmax_cross_entropy(%[[CTX]], %[[LOGITS]], %[[LABELS]], %[[LOSS]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @softmax_cross_entropy(%l: tensor<4x10xf32>, %y: tensor<4xi32>) -> tensor<4xf32> {
  %c = tg.softmax_cross_entropy %l, %y : tensor<4x10xf32>, tensor<4xi32>
  return %c : tensor<4xf32>
}

// CHECK-LABEL: func.func @softmax_cross_entropy_grad(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[DLOSS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[LOGITS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[LABELS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DX:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-NEXT: call @amprt_softmax_cross_entropy_grad(%[[CTX]], %[[DLOSS]], %[[LOGITS]], %[[LABELS]], %[[DX]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @softmax_cross_entropy_grad(%d: tensor<4xf32>, %l: tensor<4x10xf32>, %y: tensor<4xi32>) -> tensor<4x10xf32> {
  %g = tg.softmax_cross_entropy_grad %d, %l, %y : tensor<4xf32>, tensor<4x10xf32>, tensor<4xi32>
  return %g : tensor<4x10xf32>
}
