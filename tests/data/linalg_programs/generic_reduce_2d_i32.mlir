// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/ArmSVE/reduce_2d.mlir (@generic_reduce_2d_i32)
// Adapted: the input (a fill with 3) is an argument; sizes 16x1000 static; printing and schedule dropped.
func.func @generic_reduce_2d_i32(%A_in: tensor<16x1000xi32>) -> tensor<16xi32> {
  %c0_i32 = arith.constant 0 : i32
  %C_alloc = tensor.empty() : tensor<16xi32>
  %C_in = linalg.fill ins(%c0_i32 : i32) outs(%C_alloc : tensor<16xi32>) -> tensor<16xi32>
  %C_out = linalg.generic { indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                             affine_map<(d0, d1) -> (d0)>],
                            iterator_types = ["parallel", "reduction"] }
    ins(%A_in : tensor<16x1000xi32>)
    outs(%C_in : tensor<16xi32>) {
    ^bb(%in: i32, %out: i32) :
      %0 = arith.addi %in, %out : i32
      linalg.yield %0 : i32
    } -> tensor<16xi32>
  return %C_out : tensor<16xi32>
}
