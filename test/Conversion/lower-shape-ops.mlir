// Shape ops and reductions lower to one amprt_ call each: the context, the
// operand handles in operand order, the attributes (i64 arrays on the stack,
// i32/i64/f64 scalars) in amprt.h's order, then the result tensor.
// The attribute constants and array stores between the result's
// amprt_tensor_new and the call are matched with CHECK-DAG (their order is
// lower-argument-order.mlir's test), each array by its
// element at each index; attribute values are chosen distinct so that each
// constant is matched once.
// RUN: amp-opt %s --amp-lower-to-runtime="fuse-activation-epilogues=0 fuse-elementwise-chains=0" | FileCheck %s

// CHECK-LABEL: func.func @broadcast_to(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: call @amprt_broadcast_to(%[[CTX]], %[[X]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @broadcast_to(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = tg.broadcast_to %x : tensor<8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// The inputs go in a stack array of handles, in order, with their count (3)
// and the axis (1).
// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[C:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[AXIS:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 3 : i32
// CHECK-DAG: llvm.store %[[A]], %[[P0:.*]] : !llvm.ptr, !llvm.ptr
// CHECK-DAG: %[[P0]] = llvm.getelementptr %[[XS:.*]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-DAG: llvm.store %[[B]], %[[P1:.*]] : !llvm.ptr, !llvm.ptr
// CHECK-DAG: %[[P1]] = llvm.getelementptr %[[XS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-DAG: llvm.store %[[C]], %[[P2:.*]] : !llvm.ptr, !llvm.ptr
// CHECK-DAG: %[[P2]] = llvm.getelementptr %[[XS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: call @amprt_concat(%[[CTX]], %[[XS]], %[[N]], %[[AXIS]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, i32, i64, !llvm.ptr) -> i32
func.func @concat(%a: tensor<4x8xf32>, %b: tensor<4x3xf32>, %c: tensor<4x5xf32>) -> tensor<4x16xf32> {
  %y = tg.concat %a, %b, %c {axis = 1 : i64} : tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x5xf32>
  return %y : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @gather(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[TABLE:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[IDS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK: call @amprt_gather(%[[CTX]], %[[TABLE]], %[[IDS]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @gather(%table: tensor<16x8xf32>, %ids: tensor<4x2xi32>) -> tensor<4x2x8xf32> {
  %y = tg.gather %table, %ids : tensor<16x8xf32>, tensor<4x2xi32>
  return %y : tensor<4x2x8xf32>
}

// num_rows reaches the runtime through the result's shape (16x8), not as
// an argument.
// CHECK-LABEL: func.func @gather_grad(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[D:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[IDS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[SHAPE:.*]] = llvm.alloca %{{.*}} x i64
// CHECK-NEXT: llvm.getelementptr %[[SHAPE]][0]
// CHECK-NEXT: arith.constant 16 : i64
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]], %{{.*}}, %{{.*}}, %[[SHAPE]])
// CHECK: call @amprt_gather_grad(%[[CTX]], %[[D]], %[[IDS]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @gather_grad(%d: tensor<4x2x8xf32>, %ids: tensor<4x2xi32>) -> tensor<16x8xf32> {
  %y = tg.gather_grad %d, %ids {num_rows = 16 : i64} : tensor<4x2x8xf32>, tensor<4x2xi32>
  return %y : tensor<16x8xf32>
}

// amprt_pad(ctx, x, low, high, value, out).
// CHECK-LABEL: func.func @pad(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[VALUE:.*]] = arith.constant -1.500000e+00 : f64
// CHECK-DAG: %[[LO0V:.*]] = arith.constant 0 : i64
// CHECK-DAG: llvm.store %[[LO0V]], %[[LO0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[LO0P]] = llvm.getelementptr %[[LO:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[LO1V:.*]] = arith.constant 1 : i64
// CHECK-DAG: llvm.store %[[LO1V]], %[[LO1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[LO1P]] = llvm.getelementptr %[[LO]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[HI0V:.*]] = arith.constant 3 : i64
// CHECK-DAG: llvm.store %[[HI0V]], %[[HI0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[HI0P]] = llvm.getelementptr %[[HI:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[HI1V:.*]] = arith.constant 4 : i64
// CHECK-DAG: llvm.store %[[HI1V]], %[[HI1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[HI1P]] = llvm.getelementptr %[[HI]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: call @amprt_pad(%[[CTX]], %[[X]], %[[LO]], %[[HI]], %[[VALUE]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, f64, !llvm.ptr) -> i32
func.func @pad(%x: tensor<8x16xf32>) -> tensor<11x21xf32> {
  %y = tg.pad %x {low = array<i64: 0, 1>, high = array<i64: 3, 4>, value = -1.5 : f64} : tensor<8x16xf32>
  return %y : tensor<11x21xf32>
}

// amprt_slice(ctx, x, offsets, strides, out): the sizes are the result's
// shape.
// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[OFF0V:.*]] = arith.constant 0 : i64
// CHECK-DAG: llvm.store %[[OFF0V]], %[[OFF0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[OFF0P]] = llvm.getelementptr %[[OFF:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[OFF1V:.*]] = arith.constant 4 : i64
// CHECK-DAG: llvm.store %[[OFF1V]], %[[OFF1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[OFF1P]] = llvm.getelementptr %[[OFF]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[STR0V:.*]] = arith.constant 1 : i64
// CHECK-DAG: llvm.store %[[STR0V]], %[[STR0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR0P]] = llvm.getelementptr %[[STR:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[STR1V:.*]] = arith.constant 3 : i64
// CHECK-DAG: llvm.store %[[STR1V]], %[[STR1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[STR1P]] = llvm.getelementptr %[[STR]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: call @amprt_slice(%[[CTX]], %[[X]], %[[OFF]], %[[STR]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @slice(%x: tensor<8x16xf32>) -> tensor<8x4xf32> {
  %y = tg.slice %x {offsets = array<i64: 0, 4>, sizes = array<i64: 8, 4>, strides = array<i64: 1, 3>} : tensor<8x16xf32>
  return %y : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[PERM0V:.*]] = arith.constant 2 : i64
// CHECK-DAG: llvm.store %[[PERM0V]], %[[PERM0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PERM0P]] = llvm.getelementptr %[[PERM:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PERM1V:.*]] = arith.constant 0 : i64
// CHECK-DAG: llvm.store %[[PERM1V]], %[[PERM1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PERM1P]] = llvm.getelementptr %[[PERM]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[PERM2V:.*]] = arith.constant 1 : i64
// CHECK-DAG: llvm.store %[[PERM2V]], %[[PERM2P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[PERM2P]] = llvm.getelementptr %[[PERM]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: call @amprt_transpose(%[[CTX]], %[[X]], %[[PERM]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %y = tg.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32>
  return %y : tensor<4x2x3xf32>
}

// Reductions: amprt_reduce_*(ctx, x, dims, number of dims, out).
// CHECK-LABEL: func.func @reduce_max(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[N:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[DIMS0V:.*]] = arith.constant 0 : i64
// CHECK-DAG: llvm.store %[[DIMS0V]], %[[DIMS0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[DIMS0P]] = llvm.getelementptr %[[DIMS:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: call @amprt_reduce_max(%[[CTX]], %[[X]], %[[DIMS]], %[[N]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr) -> i32
func.func @reduce_max(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %y = tg.reduce_max %x {dims = array<i64: 0>} : tensor<4x8xf32>
  return %y : tensor<8xf32>
}

// keepdims shows in the result's shape (1x1x8), not as an argument.
// CHECK-LABEL: func.func @reduce_mean(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%[[CTX]],
// CHECK-DAG: %[[N:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[DIMS0V:.*]] = arith.constant 1 : i64
// CHECK-DAG: llvm.store %[[DIMS0V]], %[[DIMS0P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[DIMS0P]] = llvm.getelementptr %[[DIMS:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG: %[[DIMS1V:.*]] = arith.constant 0 : i64
// CHECK-DAG: llvm.store %[[DIMS1V]], %[[DIMS1P:.*]] : i64, !llvm.ptr
// CHECK-DAG: %[[DIMS1P]] = llvm.getelementptr %[[DIMS]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: call @amprt_reduce_mean(%[[CTX]], %[[X]], %[[DIMS]], %[[N]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr) -> i32
func.func @reduce_mean(%x: tensor<2x4x8xf32>) -> tensor<1x1x8xf32> {
  %y = tg.reduce_mean %x {dims = array<i64: 1, 0>, keepdims = true} : tensor<2x4x8xf32>
  return %y : tensor<1x1x8xf32>
}
