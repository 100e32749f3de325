// linalg.generic is classified by its body, as torch-mlir and IREE emit it:
// an elementwise body takes the worst class of its float ops (bias add +
// relu is infer, so between two matmuls it joins them), exp makes it deny,
// a sum reduction is deny and a max reduction clear, a multiply-accumulate
// body is a contraction (allow). Converted bodies are retyped op by op;
// a body that cannot be (a constant out of f16 range) keeps computing in
// f32 between a widening and a narrowing.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision="deny=arith.maximumf" | FileCheck %s --check-prefix=LISTED

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// The issue's MLP, dynamic batch: one cast after the first matmul (f32
// accumulation, f16 output), the bias + relu generic in f16, the second
// matmul takes it as it is. The captured f32 zero becomes an f16 constant.
// CHECK-LABEL: func.func @mlp_dynamic_batch
// CHECK-SAME: (%[[X:.*]]: tensor<?x784xf32>, %[[W1:.*]]: tensor<784x128xf32>, %[[B1:.*]]: tensor<128xf32>, %[[W2:.*]]: tensor<128x10xf32>) -> tensor<?x10xf32>
// CHECK-DAG: %[[W2H:.*]] = arith.truncf %[[W2]] : tensor<128x10xf32> to tensor<128x10xf16>
// CHECK-DAG: %[[B1H:.*]] = arith.truncf %[[B1]] : tensor<128xf32> to tensor<128xf16>
// CHECK-DAG: %[[W1H:.*]] = arith.truncf %[[W1]] : tensor<784x128xf32> to tensor<784x128xf16>
// CHECK-DAG: %[[XH:.*]] = arith.truncf %[[X]] : tensor<?x784xf32> to tensor<?x784xf16>
// CHECK: %[[M1:.*]] = linalg.matmul ins(%[[XH]], %[[W1H]] : tensor<?x784xf16>, tensor<784x128xf16>) outs(%{{.*}} : tensor<?x128xf32>)
// CHECK: %[[M1H:.*]] = arith.truncf %[[M1]] : tensor<?x128xf32> to tensor<?x128xf16>
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x128xf16>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[M1H]], %[[B1H]] : tensor<?x128xf16>, tensor<128xf16>) outs(%[[E]] : tensor<?x128xf16>)
// CHECK: ^bb0(%[[IN:.*]]: f16, %[[BIAS:.*]]: f16, %{{.*}}: f16):
// CHECK:   %[[Z:.*]] = arith.constant 0.000000e+00 : f16
// CHECK:   %[[S:.*]] = arith.addf %[[IN]], %[[BIAS]] : f16
// CHECK:   %[[R:.*]] = arith.maximumf %[[S]], %[[Z]] : f16
// CHECK:   linalg.yield %[[R]] : f16
// CHECK: } -> tensor<?x128xf16>
// CHECK-NOT: arith.truncf
// CHECK: linalg.matmul ins(%[[G]], %[[W2H]] : tensor<?x128xf16>, tensor<128x10xf16>) outs(%{{.*}} : tensor<?x10xf32>)
// A user list reaches into bodies: with maximumf denied the generic is
// deny and stays f32.
// LISTED-LABEL: func.func @mlp_dynamic_batch
// LISTED: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x128xf32>)
func.func @mlp_dynamic_batch(%x: tensor<?x784xf32>, %w1: tensor<784x128xf32>, %b1: tensor<128xf32>, %w2: tensor<128x10xf32>) -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x784xf32>
  %e1 = tensor.empty(%n) : tensor<?x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x128xf32>) -> tensor<?x128xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<?x784xf32>, tensor<784x128xf32>) outs(%f1 : tensor<?x128xf32>) -> tensor<?x128xf32>
  %g = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%m1, %b1 : tensor<?x128xf32>, tensor<128xf32>) outs(%e1 : tensor<?x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x128xf32>
  %e2 = tensor.empty(%n) : tensor<?x10xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x10xf32>) -> tensor<?x10xf32>
  %m2 = linalg.matmul ins(%g, %w2 : tensor<?x128xf32>, tensor<128x10xf32>) outs(%f2 : tensor<?x10xf32>) -> tensor<?x10xf32>
  return %m2 : tensor<?x10xf32>
}

// exp makes a body deny; a sum reduction is deny too. The matmul's f32
// result reaches them without a cast.
// CHECK-LABEL: func.func @exp_and_sum
// CHECK: %[[M:.*]] = linalg.matmul {{.*}} -> tensor<8x16xf32>
// CHECK-NOT: arith.truncf %[[M]]
// CHECK: math.exp %{{.*}} : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<8xf32>)
// CHECK:   arith.addf %{{.*}}, %{{.*}} : f32
func.func @exp_and_sum(%a: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%a, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<8x16xf32>) outs(%f1 : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// A max reduction is clear: between two matmuls it runs in f16, its -inf
// fill converted with it.
// CHECK-LABEL: func.func @max_reduce
// CHECK: %[[NINF:.*]] = arith.constant 0xFC00 : f16
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NINF]] : f16) outs(%{{.*}} : tensor<8xf16>) -> tensor<8xf16>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]{{.*}} outs(%[[INIT]] : tensor<8xf16>)
// CHECK:   arith.maximumf %{{.*}}, %{{.*}} : f16
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<8x16xf16>)
// CHECK:   arith.subf %{{.*}}, %{{.*}} : f16
func.func @max_reduce(%a: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%a, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %mx = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]} ins(%m : tensor<8x16xf32>) outs(%f1 : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.maximumf %x, %acc : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %mx : tensor<8x16xf32>, tensor<8xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.subf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<8x16xf32>
  %m2 = linalg.matmul ins(%b, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m2 : tensor<8x16xf32>
}

// A multiply-accumulate generic is a contraction: f16 inputs, widened in
// the body, f32 accumulation into its init.
// CHECK-LABEL: func.func @generic_contraction
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<16x4xf16>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK: ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK:   %[[AW:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK:   %[[BW:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK:   %[[P:.*]] = arith.mulf %[[AW]], %[[BW]] : f32
// CHECK:   arith.addf %[[ACC]], %[[P]] : f32
func.func @generic_contraction(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// A body holding a constant beyond f16's range keeps computing in f32: its
// f16 argument is widened on entry and its result narrowed on exit.
// CHECK-LABEL: func.func @out_of_range_body
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf16>)
// CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK:   %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK:   %[[BIG:.*]] = arith.constant 1.000000e+05 : f32
// CHECK:   %[[Y:.*]] = arith.mulf %[[W]], %[[BIG]] : f32
// CHECK:   %[[Z:.*]] = arith.divf %[[Y]], %[[BIG]] : f32
// CHECK:   %[[N:.*]] = arith.truncf %[[Z]] : f32 to f16
// CHECK:   linalg.yield %[[N]] : f16
func.func @out_of_range_body(%a: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %big = arith.constant 1.0e+05 : f32
    %y = arith.mulf %x, %big : f32
    %z = arith.divf %y, %big : f32
    linalg.yield %z : f32
  } -> tensor<8x8xf32>
  %m2 = linalg.matmul ins(%g, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m2 : tensor<8x8xf32>
}
