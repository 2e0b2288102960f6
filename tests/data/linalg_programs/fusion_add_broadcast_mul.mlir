// Source: llvm/llvm-project mlir/test/Dialect/Linalg/fusion-elementwise-ops.mlir (@add_broadcast_mul_fusion)
// Adapted: the dynamic sizes made static (8 and 8x6), so tensor.dim goes.
#map0 = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0) -> (d0)>
func.func @add_broadcast_mul_fusion(%arg0: tensor<8xf32>, %arg1 : tensor<8xf32>, %arg2 : tensor<8x6xf32>) -> tensor<8x6xf32>
{
  %1 = tensor.empty() : tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel"]}
      ins(%arg0, %arg1 : tensor<8xf32>, tensor<8xf32>)
      outs(%1 : tensor<8xf32>) {
    ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
      %3 = arith.addf %arg3, %arg4 : f32
      linalg.yield %3 : f32
  } -> tensor<8xf32>
  %4 = tensor.empty() : tensor<8x6xf32>
  %5 = linalg.generic {indexing_maps = [#map1, #map0, #map0], iterator_types = ["parallel", "parallel"]}
      ins(%2, %arg2 : tensor<8xf32>, tensor<8x6xf32>)
      outs(%4 : tensor<8x6xf32>){
    ^bb0(%arg5: f32, %arg6: f32, %arg7: f32):
      %6 = arith.mulf %arg5, %arg6 : f32
      linalg.yield %6 : f32
    } -> tensor<8x6xf32>
  return %5 : tensor<8x6xf32>
}
