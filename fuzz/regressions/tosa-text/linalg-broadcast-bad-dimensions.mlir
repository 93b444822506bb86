func.func @broadcast_between(%x: tensor<4xf32>, %e: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %b = linalg.broadcast ins(%x : tensor<4xf32>) outs(%e : tensor<4x8xf32>) dimensions = ;1]
  return %b : tensor<4x8xf32>
}
