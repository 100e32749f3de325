// With f16 and dynamic loss scaling, gradients are reduced before they are
// unscaled (the loss scale protects them on the wire), unscale reads the
// reduced value with no rounding back, and the finite check is agreed by
// every rank (min over i1: a logical and) before it picks the updates and
// the new scale.
//
// RUN: amp-opt %S/Inputs/mlp-sgd.mlir --amp-pipeline="data-parallel=true" | FileCheck %s
// RUN: amp-opt %S/Inputs/mlp-sgd.mlir --amp-pipeline="grad-comm=f16" | FileCheck %s --check-prefix=F16
// RUN: amp-opt %S/Inputs/mlp-sgd.mlir --amp-pipeline="grad-comm=f16 bucket-bytes=4096" | FileCheck %s --check-prefix=BUCKETS
// RUN: amp-opt %S/Inputs/mlp-sgd.mlir --amp-pipeline="precision=bf16 grad-comm=bf16" | FileCheck %s --check-prefix=BF16

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: tg.role = "loss_scale"
// CHECK-SAME: %[[COMM:[^:]*]]: tensor<i64> {tg.role = "communicator"})
// f16 gradients go on an f32 wire (the default): cast up, summed, unscaled
// from f32.
// CHECK: %[[UP:.*]] = amp.cast %{{.*}} : tensor<784x128xf16> to tensor<784x128xf32>
// CHECK: %[[R:.*]]:3 = tg.all_reduce %[[COMM]], {{.*}}%[[UP]]{{.*}} : tensor<i64>, tensor<{{.*}}xf32>, tensor<{{.*}}xf32>, tensor<{{.*}}xf32>
// CHECK: amp.unscale %[[R]]#{{[0-2]}}, %{{.*}} : tensor<784x128xf32>
// CHECK: %[[OK:.*]] = amp.all_finite
// CHECK: %[[AGREED:.*]] = tg.all_reduce %[[COMM]], %[[OK]] {reduction = "min"} : tensor<i64>, tensor<i1>
// CHECK: tg.select %[[AGREED]]
// CHECK: amp.update_scale %{{.*}}, %{{.*}}, %[[AGREED]]

// F16: tg.all_reduce %{{.*}} : tensor<i64>, tensor<{{.*}}xf16>, tensor<{{.*}}xf16>, tensor<{{.*}}xf16>
// F16: amp.unscale %{{.*}} : tensor<784x128xf16>

// The bucket cap splits the gradients: w2's and b1's (2.8 KB) go together,
// w1's (200 KB) travels alone.
// BUCKETS: tg.all_reduce %{{.*}} : tensor<i64>, tensor<128x10xf16>, tensor<128xf16>{{$}}
// BUCKETS: tg.all_reduce %{{.*}} : tensor<i64>, tensor<784x128xf16>{{$}}

// bf16 has no loss scaling: nothing to agree on, gradients cast to bf16 and
// back to f32 for the optimizer.
// BF16-NOT: amp.all_finite
// BF16: tg.all_reduce %{{.*}} : tensor<i64>, tensor<{{.*}}xbf16>, tensor<{{.*}}xbf16>, tensor<{{.*}}xbf16>
// BF16-NOT: reduction = "min"
