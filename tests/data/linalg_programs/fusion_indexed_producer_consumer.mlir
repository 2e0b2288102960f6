// Source: llvm/llvm-project mlir/test/Dialect/Linalg/fusion-elementwise-ops.mlir (@indexed_producer_consumer_fusion)
// Adapted: the dynamic sizes made static (8x6), so tensor.dim goes.
#map0 = affine_map<(d0, d1) -> (d0, d1)>
func.func @indexed_producer_consumer_fusion(%arg0: tensor<8x6xi32>) -> tensor<8x6xi32> {
  %2 = tensor.empty() : tensor<8x6xi32>
  %3 = linalg.generic {
    indexing_maps = [#map0, #map0],
    iterator_types = ["parallel", "parallel"] }
    ins(%arg0 : tensor<8x6xi32>)
    outs(%2 : tensor<8x6xi32>) {
    ^bb0(%arg4: i32, %arg5: i32):
      %idx0 = linalg.index 0 : index
      %idx1 = linalg.index 1 : index
      %4 = arith.index_cast %idx0 : index to i32
      %5 = arith.index_cast %idx1 : index to i32
      %6 = arith.addi %arg4, %4 : i32
      %7 = arith.subi %6, %5 : i32
      linalg.yield %7 : i32
    } -> tensor<8x6xi32>
  %4 = linalg.generic {
    indexing_maps = [#map0, #map0, #map0],
    iterator_types = ["parallel", "parallel"] }
    ins(%3, %arg0 : tensor<8x6xi32>, tensor<8x6xi32>)
    outs(%2 : tensor<8x6xi32>) {
    ^bb0(%arg2: i32, %arg3: i32, %arg4: i32):
      %10 = arith.addi %arg2, %arg3 : i32
      linalg.yield %10 : i32
    } -> tensor<8x6xi32>
  return %4 : tensor<8x6xi32>
}
