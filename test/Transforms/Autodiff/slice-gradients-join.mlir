// The gradients of slices that cover adjacent spans of one axis join as one
// tg.concat (padded to their joint span), where summing their zero pads
// would write the zeros and add them; other fan-outs of slices stay sums.
// RUN: amp-opt %s --tg-autodiff | FileCheck %s

// Three slices tiling the columns (q, k and v of one product): one concat
// of their gradients in column order, no pad and no add.
// CHECK-LABEL: func.func @tiling
// CHECK: tg.grad_seed
// CHECK-DAG: %[[GV:.*]] = tg.mul %{{.*}}, %arg3
// CHECK-DAG: %[[GK:.*]] = tg.mul %{{.*}}, %arg2
// CHECK-DAG: %[[GQ:.*]] = tg.mul %{{.*}}, %arg1
// CHECK: %[[J:.*]] = tg.concat %[[GQ]], %[[GK]], %[[GV]] {axis = 1 : i64}
// CHECK-NOT: tg.pad
// CHECK-NOT: tg.add
// CHECK: return %[[J]]
func.func @tiling(%x: tensor<4x12xf32>, %w0: tensor<4x4xf32>, %w1: tensor<4x4xf32>, %w2: tensor<4x4xf32>) -> tensor<4x12xf32> {
  %q = tg.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 4, 4>} : tensor<4x12xf32>
  %k = tg.slice %x {offsets = array<i64: 0, 4>, sizes = array<i64: 4, 4>} : tensor<4x12xf32>
  %v = tg.slice %x {offsets = array<i64: 0, 8>, sizes = array<i64: 4, 4>} : tensor<4x12xf32>
  %mq = tg.mul %q, %w0 : tensor<4x4xf32>, tensor<4x4xf32>
  %mk = tg.mul %k, %w1 : tensor<4x4xf32>, tensor<4x4xf32>
  %mv = tg.mul %v, %w2 : tensor<4x4xf32>, tensor<4x4xf32>
  %a = tg.add %mq, %mk : tensor<4x4xf32>, tensor<4x4xf32>
  %b = tg.add %a, %mv : tensor<4x4xf32>, tensor<4x4xf32>
  %l = tg.reduce_sum %b {dims = array<i64: 0, 1>} : tensor<4x4xf32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<4x12xf32>
  return %g : tensor<4x12xf32>
}

// Two adjacent row spans inside the value: their concat padded to the
// value's shape, one pad.
// CHECK-LABEL: func.func @adjacent_inside
// CHECK: %[[J:.*]] = tg.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : tensor<3x5xf32>, tensor<4x5xf32>
// CHECK: %[[P:.*]] = tg.pad %[[J]] {high = array<i64: 3, 0>, low = array<i64: 2, 0>} : tensor<7x5xf32>
// CHECK-NOT: tg.pad
// CHECK-NOT: tg.add
// CHECK: return %[[P]]
func.func @adjacent_inside(%x: tensor<12x5xf32>) -> tensor<12x5xf32> {
  %a = tg.slice %x {offsets = array<i64: 2, 0>, sizes = array<i64: 3, 5>} : tensor<12x5xf32>
  %b = tg.slice %x {offsets = array<i64: 5, 0>, sizes = array<i64: 4, 5>} : tensor<12x5xf32>
  %sa = tg.reduce_sum %a {dims = array<i64: 0, 1>} : tensor<3x5xf32>
  %sb = tg.reduce_sum %b {dims = array<i64: 0, 1>} : tensor<4x5xf32>
  %l = tg.add %sa, %sb : tensor<f32>, tensor<f32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<12x5xf32>
  return %g : tensor<12x5xf32>
}

// Spans with a gap between them, spans that overlap, and spans on two
// axes: their pads are summed.
// CHECK-LABEL: func.func @gap
// CHECK-NOT: tg.concat
// CHECK: tg.add {{.*}} : tensor<8x8xf32>
// CHECK-LABEL: func.func @overlap
// CHECK-NOT: tg.concat
// CHECK: tg.add {{.*}} : tensor<8x8xf32>
// CHECK-LABEL: func.func @two_axes
// CHECK-NOT: tg.concat
// CHECK: tg.add {{.*}} : tensor<8x8xf32>
func.func @gap(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a = tg.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 2>} : tensor<8x8xf32>
  %b = tg.slice %x {offsets = array<i64: 0, 3>, sizes = array<i64: 8, 2>} : tensor<8x8xf32>
  %sa = tg.reduce_sum %a {dims = array<i64: 0, 1>} : tensor<8x2xf32>
  %sb = tg.reduce_sum %b {dims = array<i64: 0, 1>} : tensor<8x2xf32>
  %l = tg.add %sa, %sb : tensor<f32>, tensor<f32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<8x8xf32>
  return %g : tensor<8x8xf32>
}
func.func @overlap(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a = tg.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 3>} : tensor<8x8xf32>
  %b = tg.slice %x {offsets = array<i64: 0, 2>, sizes = array<i64: 8, 3>} : tensor<8x8xf32>
  %sa = tg.reduce_sum %a {dims = array<i64: 0, 1>} : tensor<8x3xf32>
  %sb = tg.reduce_sum %b {dims = array<i64: 0, 1>} : tensor<8x3xf32>
  %l = tg.add %sa, %sb : tensor<f32>, tensor<f32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<8x8xf32>
  return %g : tensor<8x8xf32>
}
func.func @two_axes(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a = tg.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 4, 8>} : tensor<8x8xf32>
  %b = tg.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 4>} : tensor<8x8xf32>
  %sa = tg.reduce_sum %a {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  %sb = tg.reduce_sum %b {dims = array<i64: 0, 1>} : tensor<8x4xf32>
  %l = tg.add %sa, %sb : tensor<f32>, tensor<f32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<8x8xf32>
  return %g : tensor<8x8xf32>
}

// A slice beside a use of the whole value: the slice's pad is added to
// the other gradient.
// CHECK-LABEL: func.func @whole_and_slice
// CHECK: %[[P:.*]] = tg.pad {{.*}} : tensor<4x4xf32>
// CHECK: tg.add %{{.*}}, %[[P]] : tensor<4x8xf32>
// CHECK-NOT: tg.concat
func.func @whole_and_slice(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tg.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 4, 4>} : tensor<4x8xf32>
  %sa = tg.reduce_sum %a {dims = array<i64: 0, 1>} : tensor<4x4xf32>
  %m = tg.mul %x, %x : tensor<4x8xf32>, tensor<4x8xf32>
  %sm = tg.reduce_sum %m {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  %l = tg.add %sa, %sm : tensor<f32>, tensor<f32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}
