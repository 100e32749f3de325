// An output flag that names the input, the lists-file or another output --
// the same file however it is spelled -- is refused before any work, and
// the file is left as it was.
// RUN: rm -rf %t && mkdir -p %t/sub && cp %s %t/step.mlir && echo '{"deny": []}' > %t/lists.json
// RUN: cp %t/step.mlir %t/step.before && cp %t/lists.json %t/lists.before
// RUN: not amp-run %t/step.mlir --validate=2 --validate-annotate=%t/step.mlir 2>&1 | FileCheck %s --check-prefix=ANNOTATE
// RUN: not amp-run %t/step.mlir --validate=2 --validate-fix=%t/sub/../step.mlir 2>&1 | FileCheck %s --check-prefix=FIX
// RUN: not amp-run %t/step.mlir --steps=1 --emit-obj=%t/step.mlir 2>&1 | FileCheck %s --check-prefix=OBJ
// RUN: not amp-run %t/step.mlir --steps=1 --lists-file=%t/lists.json --report=%t/lists.json 2>&1 | FileCheck %s --check-prefix=LISTS
// RUN: not amp-run %t/step.mlir --steps=1 --emit-obj=%t/s.o --report=%t/s.o.json 2>&1 | FileCheck %s --check-prefix=MANIFEST
// RUN: not amp-run %t/step.mlir --validate=2 --validate-fix=%t/v.json --validate-annotate=%t/v.json 2>&1 | FileCheck %s --check-prefix=TWICE
// The data files are inputs too (plain and gzipped).
// RUN: %python %S/make_idx.py %t/data train 8 28 28 --gzip && %python %S/make_idx.py %t/data t10k 8 28 28
// RUN: cp %t/data/train-labels-idx1-ubyte.gz %t/labels.before
// RUN: not amp-run %t/step.mlir --steps=1 --data=fashion-mnist:%t/data --report=%t/data/train-labels-idx1-ubyte.gz 2>&1 | FileCheck %s --check-prefix=DATA
// RUN: not amp-run %t/step.mlir --validate=1 --data=fashion-mnist:%t/data --validate-annotate=%t/data/../data/t10k-images-idx3-ubyte 2>&1 | FileCheck %s --check-prefix=DATA-PLAIN
// RUN: cmp %t/data/train-labels-idx1-ubyte.gz %t/labels.before
// An object whose manifest cannot be written is refused before either is.
// RUN: mkdir -p %t/m.o.json
// RUN: not amp-run %t/step.mlir --steps=1 --emit-obj=%t/m.o 2>&1 | FileCheck %s --check-prefix=NO-MANIFEST
// RUN: not ls %t/m.o
// RUN: cmp %t/step.mlir %t/step.before
// RUN: cmp %t/lists.json %t/lists.before
// RUN: not ls %t/s.o %t/v.json
// Devices may be named by more than one output.
// RUN: amp-run %t/step.mlir --precision=f32 --steps=1 --report=/dev/null --emit-obj=%t/ok.o 2>&1 | FileCheck %s --check-prefix=OK

// ANNOTATE: amp-run: error: cannot write --validate-annotate '{{.*}}step.mlir': it is the input '{{.*}}step.mlir', which writing it would destroy
// FIX: amp-run: error: cannot write --validate-fix '{{.*}}step.mlir': it is the input
// OBJ: amp-run: error: cannot write --emit-obj '{{.*}}step.mlir': it is the input
// LISTS: amp-run: error: cannot write --report '{{.*}}lists.json': it is the --lists-file '{{.*}}lists.json', which writing it would destroy
// MANIFEST: amp-run: error: cannot write --report '{{.*}}s.o.json': it is also --emit-obj's manifest '{{.*}}s.o.json'
// TWICE: amp-run: error: cannot write --validate-annotate '{{.*}}v.json': it is also --validate-fix '{{.*}}v.json'
// DATA: amp-run: error: cannot write --report '{{.*}}train-labels-idx1-ubyte.gz': it is the data file '{{.*}}train-labels-idx1-ubyte.gz', which writing it would destroy
// DATA-PLAIN: amp-run: error: cannot write --validate-annotate '{{.*}}t10k-images-idx3-ubyte': it is the data file
// NO-MANIFEST: amp-run: error: cannot write --emit-obj's manifest '{{.*}}m.o.json': Is a directory
// OK: step 1

func.func @train_step(%w: tensor<16x4xf32> {tg.role = "param", tg.init = "glorot_uniform"},
                      %x: tensor<8x16xf32> {tg.role = "input"},
                      %y: tensor<8xi32> {tg.role = "label"},
                      %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<16x4xf32> {tg.role = "param"}) {
  %z = tg.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32>
  %ce = tg.softmax_cross_entropy %z, %y : tensor<8x4xf32>, tensor<8xi32>
  %l = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<8xf32>
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<16x4xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<16x4xf32>
  return %l, %w2 : tensor<f32>, tensor<16x4xf32>
}
