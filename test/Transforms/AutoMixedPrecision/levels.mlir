// level= trades coverage for safety: tensor-cores-only converts allow ops
// only, infer-as-deny lets infer ops block like deny ops, force-all converts
// every op that can take the type except constants and the loss.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s --check-prefix=DEFAULT
// RUN: amp-opt %s --amp-auto-mixed-precision=level=tensor-cores-only | FileCheck %s --check-prefix=TC
// RUN: amp-opt %s --amp-auto-mixed-precision=level=infer-as-deny | FileCheck %s --check-prefix=IAD
// RUN: amp-opt %s --amp-auto-mixed-precision=level=force-all | FileCheck %s --check-prefix=ALL

// DEFAULT-LABEL: func.func @levels
// DEFAULT: tg.matmul {{.*}} : tensor<32x32xf16>
// DEFAULT: tg.add {{.*}} : tensor<32x32xf16>
// DEFAULT: tg.relu {{.*}} : tensor<32x32xf16>
// DEFAULT: tg.matmul {{.*}} : tensor<32x32xf16>
// DEFAULT: tg.exp {{.*}} : tensor<32x32xf32>
// DEFAULT: tg.softmax_cross_entropy {{.*}} : tensor<32x32xf32>, tensor<32xi32>
// TC-LABEL: func.func @levels
// TC: tg.matmul {{.*}} : tensor<32x32xf16>
// TC: tg.add {{.*}} : tensor<32x32xf32>
// TC: tg.relu {{.*}} : tensor<32x32xf32>
// TC: tg.matmul {{.*}} : tensor<32x32xf16>
// IAD-LABEL: func.func @levels
// IAD: tg.matmul {{.*}} : tensor<32x32xf16>
// IAD: tg.add {{.*}} : tensor<32x32xf32>
// The relu is not upstream of a deny or infer op, so deny does not reach it
// and it follows the second matmul.
// IAD: tg.relu {{.*}} : tensor<32x32xf16>
// IAD: tg.matmul {{.*}} : tensor<32x32xf16>
// ALL-LABEL: func.func @levels
// ALL: tg.matmul {{.*}} : tensor<32x32xf16>
// ALL: tg.add {{.*}} : tensor<32x32xf16>
// ALL: tg.relu {{.*}} : tensor<32x32xf16>
// ALL: tg.matmul {{.*}} : tensor<32x32xf16>
// ALL: tg.exp {{.*}} : tensor<32x32xf16>
// ALL: tg.softmax_cross_entropy {{.*}} : tensor<32x32xf32>, tensor<32xi32>
func.func @levels(%x: tensor<32x32xf32>, %y: tensor<32xi32>) -> (tensor<32x32xf32>, tensor<32xf32>) {
  %m = tg.matmul %x, %x : tensor<32x32xf32>
  %a = tg.add %m, %x : tensor<32x32xf32>
  %r = tg.relu %a : tensor<32x32xf32>
  %m2 = tg.matmul %r, %x : tensor<32x32xf32>
  %e = tg.exp %m2 : tensor<32x32xf32>
  %l = tg.softmax_cross_entropy %e, %y : tensor<32x32xf32>, tensor<32xi32>
  return %e, %l : tensor<32x32xf32>, tensor<32xf32>
}
