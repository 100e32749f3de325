// Everything asked of amp-run that cannot be done is an error with a
// non-zero exit and a message that names the user's construct: counts that
// overflow, non-finite options, files that cannot be written, a loss that
// is not a scalar f32, roles given twice, an empty batch, an entry that is
// only a declaration.
// RUN: split-file %s %t
// RUN: not amp-run %t/step.mlir --precision=f32 --epochs=36028797018963968 2>&1 | FileCheck %s --check-prefix=EPOCHS
// RUN: not amp-run %t/step.mlir --precision=f32 --epochs=9223372036854775807 2>&1 | FileCheck %s --check-prefix=EPOCHS
// RUN: not amp-run %t/step.mlir --precision=f32 --lr=nan 2>&1 | FileCheck %s --check-prefix=LR
// RUN: not amp-run %t/step.mlir --precision=f32 --lr=inf 2>&1 | FileCheck %s --check-prefix=LR
// RUN: not amp-run %t/step.mlir --init-scale=0 2>&1 | FileCheck %s --check-prefix=SCALE
// RUN: not amp-run %t/step.mlir --precision=f32 --steps=1 --emit-obj=/nonexistent-dir/step.o 2>&1 | FileCheck %s --check-prefix=OBJ
// RUN: not amp-run %t/step.mlir --precision=f32 --steps=1 --report=/dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not amp-run %t/step.mlir --precision=f32 --steps=1 --emit-obj=/dev/null 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not amp-run %t/f64-loss.mlir --precision=f32 --steps=1 2>&1 | FileCheck %s --check-prefix=F64
// RUN: not amp-run %t/vector-loss.mlir --precision=f32 --steps=1 2>&1 | FileCheck %s --check-prefix=VECTOR
// RUN: not amp-run %t/two-inputs.mlir --precision=f32 --steps=1 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not amp-run %t/empty-batch.mlir --precision=f32 --steps=1 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not amp-run %t/runtime-name.mlir --precision=f32 --steps=1 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not amp-run %t/declaration.mlir --precision=f32 --steps=1 2>&1 | FileCheck %s --check-prefix=DECLARATION
// A FIFO as the program would wait for a writer forever.
// RUN: rm -f %t/fifo.mlir && mkfifo %t/fifo.mlir
// RUN: not amp-run %t/fifo.mlir --precision=f32 --steps=1 2>&1 | FileCheck %s --check-prefix=FIFO
// LLVM's refusal of an unknown flag is one error line.
// RUN: not amp-run %t/step.mlir --bogus 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// FIFO: amp-run: error: cannot read '{{.*}}fifo.mlir': not a regular file (a directory, FIFO or device)
// UNKNOWN: amp-run: error: Unknown command line argument '--bogus'. {{.*}}Did you mean

// EPOCHS: amp-run: error: --epochs={{[0-9]+}} at 512 steps an epoch is more steps than 64 bits count
// LR: amp-run: error: --lr must be a finite value >= 0, got {{nan|inf}}
// SCALE: amp-run: error: --init-scale must be a finite value > 0, got 0
// OBJ: amp-run: error: cannot write --emit-obj '/nonexistent-dir/step.o': No such file or directory
// FULL: amp-run: error: cannot write --report '/dev/full': No space left on device
// DEVICE: amp-run: error: cannot write --emit-obj '/dev/null': the object and its manifest (PATH.json) are files amp-train reads back; name a regular file
// F64: amp-run: error: the loss (result #0 of @train_step, tg.role "loss") must be a scalar tensor<f32>, got tensor<f64>; reduce it (tg.reduce_mean) and keep it f32
// VECTOR: amp-run: error: the loss (result #0 of @train_step, tg.role "loss") must be a scalar tensor<f32>, got tensor<8xf32>
// TWO: amp-run: error: @train_step has two arguments with tg.role "input" (#1 and #4); amp-run binds one
// EMPTY: amp-run: error: argument #1 of @train_step (tensor<0x784xf32>) has no elements; amp-run trains on non-empty tensors (a batch of at least 1)
// DECLARATION: amp-run: error: @train_step in '{{.*}}declaration.mlir' is a declaration: the function amp-run compiles needs a body
// NAME: error: amp-lower-to-runtime: function @amprt_matmul takes a name the runtime's C API uses (amprt_*, _mlir_ciface_*): rename it

//--- step.mlir
func.func @train_step(%w: tensor<784x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
                      %x: tensor<8x784xf32> {tg.role = "input"},
                      %y: tensor<8xi32> {tg.role = "label"},
                      %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<784x10xf32> {tg.role = "param"}) {
  %z = tg.matmul %x, %w : tensor<8x784xf32>, tensor<784x10xf32>
  %ce = tg.softmax_cross_entropy %z, %y : tensor<8x10xf32>, tensor<8xi32>
  %l = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<8xf32>
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<784x10xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<784x10xf32>
  return %l, %w2 : tensor<f32>, tensor<784x10xf32>
}

//--- f64-loss.mlir
func.func @train_step(%w: tensor<784x10xf64> {tg.role = "param", tg.init = "glorot_uniform"},
                      %x: tensor<8x784xf64> {tg.role = "input"},
                      %y: tensor<8xi32> {tg.role = "label"},
                      %lr: tensor<f64> {tg.role = "lr"})
    -> (tensor<f64> {tg.role = "loss"}, tensor<784x10xf64> {tg.role = "param"}) {
  %z = tg.matmul %x, %w : tensor<8x784xf64>, tensor<784x10xf64>
  %ce = tg.softmax_cross_entropy %z, %y : tensor<8x10xf64>, tensor<8xi32>
  %l = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<8xf64>
  %w2 = tg.sub %w, %w : tensor<784x10xf64>
  return %l, %w2 : tensor<f64>, tensor<784x10xf64>
}

//--- vector-loss.mlir
func.func @train_step(%w: tensor<784x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
                      %x: tensor<8x784xf32> {tg.role = "input"},
                      %y: tensor<8xi32> {tg.role = "label"})
    -> (tensor<8xf32> {tg.role = "loss"}, tensor<784x10xf32> {tg.role = "param"}) {
  %z = tg.matmul %x, %w : tensor<8x784xf32>, tensor<784x10xf32>
  %ce = tg.softmax_cross_entropy %z, %y : tensor<8x10xf32>, tensor<8xi32>
  return %ce, %w : tensor<8xf32>, tensor<784x10xf32>
}

//--- two-inputs.mlir
func.func @train_step(%w: tensor<784x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
                      %x: tensor<8x784xf32> {tg.role = "input"},
                      %y: tensor<8xi32> {tg.role = "label"},
                      %lr: tensor<f32> {tg.role = "lr"},
                      %x2: tensor<8x784xf32> {tg.role = "input"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<784x10xf32> {tg.role = "param"}) {
  %s = tg.add %x, %x2 : tensor<8x784xf32>
  %z = tg.matmul %s, %w : tensor<8x784xf32>, tensor<784x10xf32>
  %ce = tg.softmax_cross_entropy %z, %y : tensor<8x10xf32>, tensor<8xi32>
  %l = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<8xf32>
  return %l, %w : tensor<f32>, tensor<784x10xf32>
}

//--- empty-batch.mlir
func.func @train_step(%w: tensor<784x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
                      %x: tensor<0x784xf32> {tg.role = "input"},
                      %y: tensor<0xi32> {tg.role = "label"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<784x10xf32> {tg.role = "param"}) {
  %z = tg.matmul %x, %w : tensor<0x784xf32>, tensor<784x10xf32>
  %ce = tg.softmax_cross_entropy %z, %y : tensor<0x10xf32>, tensor<0xi32>
  %l = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<0xf32>
  return %l, %w : tensor<f32>, tensor<784x10xf32>
}

//--- runtime-name.mlir
func.func @amprt_matmul(%x: tensor<8x784xf32>) -> tensor<8x784xf32> {
  return %x : tensor<8x784xf32>
}
func.func @train_step(%w: tensor<784x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
                      %x: tensor<8x784xf32> {tg.role = "input"},
                      %y: tensor<8xi32> {tg.role = "label"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<784x10xf32> {tg.role = "param"}) {
  %z = tg.matmul %x, %w : tensor<8x784xf32>, tensor<784x10xf32>
  %ce = tg.softmax_cross_entropy %z, %y : tensor<8x10xf32>, tensor<8xi32>
  %l = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<8xf32>
  return %l, %w : tensor<f32>, tensor<784x10xf32>
}

//--- declaration.mlir
func.func private @train_step(tensor<4x4xf32> {tg.role = "param"}, tensor<2x4xf32> {tg.role = "input"},
                              tensor<2xi32> {tg.role = "label"}, tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<4x4xf32> {tg.role = "param"})
