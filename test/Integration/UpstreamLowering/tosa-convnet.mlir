// A TOSA convnet (conv2d, clamp, conv2d, residual add, reshape, matmul)
// through --amp-auto-mixed-precision keeps only TOSA ops; upstream's
// tosa-to-linalg and LLVM lowering run it, and its outputs match the f32
// program's within f16 tolerance.
// REQUIRES: upstream-mlir-runner
// RUN: amp-opt %s --amp-auto-mixed-precision -o %t.mixed.mlir
// RUN: FileCheck %s --input-file=%t.mixed.mlir
// RUN: %upstream_to_llvm %s | %upstream_run > %t.f32.txt
// RUN: %upstream_to_llvm %t.mixed.mlir | %upstream_run > %t.f16.txt
// RUN: %python %S/compare_outputs.py %t.f32.txt %t.f16.txt --tolerance 1e-2

// CHECK-NOT: amp.
// CHECK-LABEL: func.func @forward
// CHECK: tosa.conv2d {{.*}} -> tensor<2x8x8x8xf16>
// CHECK: tosa.matmul {{.*}} -> tensor<1x2x10xf32>

#id4 = affine_map<(a, b, c, d) -> (a, b, c, d)>

func.func @forward(%x: tensor<2x8x8x4xf32>, %w1: tensor<8x3x3x4xf32>, %b1: tensor<8xf32>, %w2: tensor<8x3x3x8xf32>, %b2: tensor<8xf32>, %wf: tensor<1x512x10xf32>) -> tensor<1x2x10xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c1 = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x8x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x8x8xf32>
  %r1 = tosa.clamp %c1 {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %c2 = tosa.conv2d %r1, %w2, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x8x8xf32>, tensor<8x3x3x8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x8x8xf32>
  %s = tosa.add %c2, %r1 : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %r2 = tosa.clamp %s {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %shape = tosa.const_shape {values = dense<[1, 2, 512]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %f = tosa.reshape %r2, %shape : (tensor<2x8x8x8xf32>, !tosa.shape<3>) -> tensor<1x2x512xf32>
  %m = tosa.matmul %f, %wf, %zp, %zp : (tensor<1x2x512xf32>, tensor<1x512x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x10xf32>
  return %m : tensor<1x2x10xf32>
}

// Deterministic pseudo-random values in [-scale, scale), from each
// element's linear index.
func.func @random(%seed: f32, %scale: f32, %e: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %r = linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<?x?x?x?xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %c7 = arith.constant 7 : index
    %c13 = arith.constant 13 : index
    %c29 = arith.constant 29 : index
    %a = arith.muli %i0, %c29 : index
    %b = arith.muli %i1, %c13 : index
    %c = arith.muli %i2, %c7 : index
    %ab = arith.addi %a, %b : index
    %abc = arith.addi %ab, %c : index
    %k = arith.addi %abc, %i3 : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %t = arith.addf %kf, %seed : f32
    %sn = math.sin %t : f32
    %big = arith.constant 43758.5453 : f32
    %h = arith.mulf %sn, %big : f32
    %fl = math.floor %h : f32
    %fr = arith.subf %h, %fl : f32
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    %u = arith.mulf %fr, %two : f32
    %v = arith.subf %u, %one : f32
    %w = arith.mulf %v, %scale : f32
    linalg.yield %w : f32
  } -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

func.func @main() {
  %one = arith.constant 1.0 : f32
  %ws = arith.constant 0.2 : f32
  %s1 = arith.constant 1.5 : f32
  %s2 = arith.constant 2.5 : f32
  %s3 = arith.constant 3.5 : f32
  %s4 = arith.constant 4.5 : f32
  %s5 = arith.constant 5.5 : f32
  %s6 = arith.constant 6.5 : f32
  %ex = tensor.empty() : tensor<2x8x8x4xf32>
  %exd = tensor.cast %ex : tensor<2x8x8x4xf32> to tensor<?x?x?x?xf32>
  %ew1 = tensor.empty() : tensor<8x3x3x4xf32>
  %ew1d = tensor.cast %ew1 : tensor<8x3x3x4xf32> to tensor<?x?x?x?xf32>
  %eb = tensor.empty() : tensor<1x1x1x8xf32>
  %ebd = tensor.cast %eb : tensor<1x1x1x8xf32> to tensor<?x?x?x?xf32>
  %ew2 = tensor.empty() : tensor<8x3x3x8xf32>
  %ew2d = tensor.cast %ew2 : tensor<8x3x3x8xf32> to tensor<?x?x?x?xf32>
  %ewf = tensor.empty() : tensor<1x1x512x10xf32>
  %ewfd = tensor.cast %ewf : tensor<1x1x512x10xf32> to tensor<?x?x?x?xf32>
  %x0 = func.call @random(%s1, %one, %exd) : (f32, f32, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %w10 = func.call @random(%s2, %ws, %ew1d) : (f32, f32, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %b10 = func.call @random(%s3, %ws, %ebd) : (f32, f32, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %w20 = func.call @random(%s4, %ws, %ew2d) : (f32, f32, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %b20 = func.call @random(%s5, %ws, %ebd) : (f32, f32, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %wf0 = func.call @random(%s6, %ws, %ewfd) : (f32, f32, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %x = tensor.cast %x0 : tensor<?x?x?x?xf32> to tensor<2x8x8x4xf32>
  %w1 = tensor.cast %w10 : tensor<?x?x?x?xf32> to tensor<8x3x3x4xf32>
  %b1s = tensor.cast %b10 : tensor<?x?x?x?xf32> to tensor<1x1x1x8xf32>
  %b1 = tensor.collapse_shape %b1s [[0, 1, 2, 3]] : tensor<1x1x1x8xf32> into tensor<8xf32>
  %w2 = tensor.cast %w20 : tensor<?x?x?x?xf32> to tensor<8x3x3x8xf32>
  %b2s = tensor.cast %b20 : tensor<?x?x?x?xf32> to tensor<1x1x1x8xf32>
  %b2 = tensor.collapse_shape %b2s [[0, 1, 2, 3]] : tensor<1x1x1x8xf32> into tensor<8xf32>
  %wfs = tensor.cast %wf0 : tensor<?x?x?x?xf32> to tensor<1x1x512x10xf32>
  %wf = tensor.collapse_shape %wfs [[0, 1], [2], [3]] : tensor<1x1x512x10xf32> into tensor<1x512x10xf32>
  %y = func.call @forward(%x, %w1, %b1, %w2, %b2, %wf) : (tensor<2x8x8x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<8x3x3x8xf32>, tensor<8xf32>, tensor<1x512x10xf32>) -> tensor<1x2x10xf32>
  %u = tensor.cast %y : tensor<1x2x10xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}
