// Source: xdslproject/xdsl tests/filecheck/dialects/linalg/linalg_ops.mlir (the linalg.reduce of tensor<12x20xf32> over [0])
// Adapted: the values of "test.op" are function arguments; the op's result is returned.
func.func @reduce_rows(%18: tensor<12x20xf32>, %19: tensor<20xf32>) -> tensor<20xf32> {
  %r = linalg.reduce ins(%18:tensor<12x20xf32>) outs(%19:tensor<20xf32>) dimensions = [0]
  (%20 : f32, %21 : f32) {
      %22 = arith.addf %20, %21 : f32
      linalg.yield %22 : f32
  }
  return %r : tensor<20xf32>
}
