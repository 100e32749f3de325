func.func @dense_block(%x: tensor<64x256xf32>, %w: tensor<256x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x256xf32>, tensor<256x128xf32>) outs(%acc : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e = math.exp %y : tensor<64x128xf32>
  %s = arith.addf %e, %y : tensor<64x128xf32>
  return %s : tensor<64x128xf32>
}
