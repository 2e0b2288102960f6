// Source: xdslproject/xdsl tests/filecheck/dialects/linalg/linalg_ops.mlir (the linalg.reduce of memref<64x10xi32> over [0, 1])
// Adapted: the values of "test.op" are function arguments.
func.func @reduce_all(%13: memref<64x10xi32>, %14: memref<i32>) {
  linalg.reduce ins(%13:memref<64x10xi32>) outs(%14:memref<i32>) dimensions = [0, 1]
  (%15 : i32, %16 : i32) {
      %17 = arith.addi %15, %16 : i32
      linalg.yield %17 : i32
  }
  return
}
