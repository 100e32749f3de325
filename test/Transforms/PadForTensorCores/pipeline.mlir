// pad-tensor-cores=true in --amp-pipeline pads before autodiff: the
// classifier's 10 classes become 16 in the forward product, the backward
// products run on the padded shapes too (the gradient of the padded
// weight is sliced back to the master weight's shape), and every
// contraction of the step and of predict meets Tensor Core alignment. The
// report says which op was padded from what.
// RUN: amp-opt %S/../../../python-bindings-free-examples/mlp_adam.mlir --amp-pipeline="pad-tensor-cores=true report=%t.json" 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: amp-opt %S/../../../python-bindings-free-examples/mlp_adam.mlir --amp-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNPADDED

// CHECK: remark: amp: Tensor Cores: 7 of 7 f16 contractions aligned (multiples of 8){{$}}
// UNPADDED: remark: amp: Tensor Cores: 3 of 7 f16 contractions aligned (multiples of 8); 4 misaligned, 3 of them in a dimension a parameter owns (paddable)
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W2:[^:]*]]: tensor<128x10xf32> {tg.init = "glorot_uniform", tg.role = "param"}
// CHECK: %[[W2L:.*]] = amp.cast %[[W2]] : tensor<128x10xf32> to tensor<128x10xf16>
// CHECK: %[[W2P:.*]] = tg.pad %[[W2L]] {high = array<i64: 0, 6>, low = array<i64: 0, 0>} : tensor<128x10xf16>
// CHECK: %[[Z:.*]] = tg.matmul %[[H:.*]], %[[W2P]] {amp.tensor_core_padded = {N = 10 : i64}} : tensor<32x128xf16>, tensor<128x16xf16>
// CHECK: tg.slice %[[Z]] {offsets = array<i64: 0, 0>, sizes = array<i64: 32, 10>} : tensor<32x16xf16>
// The logits' gradient is padded with zeros, the input gradient's product
// sums over 16 and the weight gradient is cut back to 128x10.
// CHECK: %[[DZ:.*]] = tg.pad %{{.*}} {high = array<i64: 0, 6>, low = array<i64: 0, 0>} : tensor<32x10xf16>
// CHECK: tg.matmul %[[DZ]], %[[W2P]] {transpose_b = true} : tensor<32x16xf16>, tensor<128x16xf16>
// CHECK: %[[DW:.*]] = tg.matmul %[[H]], %[[DZ]] {transpose_a = true} : tensor<32x128xf16>, tensor<32x16xf16>
// CHECK: tg.slice %[[DW]] {offsets = array<i64: 0, 0>, sizes = array<i64: 128, 10>} : tensor<128x16xf16>
// CHECK: tg.adam_update {{.*}} : tensor<128x10xf32>
// predict's weights carry no role beside its tg.role = "input" data: they
// are the parameters, and its classifier is padded too.
// CHECK-LABEL: func.func @predict
// CHECK: tg.matmul {{.*}} {amp.tensor_core_padded = {N = 10 : i64}} : tensor<32x128xf16>, tensor<128x16xf16>
// CHECK: return {{.*}} : tensor<32x10xf32>

// REPORT: "name": "tg.matmul"
// REPORT: "tensor_core_aligned": true
// REPORT-NEXT: "tensor_core_multiple": 8
// REPORT: "tensor_core_aligned": true
// REPORT-NEXT: "tensor_core_multiple": 8
// REPORT-NEXT: "tensor_core_padded": [
// REPORT-NEXT: {
// REPORT-NEXT: "dimension": "N"
// REPORT-NEXT: "from": 10
// REPORT: "tensor_core_contractions": 7
// REPORT-NEXT: "tensor_core_aligned": 7
// REPORT-NEXT: "tensor_core_paddable": 0
