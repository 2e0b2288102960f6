// Source: llvm/llvm-project mlir/test/Dialect/Linalg/fusion-elementwise-ops.mlir (@generic_op_constant_fusion)
// Adapted: the dynamic sizes made static (5x4x3), so tensor.dim goes.
#map0 = affine_map<(d0, d1, d2) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @generic_op_constant_fusion(%arg0 : tensor<5x4x3xf32>) -> tensor<5x4x3xf32>
{
  %cst = arith.constant dense<42.0> : tensor<5xf32>
  %2 = tensor.empty() : tensor<5x4x3xf32>
  %3 = linalg.generic {
    indexing_maps = [#map0, #map1, #map1],
    iterator_types = ["parallel", "parallel", "parallel"]}
    ins(%cst, %arg0 : tensor<5xf32>, tensor<5x4x3xf32>)
    outs(%2 : tensor<5x4x3xf32>) {
    ^bb0(%arg1: f32, %arg2: f32, %arg3: f32):
      %4 = arith.mulf %arg1, %arg2 : f32
      linalg.yield %4 : f32
    } -> tensor<5x4x3xf32>
  return %3 : tensor<5x4x3xf32>
}
