// --amp-pad-for-tensor-cores on the linalg and TOSA forms other compilers
// emit: a product with a 12-wide hidden size and 10 classes, a convolution
// with 3 input and 6 output channels, in linalg and in TOSA. Each is
// rebuilt on zero-padded operands (tensor.pad / tosa.pad) and cut back
// (tensor.extract_slice / tosa.slice); upstream mlir-opt-22 lowers the
// result and mlir-runner-22 runs it, and every output equals the unpadded
// program's bit for bit (the added terms are -0.0, in the same order, so
// even a sum of -0.0, the third output, keeps its sign).
// Then --amp-auto-mixed-precision on the padded program: within f16
// tolerance of f32.
// REQUIRES: upstream-mlir-runner
// RUN: amp-opt %s --amp-pad-for-tensor-cores -o %t.padded.mlir
// RUN: FileCheck %s --input-file=%t.padded.mlir
// RUN: %upstream_to_llvm %s | %upstream_run > %t.f32.txt
// RUN: %upstream_to_llvm %t.padded.mlir | %upstream_run > %t.padded.txt
// RUN: %python %S/compare_outputs.py %t.f32.txt %t.padded.txt --same
// RUN: amp-opt %t.padded.mlir --amp-auto-mixed-precision -o %t.mixed.mlir
// RUN: %upstream_to_llvm %t.mixed.mlir | %upstream_run > %t.mixed.txt
// RUN: %python %S/compare_outputs.py %t.f32.txt %t.mixed.txt --tolerance 1e-2

// CHECK-LABEL: func.func @linalg_forward
// CHECK: tensor.pad %arg0 low[0, 0] high[0, 4]
// CHECK: tensor.pad %arg1 low[0, 0] high[4, 6]
// CHECK: linalg.matmul {amp.tensor_core_padded = {K = 12 : i64, N = 10 : i64}} ins({{.*}} : tensor<4x16xf32>, tensor<16x16xf32>) outs({{.*}} : tensor<4x16xf32>)
// CHECK: tensor.extract_slice {{.*}}[0, 0] [4, 10] [1, 1] : tensor<4x16xf32> to tensor<4x10xf32>
// CHECK: linalg.conv_2d_nhwc_hwcf {amp.tensor_core_padded = {input_channels = 3 : i64, output_channels = 6 : i64}} ins({{.*}} : tensor<1x6x6x8xf32>, tensor<3x3x8x8xf32>) outs({{.*}} : tensor<1x4x4x8xf32>)
// CHECK: tensor.extract_slice {{.*}} : tensor<1x4x4x8xf32> to tensor<1x4x4x6xf32>
// CHECK-LABEL: func.func @tosa_forward
// CHECK: tosa.matmul {{.*}} {amp.tensor_core_padded = {K = 12 : i64, N = 10 : i64}} : (tensor<1x4x16xf32>, tensor<1x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
// CHECK: tosa.slice {{.*}} -> tensor<1x4x10xf32>
// CHECK: tosa.conv2d {{.*}} amp.tensor_core_padded = {input_channels = 3 : i64, output_channels = 6 : i64}
// CHECK-SAME: (tensor<1x6x6x8xf32>, tensor<8x3x3x8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
// CHECK: tosa.slice {{.*}} -> tensor<1x6x6x6xf32>

// The data is marked as the input, so the weights, unmarked, are the
// parameters that own the misaligned dimensions (as in amp-run's predict).
func.func @linalg_forward(%x: tensor<4x12xf32> {tg.role = "input"}, %w: tensor<12x10xf32>, %img: tensor<1x6x6x3xf32> {tg.role = "input"}, %f: tensor<3x3x3x6xf32>) -> (tensor<4x10xf32>, tensor<1x4x4x6xf32>, tensor<4x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x10xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x10xf32>) -> tensor<4x10xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x12xf32>, tensor<12x10xf32>) outs(%f1 : tensor<4x10xf32>) -> tensor<4x10xf32>
  %e2 = tensor.empty() : tensor<1x4x4x6xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x4x4x6xf32>) -> tensor<1x4x4x6xf32>
  %c = linalg.conv_2d_nhwc_hwcf ins(%img, %f : tensor<1x6x6x3xf32>, tensor<3x3x3x6xf32>) outs(%f2 : tensor<1x4x4x6xf32>) -> tensor<1x4x4x6xf32>
  %nz = arith.constant -0.0 : f32
  %wz = arith.constant dense<-0.0> : tensor<12x10xf32>
  %f3 = linalg.fill ins(%nz : f32) outs(%e1 : tensor<4x10xf32>) -> tensor<4x10xf32>
  %zabs = math.absf %x : tensor<4x12xf32>
  %z = linalg.matmul ins(%zabs, %wz : tensor<4x12xf32>, tensor<12x10xf32>) outs(%f3 : tensor<4x10xf32>) -> tensor<4x10xf32>
  return %y, %c, %z : tensor<4x10xf32>, tensor<1x4x4x6xf32>, tensor<4x10xf32>
}

func.func @tosa_forward(%x: tensor<1x4x12xf32> {tg.role = "input"}, %w: tensor<1x12x10xf32>, %img: tensor<1x6x6x3xf32> {tg.role = "input"}, %f: tensor<6x3x3x3xf32>, %bias: tensor<6xf32>) -> (tensor<1x4x10xf32>, tensor<1x6x6x6xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %x, %w, %zp, %zp : (tensor<1x4x12xf32>, tensor<1x12x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x10xf32>
  %c = tosa.conv2d %img, %f, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x6x6x3xf32>, tensor<6x3x3x3xf32>, tensor<6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x6xf32>
  return %y, %c : tensor<1x4x10xf32>, tensor<1x6x6x6xf32>
}

// Deterministic pseudo-random values in [-scale, scale), from each
// element's linear index.
func.func @random(%seed: f32, %scale: f32, %e: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<?x?x?x?xf32>) {
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
  %ws = arith.constant 0.3 : f32
  %s1 = arith.constant 1.5 : f32
  %s2 = arith.constant 2.5 : f32
  %s3 = arith.constant 3.5 : f32
  %s4 = arith.constant 4.5 : f32
  %s5 = arith.constant 5.5 : f32
  %s6 = arith.constant 6.5 : f32
  %ex = tensor.empty() : tensor<1x1x4x12xf32>
  %ew = tensor.empty() : tensor<1x1x12x10xf32>
  %ei = tensor.empty() : tensor<1x6x6x3xf32>
  %ef = tensor.empty() : tensor<3x3x3x6xf32>
  %eo = tensor.empty() : tensor<6x3x3x3xf32>
  %eb = tensor.empty() : tensor<1x1x1x6xf32>
  %exd = tensor.cast %ex : tensor<1x1x4x12xf32> to tensor<?x?x?x?xf32>
  %ewd = tensor.cast %ew : tensor<1x1x12x10xf32> to tensor<?x?x?x?xf32>
  %eid = tensor.cast %ei : tensor<1x6x6x3xf32> to tensor<?x?x?x?xf32>
  %efd = tensor.cast %ef : tensor<3x3x3x6xf32> to tensor<?x?x?x?xf32>
  %eod = tensor.cast %eo : tensor<6x3x3x3xf32> to tensor<?x?x?x?xf32>
  %ebd = tensor.cast %eb : tensor<1x1x1x6xf32> to tensor<?x?x?x?xf32>
  %x4 = func.call @random(%s1, %one, %exd) : (f32, f32, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %w4 = func.call @random(%s2, %ws, %ewd) : (f32, f32, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %i4 = func.call @random(%s3, %one, %eid) : (f32, f32, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %f4 = func.call @random(%s4, %ws, %efd) : (f32, f32, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %o4 = func.call @random(%s5, %ws, %eod) : (f32, f32, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %b4 = func.call @random(%s6, %ws, %ebd) : (f32, f32, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %xs = tensor.cast %x4 : tensor<?x?x?x?xf32> to tensor<1x1x4x12xf32>
  %wsq = tensor.cast %w4 : tensor<?x?x?x?xf32> to tensor<1x1x12x10xf32>
  %img = tensor.cast %i4 : tensor<?x?x?x?xf32> to tensor<1x6x6x3xf32>
  %f = tensor.cast %f4 : tensor<?x?x?x?xf32> to tensor<3x3x3x6xf32>
  %fo = tensor.cast %o4 : tensor<?x?x?x?xf32> to tensor<6x3x3x3xf32>
  %bs = tensor.cast %b4 : tensor<?x?x?x?xf32> to tensor<1x1x1x6xf32>
  %x = tensor.collapse_shape %xs [[0, 1, 2], [3]] : tensor<1x1x4x12xf32> into tensor<4x12xf32>
  %w = tensor.collapse_shape %wsq [[0, 1, 2], [3]] : tensor<1x1x12x10xf32> into tensor<12x10xf32>
  %x3 = tensor.collapse_shape %xs [[0, 1], [2], [3]] : tensor<1x1x4x12xf32> into tensor<1x4x12xf32>
  %w3 = tensor.collapse_shape %wsq [[0, 1], [2], [3]] : tensor<1x1x12x10xf32> into tensor<1x12x10xf32>
  %bias = tensor.collapse_shape %bs [[0, 1, 2, 3]] : tensor<1x1x1x6xf32> into tensor<6xf32>
  %y, %c, %z = func.call @linalg_forward(%x, %w, %img, %f) : (tensor<4x12xf32>, tensor<12x10xf32>, tensor<1x6x6x3xf32>, tensor<3x3x3x6xf32>) -> (tensor<4x10xf32>, tensor<1x4x4x6xf32>, tensor<4x10xf32>)
  %ty, %tc = func.call @tosa_forward(%x3, %w3, %img, %fo, %bias) : (tensor<1x4x12xf32>, tensor<1x12x10xf32>, tensor<1x6x6x3xf32>, tensor<6x3x3x3xf32>, tensor<6xf32>) -> (tensor<1x4x10xf32>, tensor<1x6x6x6xf32>)
  %u1 = tensor.cast %y : tensor<4x10xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %c : tensor<1x4x4x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %u3 = tensor.cast %ty : tensor<1x4x10xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  %u4 = tensor.cast %tc : tensor<1x6x6x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()
  %u5 = tensor.cast %z : tensor<4x10xf32> to tensor<*xf32>
  call @printMemrefF32(%u5) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}
