// Source: xdslproject/xdsl tests/filecheck/dialects/linalg/linalg_ops.mlir (linalg.max on tensors)
// Adapted: the values of "test.op" are function arguments; the op's result is returned.
func.func @max(%t1: tensor<4x16xf32>, %t2: tensor<4x16xf32>, %t3: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = linalg.max ins(%t1, %t2 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%t3 : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
