// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-elementwise.mlir (@main)
// Adapted: the constant inputs are arguments, and the tensor arith.addf is written as the
// linalg.generic that -convert-elementwise-to-linalg (the file's first pass) makes of it.
func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %addf = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                           affine_map<(d0) -> (d0)>],
                          iterator_types = ["parallel"]}
      ins(%a, %b : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %addf : tensor<3xf32>
}
