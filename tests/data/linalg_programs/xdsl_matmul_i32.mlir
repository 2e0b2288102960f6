// Source: xdslproject/xdsl tests/filecheck/dialects/linalg/linalg_ops.mlir (linalg.matmul {id} on memref<...xi32>)
// Adapted: the values of "test.op" are function arguments; the sizes 64x9216 and 9216x4096
// are 16x24 and 24x8.
func.func @matmul(%i2: memref<16x24xi32>, %i3: memref<24x8xi32>, %i4: memref<16x8xi32>) {
  linalg.matmul {id} ins(%i2, %i3 : memref<16x24xi32>, memref<24x8xi32>) outs(%i4 : memref<16x8xi32>)
  return
}
