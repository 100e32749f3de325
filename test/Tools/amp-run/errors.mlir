// amp-run turns bad input into a clear error and a non-zero exit.
// RUN: split-file %s %t
// RUN: mkdir -p %t/bad %t/trunc
// RUN: not amp-run %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not amp-run %t/step.mlir --precision=f8 2>&1 | FileCheck %s --check-prefix=PRECISION
// RUN: not amp-run %t/step.mlir --loss-scaling=sometimes 2>&1 | FileCheck %s --check-prefix=SCALING
// RUN: not amp-run %t/step.mlir --data=cifar 2>&1 | FileCheck %s --check-prefix=DATA
// RUN: not amp-run %t/step.mlir --batch=64 2>&1 | FileCheck %s --check-prefix=BATCH
// RUN: not amp-run %t/step.mlir --entry=nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: not amp-run %t/step.mlir --device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not amp-run %t/step.mlir --precision=f32 --validate 2>&1 | FileCheck %s --check-prefix=VALF32
// RUN: not amp-run %t/step.mlir --validate=0 2>&1 | FileCheck %s --check-prefix=VALSTEPS
// RUN: not amp-run %t/step.mlir --validate=abc 2>&1 | FileCheck %s --check-prefix=VALWORD
// RUN: not amp-run %t/step.mlir --validate-fix=%t/fix.json 2>&1 | FileCheck %s --check-prefix=VALNEED
// RUN: not amp-run %t/step.mlir --validate=1 --data-parallel 2>&1 | FileCheck %s --check-prefix=VALPARALLEL
// RUN: not amp-run %t/step.mlir --validate=1 --inject-fault=inf@0:0 2>&1 | FileCheck %s --check-prefix=VALPARALLEL
// RUN: not amp-run %t/step.mlir --validate --validate-tol-f16=-1 2>&1 | FileCheck %s --check-prefix=VALTOL
// RUN: not amp-run %t/step.mlir --validate --validate-annotate=%t/nowhere/out.mlir 2>&1 | FileCheck %s --check-prefix=VALWRITE
// RUN: not amp-run %t/step.mlir --precision=f32 --lists-file=%t/lists.json 2>&1 | FileCheck %s --check-prefix=LISTSF32
// RUN: not amp-run %t/step.mlir --lists-file=%t/nowhere.json 2>&1 | FileCheck %s --check-prefix=LISTSMISSING
// RUN: not amp-run %t/step.mlir --data=fashion-mnist:%t/nowhere 2>&1 | FileCheck %s --check-prefix=NODIR
// RUN: printf 'garbage' | gzip > %t/bad/train-images-idx3-ubyte.gz
// RUN: not amp-run %t/step.mlir --data=fashion-mnist:%t/bad 2>&1 | FileCheck %s --check-prefix=MAGIC
// RUN: printf '\x00\x00\x08\x03\x00\x00\x00\x10\x00\x00\x00\x1c\x00\x00\x00\x1c' | gzip > %t/trunc/train-images-idx3-ubyte.gz
// RUN: not amp-run %t/step.mlir --data=fashion-mnist:%t/trunc 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: not amp-run %t/nan.mlir --precision=f32 --steps=5 --report=%t/nan.json 2>&1 | FileCheck %s --check-prefix=NAN
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); s = r['stopped']; print('stopped at', s['step'], 'after', r['steps'], 'steps:', s['reason'])" %t/nan.json | FileCheck %s --check-prefix=NANREPORT
// RUN: not amp-run %t/broken.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: env AMPRT_CUDA_LIBRARY=%t/none.so not amp-run %t/step.mlir --device=cuda 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: not amp-run %t/huge.mlir --data=synthetic 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not amp-run %t/overflow.mlir --data=synthetic 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not amp-run %t/dynamic.mlir --precision=f32 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not amp-run %t/int8.mlir --precision=f32 2>&1 | FileCheck %s --check-prefix=ELEMENT
// RUN: not amp-run %t/wide.mlir --data=synthetic --precision=f32 2>&1 | FileCheck %s --check-prefix=WIDE

// MISSING: amp-run: error: cannot parse
// PRECISION: amp-run: error: --precision must be f32, f16, bf16 or fp8, got 'f8'
// SCALING: amp-run: for the --loss-scaling option: Cannot find option named 'sometimes'!
// VALF32: amp-run: error: --validate compares a mixed-precision step with f32: give --precision=f16, bf16 or fp8
// VALSTEPS: amp-run: error: --validate=N needs a step count >= 1, got '0'
// VALWORD: amp-run: error: --validate=N needs a step count >= 1, got 'abc'
// VALPARALLEL: amp-run: error: --validate compares steps in one process: it takes no --data-parallel, --grad-comm, --bucket-bytes or --inject-fault
// VALNEED: amp-run: error: --validate-fix, --validate-annotate and the tolerance options need --validate
// VALTOL: amp-run: error: the --validate-tol-* and --validate-max-flushed tolerances must be finite values > 0
// VALWRITE: amp-run: error: cannot write --validate-annotate '{{.*}}nowhere/out.mlir'
// LISTSF32: amp-run: error: --lists-file needs --precision=f16, bf16 or fp8
// LISTSMISSING: nowhere.json
// LISTSMISSING: amp-run: error: the amp pipeline failed
// DATA: amp-run: error: --data must be synthetic, fashion-mnist[:DIR] or text[:FILE], got 'cifar'
// BATCH: amp-run: error: --batch=64 but the model's input batch is 8
// ENTRY: amp-run: error: no function @nope
// DEVICE: amp-run: error: --device must be cpu or cuda, got 'tpu'
// NODIR: amp-run: error: {{.*}}nowhere/train-images-idx3-ubyte.gz: cannot open
// MAGIC: amp-run: error: {{.*}}train-images-idx3-ubyte.gz: {{truncated IDX header|wrong magic number}}
// TRUNC: amp-run: error: {{.*}}train-images-idx3-ubyte.gz: truncated: the header promises 16 images of 28x28, the file ends after 0 of their 12544 bytes
// NAN: amp-run: error: step 0: the loss is NaN in the f32 step and loss scaling does not explain it (the step was not skipped); stopping with the last good parameters
// NANREPORT: stopped at 0 after 0 steps: step 0: the loss is NaN in the f32 step
// PARSE: error: expected
// CUDA: amp-run: error: --device=cuda: amprt_context_create: this amp runtime has no CUDA backend ({{.*}}none.so
// HUGE: amp-run: error: argument #0 of @train_step (tensor<4000000x4000000xf32>) needs 64000000000000 bytes; the device has {{[0-9]+}}
// OVERFLOW: error: 'tg.matmul' op operand #0 ('tensor<8x9223372036854775807xf32>') has more than 2^60 elements, the most a tg tensor holds
// OVERFLOW: amp-run: error: cannot parse
// DYNAMIC: amp-run: error: argument #0 of @train_step has type tensor<?x10xf32>; amp-run needs statically shaped tensors
// ELEMENT: amp-run: error: argument #0 of @train_step has type tensor<4x10xi8>; the runtime holds f16, bf16, f32, f64, i32, i64 and i1
// WIDE: amp-run: error: {{synthetic data of 400000000 features per example would need more memory than this machine has|argument #0 of @train_step .* needs}}

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

//--- nan.mlir
// The log of a matmul that goes negative: NaN from the first step.
func.func @train_step(%w: tensor<784x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
                      %x: tensor<8x784xf32> {tg.role = "input"},
                      %y: tensor<8xi32> {tg.role = "label"},
                      %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<784x10xf32> {tg.role = "param"}) {
  %z = tg.matmul %x, %w : tensor<8x784xf32>, tensor<784x10xf32>
  %lz = tg.log %z : tensor<8x10xf32>
  %l = tg.reduce_mean %lz {dims = array<i64: 0, 1>} : tensor<8x10xf32>
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<784x10xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<784x10xf32>
  return %l, %w2 : tensor<f32>, tensor<784x10xf32>
}

//--- broken.mlir
func.func @train_step(

//--- huge.mlir
// 64 TB of weights: refused before anything is allocated.
func.func @train_step(%w: tensor<4000000x4000000xf32> {tg.role = "param", tg.init = "glorot_uniform"},
                      %x: tensor<8x4000000xf32> {tg.role = "input"},
                      %y: tensor<8xi32> {tg.role = "label"},
                      %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<4000000x4000000xf32> {tg.role = "param"}) {
  %z = tg.matmul %x, %w : tensor<8x4000000xf32>, tensor<4000000x4000000xf32>
  %l = tg.reduce_mean %z {dims = array<i64: 0, 1>} : tensor<8x4000000xf32>
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<4000000x4000000xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<4000000x4000000xf32>
  return %l, %w2 : tensor<f32>, tensor<4000000x4000000xf32>
}

//--- overflow.mlir
// Bytes that overflow 64 bits.
func.func @train_step(%w: tensor<9223372036854775807x4xf32> {tg.role = "param", tg.init = "zeros"},
                      %x: tensor<8x9223372036854775807xf32> {tg.role = "input"},
                      %y: tensor<8xi32> {tg.role = "label"}, %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<9223372036854775807x4xf32> {tg.role = "param"}) {
  %z = tg.matmul %x, %w : tensor<8x9223372036854775807xf32>, tensor<9223372036854775807x4xf32>
  %ce = tg.softmax_cross_entropy %z, %y : tensor<8x4xf32>, tensor<8xi32>
  %l = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<8xf32>
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<9223372036854775807x4xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<9223372036854775807x4xf32>
  return %l, %w2 : tensor<f32>, tensor<9223372036854775807x4xf32>
}

//--- dynamic.mlir
func.func @train_step(%w: tensor<?x10xf32> {tg.role = "param"}, %x: tensor<8x4xf32> {tg.role = "input"},
                      %y: tensor<8xi32> {tg.role = "label"}, %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}) {
  %c = arith.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

//--- wide.mlir
// Fits as a model (1.6 GB of input) but not as 5120 synthetic examples.
func.func @train_step(%x: tensor<1x400000000xf32> {tg.role = "input"},
                      %w: tensor<400000000x2xf32> {tg.role = "param", tg.init = "zeros"},
                      %y: tensor<1xi32> {tg.role = "label"}, %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<400000000x2xf32> {tg.role = "param"}) {
  %z = tg.matmul %x, %w : tensor<1x400000000xf32>, tensor<400000000x2xf32>
  %ce = tg.softmax_cross_entropy %z, %y : tensor<1x2xf32>, tensor<1xi32>
  %l = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<1xf32>
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<400000000x2xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<400000000x2xf32>
  return %l, %w2 : tensor<f32>, tensor<400000000x2xf32>
}

//--- int8.mlir
func.func @train_step(%w: tensor<4x10xi8> {tg.role = "param"}, %x: tensor<8x4xf32> {tg.role = "input"},
                      %y: tensor<8xi32> {tg.role = "label"}, %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}) {
  %c = arith.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}
