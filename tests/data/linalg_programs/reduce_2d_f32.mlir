// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/ArmSVE/reduce_2d.mlir (@reduce_2d_f32)
// Adapted: the input (a fill with 3.1416) is an argument; sizes 16x1000 static; printing and schedule dropped.
func.func @reduce_2d_f32(%A_in: tensor<16x1000xf32>) -> tensor<16xf32> {
  %c0_f32 = arith.constant 0.0 : f32
  %C_alloc = tensor.empty() : tensor<16xf32>
  %C_in = linalg.fill ins(%c0_f32 : f32) outs(%C_alloc : tensor<16xf32>) -> tensor<16xf32>
  %C_out = linalg.reduce ins(%A_in : tensor<16x1000xf32>) outs(%C_in: tensor<16xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  return %C_out : tensor<16xf32>
}
