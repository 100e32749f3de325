// A runtime call's arguments are built in the order they are written (the
// lowering passes them as a braced list, which C++ evaluates left to
// right), so the IR is the same whichever compiler built amp: amprt_pad's
// low array, then its high array, then its value, then the call, and
// amprt_tensor_new's code and rank before its shape.
// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s

// CHECK-LABEL: func.func @pad(
// CHECK: %[[CODE:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[RANK:.*]] = arith.constant 2 : i32
// CHECK: %[[SHAPE:.*]] = llvm.alloca
// CHECK: %[[OUT:.*]] = call @amprt_tensor_new(%{{.*}}, %[[CODE]], %[[RANK]], %[[SHAPE]])
// CHECK: %[[LOW:.*]] = llvm.alloca
// CHECK: arith.constant 1 : i64
// CHECK: arith.constant 2 : i64
// CHECK: %[[HIGH:.*]] = llvm.alloca
// CHECK: arith.constant 3 : i64
// CHECK: arith.constant 4 : i64
// CHECK: %[[VALUE:.*]] = arith.constant 7.500000e+00 : f64
// CHECK-NEXT: call @amprt_pad(%{{.*}}, %{{.*}}, %[[LOW]], %[[HIGH]], %[[VALUE]], %[[OUT]])
func.func @pad(%x: tensor<2x3xf32> {tg.role = "input"}) -> tensor<6x9xf32> {
  %y = tg.pad %x {low = array<i64: 1, 2>, high = array<i64: 3, 4>, value = 7.5 : f64} : tensor<2x3xf32>
  return %y : tensor<6x9xf32>
}
