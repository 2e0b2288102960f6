// Source: llvm/llvm-project mlir/test/Dialect/Linalg/fusion-elementwise-ops.mlir (@add_transpose_mul_fusion)
// Adapted: the dynamic sizes made static (6x6, the transposed operand square), so tensor.dim goes.
#map0 = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
func.func @add_transpose_mul_fusion(%arg0: tensor<6x6xf32>, %arg1 : tensor<6x6xf32>, %arg2 : tensor<6x6xf32>) -> tensor<6x6xf32>
{
  %2 = tensor.empty() : tensor<6x6xf32>
  %3 = linalg.generic {indexing_maps = [#map0, #map1, #map0], iterator_types = ["parallel", "parallel"]}
      ins(%arg0, %arg1 : tensor<6x6xf32>, tensor<6x6xf32>)
      outs(%2 : tensor<6x6xf32>) {
    ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
      %4 = arith.addf %arg3, %arg4 : f32
      linalg.yield %4 : f32
  } -> tensor<6x6xf32>
  %4 = linalg.generic {indexing_maps = [#map1, #map0, #map0], iterator_types = ["parallel", "parallel"]}
      ins(%3, %arg2 : tensor<6x6xf32>, tensor<6x6xf32>)
      outs(%2 : tensor<6x6xf32>) {
    ^bb0(%arg5: f32, %arg6: f32, %arg7: f32):
      %5 = arith.mulf %arg5, %arg6 : f32
      linalg.yield %5 : f32
    } -> tensor<6x6xf32>
  return %4 : tensor<6x6xf32>
}
