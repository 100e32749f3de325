// Lists given as options or in a lists file move ops between classes.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s --check-prefix=DEFAULT
// RUN: amp-opt %s --amp-auto-mixed-precision="deny=tg.matmul" | FileCheck %s --check-prefix=NOMATMUL
// RUN: amp-opt %s --amp-auto-mixed-precision="allow=tg.tanh clear=tg.exp" | FileCheck %s --check-prefix=MOVED
// RUN: echo '{"allow": ["tg.tanh"], "clear": ["tg.exp"]}' > %t.json
// RUN: amp-opt %s --amp-auto-mixed-precision="lists-file=%t.json" | FileCheck %s --check-prefix=MOVED

// DEFAULT-LABEL: func.func @lists
// DEFAULT: tg.exp {{.*}} : tensor<32x32xf32>
// DEFAULT: tg.tanh {{.*}} : tensor<32x32xf32>
// DEFAULT: tg.matmul {{.*}} : tensor<32x32xf16>
// NOMATMUL-LABEL: func.func @lists
// NOMATMUL-NOT: f16
// MOVED-LABEL: func.func @lists
// MOVED: tg.exp {{.*}} : tensor<32x32xf16>
// MOVED: tg.tanh {{.*}} : tensor<32x32xf16>
// MOVED: tg.matmul {{.*}} : tensor<32x32xf16>
func.func @lists(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %m0 = tg.matmul %x, %x : tensor<32x32xf32>
  %e = tg.exp %m0 : tensor<32x32xf32>
  %t = tg.tanh %e : tensor<32x32xf32>
  %m = tg.matmul %t, %t : tensor<32x32xf32>
  return %m : tensor<32x32xf32>
}
