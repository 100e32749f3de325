// Values carried by loops and branches are coloured like clear ops, as
// TensorFlow paints loop-carried values: a carried value next to allow ops
// becomes low precision whatever feeds the loop from outside, so the casts
// land outside the loop and run once, not on every iteration. A carried
// value next to deny ops stays f32.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s

// The issue's loop: the init comes from an argument and the result is
// returned. One cast before the loop, one after it, none inside.
// CHECK-LABEL: func.func @init_from_argument
// CHECK-SAME: (%[[X:.*]]: tensor<32x32xf32>, %[[W:.*]]: tensor<32x32xf32>)
// CHECK-DAG: %[[WH:.*]] = amp.cast %[[W]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK-DAG: %[[XH:.*]] = amp.cast %[[X]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[XH]]) -> (tensor<32x32xf16>)
// CHECK-NOT: amp.cast
// CHECK:   %[[M:.*]] = tg.matmul %[[ACC]], %[[WH]] : tensor<32x32xf16>
// CHECK:   %[[N:.*]] = tg.relu %[[M]] : tensor<32x32xf16>
// CHECK:   scf.yield %[[N]] : tensor<32x32xf16>
// CHECK: }
// CHECK: %[[RF:.*]] = amp.cast %[[R]] : tensor<32x32xf16> to tensor<32x32xf32>
// CHECK: return %[[RF]]
func.func @init_from_argument(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<32x32xf32>) {
    %m = tg.matmul %acc, %w : tensor<32x32xf32>
    %n = tg.relu %m : tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  return %r : tensor<32x32xf32>
}

// A deny op feeding the loop from outside: its result is cast once, before
// the loop.
// CHECK-LABEL: func.func @fed_by_deny
// CHECK: %[[E:.*]] = tg.exp
// CHECK: %[[EH:.*]] = amp.cast %[[E]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[EH]]) -> (tensor<32x32xf16>)
// CHECK-NOT: amp.cast
// CHECK:   tg.matmul %[[ACC]], %{{.*}} : tensor<32x32xf16>
// CHECK:   tg.relu {{.*}} : tensor<32x32xf16>
// CHECK: }
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

// A deny op inside the loop runs in f32 between two casts; the carried
// value follows the matmul that consumes it (the cast of exp's result is
// the one the matmul needs anyway), so no further cast enters the loop.
// CHECK-LABEL: func.func @deny_inside
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<32x32xf16>)
// CHECK:   %[[M:.*]] = tg.matmul %[[ACC]], %{{.*}} : tensor<32x32xf16>
// CHECK:   %[[B:.*]] = amp.cast %[[M]] : tensor<32x32xf16> to tensor<32x32xf32>
// CHECK:   %[[E:.*]] = tg.exp %[[B]] : tensor<32x32xf32>
// CHECK:   %[[EH:.*]] = amp.cast %[[E]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK:   scf.yield %[[EH]] : tensor<32x32xf16>
func.func @deny_inside(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<32x32xf32>) {
    %m = tg.matmul %acc, %w : tensor<32x32xf32>
    %e = tg.exp %m : tensor<32x32xf32>
    scf.yield %e : tensor<32x32xf32>
  }
  return %r : tensor<32x32xf32>
}

// When every side is allow, no cast touches the loop.
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

// scf.while: the before and after arguments and the results join.
// CHECK-LABEL: func.func @while_loop
// CHECK: scf.while (%[[A:.*]] = %{{.*}}) : (tensor<32x32xf16>) -> tensor<32x32xf16>
// CHECK:   scf.condition(%{{.*}}) %[[A]] : tensor<32x32xf16>
// CHECK: ^bb0(%[[B:.*]]: tensor<32x32xf16>):
// CHECK-NOT: amp.cast
// CHECK:   tg.matmul %[[B]], %{{.*}} : tensor<32x32xf16>
func.func @while_loop(%p: i1, %x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %r = scf.while (%a = %x) : (tensor<32x32xf32>) -> tensor<32x32xf32> {
    scf.condition(%p) %a : tensor<32x32xf32>
  } do {
  ^bb0(%b: tensor<32x32xf32>):
    %m = tg.matmul %b, %w : tensor<32x32xf32>
    %n = tg.relu %m : tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  return %r : tensor<32x32xf32>
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

// Unstructured control flow: block arguments fed by cf branches are carried
// values; the loop through ^loop keeps f16 and casts only on the way in.
// CHECK-LABEL: func.func @cf_loop
// CHECK-SAME: (%{{.*}}: i1, %[[X:.*]]: tensor<32x32xf32>, %[[W:.*]]: tensor<32x32xf32>)
// CHECK: %[[XH:.*]] = amp.cast %[[X]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK: cf.br ^bb1(%[[XH]] : tensor<32x32xf16>)
// CHECK: ^bb1(%[[A:.*]]: tensor<32x32xf16>):
// CHECK-NOT: amp.cast
// CHECK:   %[[M:.*]] = tg.matmul %[[A]], %{{.*}} : tensor<32x32xf16>
// CHECK:   %[[N:.*]] = tg.relu %[[M]] : tensor<32x32xf16>
// CHECK:   cf.cond_br %{{.*}}, ^bb1(%[[N]] : tensor<32x32xf16>), ^bb2
// CHECK: ^bb2:
// CHECK:   amp.cast %[[N]] : tensor<32x32xf16> to tensor<32x32xf32>
func.func @cf_loop(%p: i1, %x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  cf.br ^loop(%x : tensor<32x32xf32>)
^loop(%a: tensor<32x32xf32>):
  %m = tg.matmul %a, %w : tensor<32x32xf32>
  %n = tg.relu %m : tensor<32x32xf32>
  cf.cond_br %p, ^loop(%n : tensor<32x32xf32>), ^exit
^exit:
  return %n : tensor<32x32xf32>
}
