// The linalg MLP of a torch-mlir-style front end (dynamic batch, fills,
// a bias + relu generic) through --amp-auto-mixed-precision comes back in
// upstream ops only; upstream mlir-opt-22 lowers it to LLVM and
// mlir-runner-22 runs it. Its outputs on pseudo-random inputs match the f32
// program's within f16 tolerance, and differ from them (it did run in f16).
// REQUIRES: upstream-mlir-runner
// RUN: amp-opt %s --amp-auto-mixed-precision -o %t.mixed.mlir
// RUN: FileCheck %s --input-file=%t.mixed.mlir
// RUN: %upstream_to_llvm %s | %upstream_run > %t.f32.txt
// RUN: %upstream_to_llvm %t.mixed.mlir | %upstream_run > %t.f16.txt
// RUN: %python %S/compare_outputs.py %t.f32.txt %t.f16.txt --tolerance 1e-2

// CHECK-NOT: amp.
// CHECK-LABEL: func.func @forward
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x64xf16>, tensor<64x32xf16>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x32xf16>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x32xf16>, tensor<32x10xf16>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<?x64xf32>, %w1: tensor<64x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x10xf32>) -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e1 = tensor.empty(%n) : tensor<?x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<?x64xf32>, tensor<64x32xf32>) outs(%f1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %g = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%m1, %b1 : tensor<?x32xf32>, tensor<32xf32>) outs(%e1 : tensor<?x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x32xf32>
  %e2 = tensor.empty(%n) : tensor<?x10xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x10xf32>) -> tensor<?x10xf32>
  %m2 = linalg.matmul ins(%g, %w2 : tensor<?x32xf32>, tensor<32x10xf32>) outs(%f2 : tensor<?x10xf32>) -> tensor<?x10xf32>
  return %m2 : tensor<?x10xf32>
}

// Deterministic pseudo-random values in [-scale, scale): fract(sin(seed + 12.9898 i + 78.233 j) * 43758.5453).
func.func @random(%rows: index, %cols: index, %seed: f32, %scale: f32) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %jj = arith.index_cast %j : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %fj = arith.sitofp %jj : i32 to f32
    %a = arith.constant 12.9898 : f32
    %b = arith.constant 78.233 : f32
    %big = arith.constant 43758.5453 : f32
    %p = arith.mulf %fi, %a : f32
    %q = arith.mulf %fj, %b : f32
    %pq = arith.addf %p, %q : f32
    %t = arith.addf %pq, %seed : f32
    %s = math.sin %t : f32
    %h = arith.mulf %s, %big : f32
    %fl = math.floor %h : f32
    %fr = arith.subf %h, %fl : f32
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    %u = arith.mulf %fr, %two : f32
    %v = arith.subf %u, %one : f32
    %w = arith.mulf %v, %scale : f32
    linalg.yield %w : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %s1 = arith.constant 1.0 : f32
  %s2 = arith.constant 2.0 : f32
  %s3 = arith.constant 3.0 : f32
  %s4 = arith.constant 4.0 : f32
  %one = arith.constant 1.0 : f32
  %ws = arith.constant 0.25 : f32
  %x0 = func.call @random(%c16, %c64, %s1, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %w10 = func.call @random(%c64, %c32, %s2, %ws) : (index, index, f32, f32) -> tensor<?x?xf32>
  %b10 = func.call @random(%c1, %c32, %s3, %ws) : (index, index, f32, f32) -> tensor<?x?xf32>
  %w20 = func.call @random(%c32, %c10, %s4, %ws) : (index, index, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %x0 : tensor<?x?xf32> to tensor<?x64xf32>
  %w1 = tensor.cast %w10 : tensor<?x?xf32> to tensor<64x32xf32>
  %b1m = tensor.cast %b10 : tensor<?x?xf32> to tensor<1x32xf32>
  %b1 = tensor.collapse_shape %b1m [[0, 1]] : tensor<1x32xf32> into tensor<32xf32>
  %w2 = tensor.cast %w20 : tensor<?x?xf32> to tensor<32x10xf32>
  %y = func.call @forward(%x, %w1, %b1, %w2) : (tensor<?x64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x10xf32>) -> tensor<?x10xf32>
  %u = tensor.cast %y : tensor<?x10xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}
