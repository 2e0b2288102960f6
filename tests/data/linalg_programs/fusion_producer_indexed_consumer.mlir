// Source: llvm/llvm-project mlir/test/Dialect/Linalg/fusion-elementwise-ops.mlir (@producer_indexed_consumer_fusion)
// Adapted: the dynamic sizes made static (8x6), so tensor.dim goes.
#map0 = affine_map<(d0, d1) -> (d0, d1)>
func.func @producer_indexed_consumer_fusion(%arg0: tensor<8x6xi32>,
                                       %arg1: tensor<8x6xi32>) -> tensor<8x6xi32> {
  %2 = tensor.empty() : tensor<8x6xi32>
  %3 = linalg.generic {
    indexing_maps = [#map0, #map0, #map0],
    iterator_types = ["parallel", "parallel"] }
    ins(%arg0, %arg1  : tensor<8x6xi32>, tensor<8x6xi32>)
    outs(%2 : tensor<8x6xi32>) {
    ^bb0(%arg2: i32, %arg3: i32, %arg4: i32):
      %10 = arith.addi %arg2, %arg3 : i32
      linalg.yield %10 : i32
    } -> tensor<8x6xi32>
  %4 = linalg.generic {
    indexing_maps = [#map0, #map0],
    iterator_types = ["parallel", "parallel"] }
    ins(%3 : tensor<8x6xi32>)
    outs(%2 : tensor<8x6xi32>) {
    ^bb0(%arg2: i32, %arg3: i32):
      %idx0 = linalg.index 0 : index
      %idx1 = linalg.index 1 : index
      %5 = arith.index_cast %idx0 : index to i32
      %6 = arith.index_cast %idx1 : index to i32
      %7 = arith.addi %arg2, %5 : i32
      %8 = arith.subi %7, %6 : i32
      linalg.yield %8 : i32
    } -> tensor<8x6xi32>
  return %4 : tensor<8x6xi32>
}
