// Source: xdslproject/xdsl tests/filecheck/dialects/linalg/linalg_ops.mlir (linalg.select on tensors)
// Adapted: the values of "test.op" are function arguments; the op's result is returned.
func.func @select(%b1: tensor<4x16xi1>, %t1: tensor<4x16xf32>, %t2: tensor<4x16xf32>, %t3: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %10 = linalg.select ins(%b1, %t1, %t2 : tensor<4x16xi1>, tensor<4x16xf32>, tensor<4x16xf32>) outs(%t3 : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %10 : tensor<4x16xf32>
}
