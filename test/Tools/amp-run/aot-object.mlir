// amp-run --emit-obj writes the compiled step as an object file that links
// ahead of time: a plain C++ host program and libamprt drive the f16 step
// (with its loss-scale state) with no JIT and no MLIR, and it trains.
// RUN: amp-run %s --precision=f16 --steps=1 --emit-obj=%t.o 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: llvm-nm %t.o | FileCheck %s --check-prefix=SYMBOLS
// RUN: %host_cxx -std=c++17 -no-pie %S/Inputs/aot_driver.cpp %t.o -I%amp_src/runtime/include -L%amp_lib -lamprt -Wl,-rpath,%amp_lib -o %t.exe
// RUN: %t.exe | FileCheck %s

// LOG: step 1/1  loss {{[0-9.]+}}  scale 65536
// SYMBOLS-DAG: T train_step
// SYMBOLS-DAG: U amprt_matmul
// SYMBOLS-DAG: U amprt_softmax_cross_entropy
// CHECK: first loss 1.0986
// CHECK: loss scale {{[0-9]+}}
// CHECK: skipped steps {{[0-9]+}}
// CHECK: loss fell: yes

func.func @train_step(%w: tensor<4x3xf32> {tg.role = "param", tg.init = "glorot_uniform"},
                      %x: tensor<8x4xf32> {tg.role = "input"},
                      %y: tensor<8xi32> {tg.role = "label"},
                      %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<4x3xf32> {tg.role = "param"}) {
  %z = tg.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32>
  %ce = tg.softmax_cross_entropy %z, %y : tensor<8x3xf32>, tensor<8xi32>
  %loss = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<8xf32>
  %g = tg.gradients %loss wrt %w : tensor<f32>, tensor<4x3xf32>
  %wn = tg.sgd_update %w, %g, %lr : tensor<4x3xf32>
  return %loss, %wn : tensor<f32>, tensor<4x3xf32>
}
