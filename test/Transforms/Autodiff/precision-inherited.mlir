// The ops a gradient rule emits for an op pinned by amp.precision carry the
// same attribute, so pinning a forward op (by hand or with amp-run
// --validate-annotate) keeps its backward in that precision too; ops of
// unpinned forward ops get none.
// RUN: amp-opt %s --tg-autodiff | FileCheck %s

// CHECK-LABEL: func.func @pinned
// CHECK: tg.square %{{.*}} {amp.precision = "f32"}
// CHECK: tg.grad_seed
// CHECK-NOT: tg.matmul {{.*}}amp.precision
// CHECK: tg.mul {{.*}} {amp.precision = "f32"}
// CHECK: tg.matmul %{{.*}}, %{{.*}} {transpose_a = true} :
func.func @pinned(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %h = tg.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32>
  %q = tg.square %h {amp.precision = "f32"} : tensor<2x4xf32>
  %loss = tg.reduce_sum %q {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  %g = tg.gradients %loss wrt %w : tensor<f32>, tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}
