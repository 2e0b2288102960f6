// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-tensor-matmul.mlir (@main)
// Adapted: the constant inputs %A, %B are arguments; printing and the transform schedule dropped.
func.func @main(%A: tensor<2x3xf32>, %B: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %C = arith.constant dense<1000.0> : tensor<2x4xf32>
  %D = linalg.matmul ins(%A, %B: tensor<2x3xf32>, tensor<3x4xf32>)
                     outs(%C: tensor<2x4xf32>) -> tensor<2x4xf32>
  return %D : tensor<2x4xf32>
}
