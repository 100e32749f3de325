// Values carried around scf.for get one colour: when a deny op feeds the
// loop-carried value, the carried ops in the body stay f32 and only the
// matmul itself runs in f16, between casts. When every side is allow, the
// carried value itself becomes f16.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @fed_by_deny
// CHECK: %[[E:.*]] = tg.exp
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[E]]) -> (tensor<32x32xf32>)
// CHECK:   %[[C:.*]] = amp.cast %[[ACC]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK:   %[[M:.*]] = tg.matmul %[[C]], %{{.*}} : tensor<32x32xf16>
// CHECK:   %[[B:.*]] = amp.cast %[[M]] : tensor<32x32xf16> to tensor<32x32xf32>
// CHECK:   %[[R:.*]] = tg.relu %[[B]] : tensor<32x32xf32>
// CHECK:   scf.yield %[[R]] : tensor<32x32xf32>
func.func @fed_by_deny(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tg.exp %x : tensor<32x32xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %e) -> (tensor<32x32xf32>) {
    %m = tg.matmul %acc, %w : tensor<32x32xf32>
    %n = tg.relu %m : tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  return %r : tensor<32x32xf32>
}

// CHECK-LABEL: func.func @all_allow
// CHECK: %[[M0:.*]] = tg.matmul {{.*}} : tensor<32x32xf16>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[M0]]) -> (tensor<32x32xf16>)
// CHECK:   %[[M:.*]] = tg.matmul %[[ACC]], %{{.*}} : tensor<32x32xf16>
// CHECK:   %[[R:.*]] = tg.relu %[[M]] : tensor<32x32xf16>
// CHECK:   scf.yield %[[R]] : tensor<32x32xf16>
// CHECK: tg.matmul {{.*}} : tensor<32x32xf16>
func.func @all_allow(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m0 = tg.matmul %x, %w : tensor<32x32xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %m0) -> (tensor<32x32xf32>) {
    %m = tg.matmul %acc, %w : tensor<32x32xf32>
    %n = tg.relu %m : tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  %o = tg.matmul %r, %w : tensor<32x32xf32>
  return %o : tensor<32x32xf32>
}

// scf.if results are carried values too.
// CHECK-LABEL: func.func @branches
// CHECK: scf.if %{{.*}} -> (tensor<32x32xf16>)
// CHECK:   tg.relu {{.*}} : tensor<32x32xf16>
// CHECK: } else {
// CHECK:   tg.neg {{.*}} : tensor<32x32xf16>
func.func @branches(%p: i1, %x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %m = tg.matmul %x, %w : tensor<32x32xf32>
  %r = scf.if %p -> (tensor<32x32xf32>) {
    %a = tg.relu %m : tensor<32x32xf32>
    scf.yield %a : tensor<32x32xf32>
  } else {
    %b = tg.neg %m : tensor<32x32xf32>
    scf.yield %b : tensor<32x32xf32>
  }
  %o = tg.matmul %r, %w : tensor<32x32xf32>
  return %o : tensor<32x32xf32>
}
